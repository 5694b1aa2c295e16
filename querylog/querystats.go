package querylog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/workload/shapes"
)

// maxWeight bounds the operations all $queryStats entries of a run stand
// for (the sum of their execCounts): every count and sum of them, here
// and in the shapes derived, is then exact and cannot overflow.
const maxWeight = 1 << 53

// queryStatsEntry reads one $queryStats document: a shape already (its
// values are placeholders) with its execCount and summed metrics.
func (st *state) queryStatsEntry(file string, line int, text []byte) error {
	var d bson.D
	if err := bson.UnmarshalExtJSON(text, false, &d); err != nil {
		st.rep.warn(file, line, "a $queryStats entry that is not extended JSON, skipped")
		return nil
	}
	return st.queryStatsDoc(file, line, d)
}

func (st *state) queryStatsDoc(file string, line int, d bson.D) error {
	key, _ := lookup(d, "key").(bson.D)
	qs, _ := lookup(key, "queryShape").(bson.D)
	ns, _ := lookup(qs, "cmdNs").(bson.D)
	db, _ := lookup(ns, "db").(string)
	coll, _ := lookup(ns, "coll").(string)
	metrics, _ := lookup(d, "metrics").(bson.D)
	execCount, ok := number(lookup(metrics, "execCount"))
	if qs == nil || db == "" || !ok || execCount < 1 {
		st.rep.warn(file, line, "a $queryStats entry without its queryShape, namespace or execCount, skipped")
		return nil
	}
	// A real execCount is far below 2^53; past it float64 loses whole
	// numbers, and two near 2^63 would overflow the sums of operations.
	if execCount > float64(maxWeight-st.weight) {
		st.rep.warn(file, line, "a $queryStats entry whose execCount would take the operations counted past 2^53, skipped")
		st.rep.skip(skipOverflow, 1)
		return nil
	}
	st.weight += int64(execCount)
	if coll == "" {
		st.rep.skip(skipDBCommand, int64(execCount))
		return nil
	}
	cmdName, _ := lookup(qs, "command").(string)
	op := Op{File: file, Line: line, Database: db, Collection: coll, Weight: int64(execCount), Shaped: true}
	switch cmdName {
	case "find":
		op.readFind(qs)
	case "aggregate":
		if reason := op.readPipeline(qs); reason != "" {
			st.rep.skip(reason, op.Weight)
			return nil
		}
	case "distinct":
		op.readDistinct(qs)
	default:
		st.rep.skip(skipOther, op.Weight)
		return nil
	}
	if internalNS(db, coll) {
		st.rep.skip(skipInternal, op.Weight)
		return nil
	}
	if client, ok := lookup(key, "client").(bson.D); ok {
		if app, ok := lookup(client, "application").(bson.D); ok {
			op.App, _ = lookup(app, "name").(string)
		}
	}
	if kind := ownApp(op.App); kind != "" && (st.opt.App == "" || op.App != st.opt.App) {
		st.rep.skip(kind, op.Weight)
		return nil
	}
	mean := func(name string, scale float64) float64 {
		m, _ := lookup(metrics, name).(bson.D)
		if sum, ok := number(lookup(m, "sum")); ok {
			return sum / execCount * scale
		}
		return math.NaN()
	}
	op.Metrics = Metrics{
		DurationMs:   mean("totalExecMicros", 1e-3),
		DocsExamined: mean("docsExamined", 1),
		KeysExamined: mean("keysExamined", 1),
		NReturned:    mean("docsReturned", 1),
		ResLen:       math.NaN(),
	}
	op.Metrics.MaxDurationMs = math.NaN()
	if m, ok := lookup(metrics, "totalExecMicros").(bson.D); ok {
		if mx, ok := number(lookup(m, "max")); ok {
			op.Metrics.MaxDurationMs = mx / 1e3
		}
	}
	return st.deliver(&op)
}

// readArray reads a file that is one JSON array (mongoexport --jsonArray,
// or $queryStats output printed whole), whose '[' is the next byte of in,
// element by element: only the element being read is held, at most
// maxLine bytes as a line is, so an array of any size (on one line or
// many) reads in bounded memory.
func (st *state) readArray(in *input) error {
	src := &arrayReader{r: in.r, limit: int64(maxLine) + arraySlack, startLine: in.line + 1}
	dec := json.NewDecoder(src)
	if _, err := dec.Token(); err != nil {
		return st.arrayError(in, src, err, "not a JSON array")
	}
	format := ""
	for dec.More() {
		line := src.lineAt(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return st.arrayError(in, src, err, "the JSON array is cut short or corrupted here")
		}
		var p probe
		if json.Unmarshal(raw, &p) != nil {
			st.rep.warn(in.name, line, "an array element that is not a document, skipped")
			continue
		}
		kind := p.kind()
		ok, err := st.admit(in.name, line, kind, kind == "" || kind == shapes.FormatMongodLog, &format,
			"an array of JSON that are not system.profile documents or $queryStats entries", "an array element that is not a ")
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		st.rep.Lines++
		if err := st.entry(in, line, kind, raw, &p); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return st.arrayError(in, src, err, "the JSON array is cut short (no closing bracket)")
	}
	return nil
}

// arraySlack is what the JSON decoder may read past an element's end.
const arraySlack = 64 << 10

var errElementTooLong = errors.New("array element too long")

// arrayError is err of a JSON array's decoder said for in: the reader's
// own error (the total bound, a signal, an element over the bound) when
// it was one, else msg at the line the decoder reached.
func (st *state) arrayError(in *input, src *arrayReader, err error, msg string) error {
	line := src.lineAt(src.mark)
	switch {
	case errors.Is(src.err, errElementTooLong):
		return &InputError{File: in.name, Line: line, Msg: fmt.Sprintf("an array element longer than %d KiB; export one document a line instead (mongoexport without --jsonArray)", maxLine>>10)}
	case errors.Is(src.err, errTotal):
		return src.err
	case src.err != nil && !errors.Is(src.err, io.EOF):
		return fmt.Errorf("%s: %w", in.name, src.err)
	}
	return &InputError{File: in.name, Line: src.lineAt(src.end()), Msg: msg}
}

// arrayReader hands a JSON array's bytes to the decoder, keeping those
// not yet past an element's start to say its line, and refusing to read
// more than limit bytes past that start.
type arrayReader struct {
	r         io.Reader
	limit     int64
	err       error
	pending   []byte // bytes read; those from head on are at offset base on
	head      int
	base      int64
	mark      int64 // the offset of the element being read
	lines     int   // newlines before base
	startLine int   // the line of the array's first byte
}

// end is the offset of the next byte to read.
func (a *arrayReader) end() int64 { return a.base + int64(len(a.pending)-a.head) }

func (a *arrayReader) Read(p []byte) (int, error) {
	if room := a.mark + a.limit - a.end(); int64(len(p)) > room {
		if room <= 0 {
			a.err = errElementTooLong
			return 0, a.err
		}
		p = p[:room]
	}
	if a.head > len(a.pending)/2 { // let go of what was read, now and then
		a.pending = append(a.pending[:0], a.pending[a.head:]...)
		a.head = 0
	}
	n, err := a.r.Read(p)
	a.pending = append(a.pending, p[:n]...)
	if err != nil {
		a.err = err
	}
	return n, err
}

// lineAt is the line of the first byte at or after off that is not
// space, a comma or a newline (an element starts there), and marks off
// as read.
func (a *arrayReader) lineAt(off int64) int {
	off = min(max(off, a.base), a.end())
	k := a.head + int(off-a.base)
	a.lines += bytes.Count(a.pending[a.head:k], []byte{'\n'})
	a.head, a.base, a.mark = k, off, off
	return a.startLine + a.lines + leadingNewlines(a.pending[a.head:])
}

func leadingNewlines(b []byte) int {
	n := 0
	for _, c := range b {
		switch c {
		case '\n':
			n++
		case ' ', '\t', '\r', ',':
		default:
			return n
		}
	}
	return n
}
