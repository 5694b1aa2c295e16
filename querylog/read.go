package querylog

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// DefaultMaxTotal is the most bytes all inputs together may hold (after
// decompression), so that no input exhausts time or memory unnoticed.
const DefaultMaxTotal int64 = 8 << 30

// Options are what Read is asked to keep.
type Options struct {
	// App keeps only operations of this appName.
	App string
	// MaxTotal bounds the bytes of all inputs; 0 is DefaultMaxTotal.
	MaxTotal int64
	// MaxWarnings is the warnings kept (the rest are counted); 0 is 50.
	MaxWarnings int
}

// Warning is a line that could not be read, or something the reader must
// say of a file; it names the file and line, never their contents.
type Warning struct {
	File string
	Line int
	Msg  string
}

func (w Warning) String() string { return textfmt.At(w.File, w.Line, "") + w.Msg }

// InsertsLogged counts inserts by what their entries hold of the
// documents: all of them (sent in the command's body), only their number,
// or nothing but ninserted (sent as a document sequence, apart from the
// command).
type InsertsLogged struct {
	Whole, Count, None int64
}

// Setting is a slowms, sample rate and profiler level operations were
// logged at, and how many were.
type Setting struct {
	SlowMs     float64
	SampleRate float64
	Level      int
	Ops        int64
}

// Report is what reading found besides the operations.
type Report struct {
	Format  string // shapes.FormatMongodLog, FormatProfiler or FormatQueryStats
	Files   int
	Lines   int64
	Entries int64 // operations read (each a line, document or $queryStats entry)
	Ops     int64 // operations they stand for (execCount for $queryStats)
	// Skipped counts entries that are not a workload's operations, by why.
	Skipped map[string]int64
	// Settings are the thresholds the log's operations were logged at;
	// Unknown counts those logged where the log did not say (its startup
	// lines are not in it).
	Settings []Setting
	Unknown  int64
	// ProfileFilter: a profile filter was set, so what was logged is what
	// the filter chose.
	ProfileFilter bool
	Redacted      int64
	// Inserts counts the inserts kept by what their entries hold of the
	// documents inserted.
	Inserts InsertsLogged
	// Preamble counts the lines before a file's first JSON line that
	// were skipped (what a wrapper such as nohup printed first).
	Preamble int64
	// OtherApps counts the operations --app left out.
	OtherApps int64
	Grew      []string
	Versions  []string
	// MinDurationMs is the fastest operation read (NaN without durations):
	// at 0, every operation may have been recorded.
	MinDurationMs float64

	Warnings        []Warning
	WarningsLeftOut int
	maxWarnings     int
}

func (r *Report) warn(file string, line int, msg string) {
	if len(r.Warnings) < r.maxWarnings {
		r.Warnings = append(r.Warnings, Warning{file, line, msg})
		return
	}
	r.WarningsLeftOut++
}

func (r *Report) skip(reason string, n int64) {
	if r.Skipped == nil {
		r.Skipped = map[string]int64{}
	}
	r.Skipped[reason] += n
}

// InputError is an input that cannot be read at all: the file, the line
// where that showed, and why.
type InputError struct {
	File string
	Line int
	Msg  string
	Err  error // ErrNoOps, or nil
}

// Unwrap is the error's kind, for errors.Is.
func (e *InputError) Unwrap() error { return e.Err }

func (e *InputError) Error() string { return textfmt.At(e.File, e.Line, "") + e.Msg }

// ErrNoOps is wrapped by the error of inputs that hold no operations.
var ErrNoOps = errors.New("no operations")

var legacyLog = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\S*\s+[IWEFD]\d?\s+[A-Z]+`)

// Read reads every file in paths and hands each operation to emit, in
// file order. All files must be of one format: the shares of a log and a
// profiler export do not add up.
func Read(ctx context.Context, paths []string, opt Options, emit func(*Op) error) (*Report, error) {
	if opt.MaxTotal <= 0 {
		opt.MaxTotal = DefaultMaxTotal
	}
	if opt.MaxWarnings <= 0 {
		opt.MaxWarnings = 50
	}
	rep := &Report{maxWarnings: opt.MaxWarnings, MinDurationMs: nan()}
	st := &state{rep: rep, opt: opt, emit: emit, settings: map[Setting]int64{}}
	budget := opt.MaxTotal
	for _, path := range paths {
		in, err := open(ctx, path, budget)
		if err != nil {
			return rep, err
		}
		err = st.readFile(in)
		budget -= in.count.n
		in.close()
		if in.grew {
			rep.Grew = append(rep.Grew, path)
			rep.warn(path, 0, fmt.Sprintf("grew while it was read: read to the %d bytes it had when opened", in.size))
		}
		if errors.Is(err, errTotal) {
			return rep, &InputError{File: path, Line: in.line, Msg: fmt.Sprintf("%v (%d MiB); name fewer or smaller files", errTotal, opt.MaxTotal>>20)}
		}
		if err != nil {
			return rep, err
		}
		rep.Files++
	}
	for s, n := range st.settings {
		s.Ops = n
		rep.Settings = append(rep.Settings, s)
	}
	sort.Slice(rep.Settings, func(i, j int) bool { return rep.Settings[i].Ops > rep.Settings[j].Ops })
	if rep.Entries == 0 {
		return rep, st.noOps(paths)
	}
	return rep, nil
}

// state is what reading carries from line to line and file to file.
type state struct {
	rep      *Report
	opt      Options
	emit     func(*Op) error
	settings map[Setting]int64

	// The log's settings now, as its last startup or profile line said.
	known     bool
	current   Setting
	otherApps int64
	// weight is the operations all $queryStats entries read stand for,
	// kept or not: it stays within maxWeight, so no sum of them overflows.
	weight int64
}

type probe struct {
	T       json.RawMessage `json:"t"`
	S       *string         `json:"s"`
	C       *string         `json:"c"`
	ID      *int64          `json:"id"`
	Msg     *string         `json:"msg"`
	Op      *string         `json:"op"`
	NS      *string         `json:"ns"`
	Key     json.RawMessage `json:"key"`
	Metrics json.RawMessage `json:"metrics"`
}

func (p *probe) kind() string {
	switch {
	case p.T != nil && p.S != nil && p.C != nil && p.ID != nil && p.Msg != nil:
		return shapes.FormatMongodLog
	case p.Op != nil && p.NS != nil:
		return shapes.FormatProfiler
	case p.Key != nil && p.Metrics != nil:
		return shapes.FormatQueryStats
	}
	return ""
}

// A log is often written by a wrapper that prints first ("nohup:
// ignoring input", an install script's banner, a shell prompt): up to
// maxPreamble lines, and preambleBytes in all, before a file's first JSON
// line are skipped and counted. Past either bound the file is no input
// from-log reads.
const (
	maxPreamble   = 32
	preambleBytes = 64 << 10
)

func (st *state) readFile(in *input) error {
	st.known = false // a new file: its settings are what it says
	// A JSON array is told by its first byte, not its first line: an
	// array on one line may be far longer than a line may be.
	if isArray, err := in.startsArray(); err != nil || isArray {
		if err != nil {
			return err
		}
		return st.readArray(in)
	}
	var buf []byte
	format := ""
	var pre preamble
	for {
		res, err := in.next(&buf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		st.rep.Lines++
		if res.tooLong {
			st.rep.warn(in.name, in.line, fmt.Sprintf("longer than %d KiB, skipped unread", maxLine>>10))
			continue
		}
		text := trimSpace(res.text)
		if len(text) == 0 {
			continue
		}
		if format == "" && text[0] == '[' {
			// An array after a wrapper's lines: read from its first line on,
			// an element at a time, as an array at the file's start is.
			st.endPreamble(in, &pre)
			in.r = bufio.NewReader(io.MultiReader(bytes.NewReader(append(bytes.Clone(res.text), '\n')), in.r))
			in.line--
			return st.readArray(in)
		}
		var p probe
		if err := json.Unmarshal(text, &p); err != nil {
			if format == "" {
				if err := st.preambleLine(in, text, res, &pre); err != nil {
					return err
				}
				continue
			}
			st.badLine(in, res)
			continue
		}
		st.endPreamble(in, &pre)
		kind := p.kind()
		ok, err := st.admit(in.name, in.line, kind, kind == "", &format,
			"JSON that is not a mongod log entry, a system.profile document or a $queryStats entry", "JSON that is not a ")
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := st.entry(in, in.line, kind, text, &p); err != nil {
			return err
		}
	}
	if pre.lines > 0 {
		// No JSON line after the skipped ones: the file is not a log.
		return &InputError{File: in.name, Line: 1, Msg: notJSON}
	}
	if format == "" {
		st.rep.warn(in.name, 0, "empty")
	}
	return nil
}

// preamble is the non-JSON lines a file began with.
type preamble struct {
	lines int
	bytes int
}

// preambleLine takes a line that is not JSON before the file's first
// JSON line: skipped while within the bounds, the file's error past them,
// or at once when the line says what the file is (a 4.2 text log, a line
// cut short at the file's end).
func (st *state) preambleLine(in *input, text []byte, res lineResult, pre *preamble) error {
	if legacyLog.Match(text) || res.noEOL {
		return st.firstLineError(in, text, res)
	}
	pre.lines++
	pre.bytes += len(text)
	if pre.lines > maxPreamble || pre.bytes > preambleBytes {
		return &InputError{File: in.name, Line: 1, Msg: notJSON}
	}
	return nil
}

// endPreamble says, at a file's first JSON line, how many lines before it
// were skipped.
func (st *state) endPreamble(in *input, pre *preamble) {
	if pre.lines == 0 {
		return
	}
	st.rep.Preamble += int64(pre.lines)
	st.rep.warn(in.name, 1, fmt.Sprintf("%d lines before the first JSON line are not JSON "+
		"(what started mongod printed them, as nohup does), skipped", pre.lines))
	*pre = preamble{}
}

// admit says whether an entry of kind, at file's line, is read: the first
// entry of a known kind settles the file's format (*format); an entry of
// another format is skipped with a warning. An entry the file cannot
// hold (unknown) is the file's error while no format is settled (first
// says what the file then is), and a skipped entry after (skipped begins
// the warning, which ends with the format).
func (st *state) admit(file string, line int, kind string, unknown bool, format *string, first, skipped string) (bool, error) {
	switch {
	case unknown:
		if *format == "" {
			return false, &InputError{File: file, Line: line, Msg: first}
		}
		st.rep.warn(file, line, skipped+describe(*format)+", skipped")
		return false, nil
	case *format == "":
		*format = kind
		return true, st.setFormat(file, kind)
	case kind != *format:
		st.rep.warn(file, line, "a "+describe(kind)+" among "+describe(*format)+"s, skipped")
		return false, nil
	}
	return true, nil
}

func (st *state) setFormat(file, kind string) error {
	if st.rep.Format != "" && st.rep.Format != kind {
		return &InputError{File: file, Msg: "a " + describe(kind) + " file among " + describe(st.rep.Format) +
			" files: read them separately (the shares of two kinds of input do not add up)"}
	}
	st.rep.Format = kind
	return nil
}

func (st *state) firstLineError(in *input, text []byte, res lineResult) error {
	if legacyLog.Match(text) {
		return &InputError{File: in.name, Line: in.line, Msg: "a mongod log in the text format of 4.2 and older; from-log reads the JSON log of 4.4 and later, system.profile exports and $queryStats output"}
	}
	if res.noEOL && text[0] == '{' {
		return &InputError{File: in.name, Line: in.line, Msg: "its first JSON line is cut short (the file ends mid-line)"}
	}
	return &InputError{File: in.name, Line: in.line, Msg: notJSON}
}

const notJSON = "not JSON: from-log reads mongod's JSON log (4.4 and later), system.profile exported as JSON, and $queryStats output"

func (st *state) badLine(in *input, res lineResult) {
	if res.noEOL {
		st.rep.warn(in.name, in.line, "cut short (the file ends mid-line, as a log still being written does), skipped")
		return
	}
	st.rep.warn(in.name, in.line, "not JSON (a line cut short or corrupted), skipped")
}

// entry reads one entry of a known kind at line of in.
func (st *state) entry(in *input, line int, kind string, text []byte, p *probe) error {
	switch kind {
	case shapes.FormatMongodLog:
		return st.logEntry(in, text, p)
	case shapes.FormatProfiler:
		return st.profileEntry(in.name, line, text)
	default:
		return st.queryStatsEntry(in.name, line, text)
	}
}

// LeftOut is what emit returns for an operation it cannot keep (its shape
// is one a workload file cannot hold): Read leaves that operation out,
// says so in a warning naming its file and line, counts it, and reads on,
// so that one odd operation never fails a whole file.
type LeftOut struct{ Reason string }

func (e *LeftOut) Error() string { return e.Reason }

// deliver hands an op to emit, unless --app leaves it out; an op emit
// leaves out (LeftOut) is a warning, and is not counted as read.
func (st *state) deliver(op *Op) error {
	if st.opt.App != "" && op.App != st.opt.App {
		st.rep.skip(skipApp, op.Weight)
		st.otherApps += op.Weight
		st.rep.OtherApps += op.Weight
		return nil
	}
	if err := st.emit(op); err != nil {
		var lo *LeftOut
		if !errors.As(err, &lo) {
			return err
		}
		st.rep.warn(op.File, op.Line, "an operation a workload file cannot hold ("+lo.Reason+"), left out")
		st.rep.skip(skipUnfit, op.Weight)
		return nil
	}
	st.rep.Entries++
	st.rep.Ops += op.Weight
	if op.Redacted {
		st.rep.Redacted += op.Weight
	}
	switch op.InsertLogged {
	case insertWhole:
		st.rep.Inserts.Whole += op.Weight
	case insertCount:
		st.rep.Inserts.Count += op.Weight
	case insertNone:
		st.rep.Inserts.None += op.Weight
	}
	if d := op.Metrics.DurationMs; !isNaN(d) && (isNaN(st.rep.MinDurationMs) || d < st.rep.MinDurationMs) {
		st.rep.MinDurationMs = d
	}
	return nil
}

func (st *state) noOps(paths []string) error {
	name := paths[0]
	if len(paths) > 1 {
		name = fmt.Sprintf("%s and %d more", paths[0], len(paths)-1)
	}
	if st.otherApps > 0 {
		return &InputError{File: name, Err: ErrNoOps, Msg: fmt.Sprintf("no operations of appName %s (%d of other appNames)",
			textfmt.Token(st.opt.App), st.otherApps)}
	}
	switch st.rep.Format {
	case shapes.FormatMongodLog:
		read := ""
		var own, other int64
		for kind, n := range st.rep.Skipped {
			if OwnWork(kind) {
				own += n
			} else {
				other += n
			}
		}
		if own+other > 0 {
			// A log of the server's own work only is not a log without
			// slow-query lines: say what its lines were.
			read = fmt.Sprintf(" (%d were read: %d the server's own or its tools' work, %d server commands, getMores or batches)", own+other, own, other)
		}
		return &InputError{File: name, Err: ErrNoOps, Msg: "no slow-query lines (id 51803) of a workload's operations" + read + ". " +
			"mongod logs only operations slower than slowms (100 ms by default). To log every operation for a while, run " +
			"db.setProfilingLevel(0, {slowms: 0}) (and set it back afterwards), or enable the profiler with " +
			"db.setProfilingLevel(2) and export system.profile"}
	case shapes.FormatProfiler:
		return &InputError{File: name, Err: ErrNoOps, Msg: "no operations in the profile. The profiler records " +
			"operations only while enabled: db.setProfilingLevel(2) records every one"}
	case shapes.FormatQueryStats:
		return &InputError{File: name, Err: ErrNoOps, Msg: "no find, aggregate or distinct entries"}
	}
	return &InputError{File: name, Err: ErrNoOps, Msg: "nothing to read"}
}

func describe(kind string) string {
	switch kind {
	case shapes.FormatMongodLog:
		return "mongod log line"
	case shapes.FormatProfiler:
		return "system.profile document"
	case shapes.FormatQueryStats:
		return "$queryStats entry"
	}
	return "entry"
}

func trimSpace(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a byte-order mark
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func nan() float64 { return math.NaN() }

func isNaN(v float64) bool { return math.IsNaN(v) }
