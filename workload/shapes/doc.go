// Package shapes is the workload file: the query shapes a
// deployment ran (the command with its literal values replaced by their
// types, as $queryStats writes them), each with its share of the
// operations, the distributions of the values its placeholders took, and
// what was observed of it (latency, documents examined, plan). `poolsweep
// workload from-log` writes it; `sweep --workload-file` replays it.
//
// The package reads, validates and writes the file (YAML, docs/
// workload-file.md), turns a logged command into its shape (Abstract) and
// a shape back into a command with drawn values (Instantiate). It does no
// I/O beyond reading the one file it is asked to read.
package shapes
