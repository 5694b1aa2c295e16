// Package results is the results.jsonl contract: the contract between
// measuring and everything after it (analyze, plot, report, compare).
//
// A results file is JSON lines: one run header (RunHeader, kind "run"),
// then one record per measured step (StepResult, kind "step"), then an
// end record (EndRecord, kind "end"); a resumed run appends more steps
// and a second end record, and the last one counts. docs/results-schema.md
// describes every record and field, with its unit and when it is null.
//
// The package holds the record types, the reader (ReadResults, which
// validates every record and names the line of a bad one), the writer
// (ResultsWriter: each record whole or not at all, fsynced, with disk
// space reserved ahead so that a full disk still leaves room for the end
// record), the HdrHistogram encoding of a step's histograms, the merge of
// the files of one agent-mode run (MergeAgents), and the names a file
// uses (record kinds, end statuses, op types and classes, the open-loop
// mode, search modes and reasons).
//
// Besides the standard library and HdrHistogram it imports only three
// leaf packages of internal/, which import nothing of poolsweep but each
// other: infile (the reader opens a file with a bound on its size),
// outfile (the writer creates and appends only regular files, never
// through a link) and textfmt (an error names a value by its short token
// and an I/O error in plain words). Reading a results file never needs
// the engine that wrote it.
package results
