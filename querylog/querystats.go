package querylog

import (
	"bytes"
	"encoding/json"
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
	if db == "admin" || db == "config" || db == "local" {
		st.rep.skip(skipInternal, op.Weight)
		return nil
	}
	if client, ok := lookup(key, "client").(bson.D); ok {
		if app, ok := lookup(client, "application").(bson.D); ok {
			op.App, _ = lookup(app, "name").(string)
		}
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
// or $queryStats output printed whole): parsed whole, so bounded by
// MaxArray.
func (st *state) readArray(in *input, first []byte) error {
	data := append([]byte(nil), first...)
	data = append(data, '\n')
	rest, err := io.ReadAll(io.LimitReader(in.r, MaxArray+1))
	if err != nil {
		return fmt.Errorf("%s: %w", in.name, err)
	}
	data = append(data, rest...)
	if len(data) > MaxArray {
		return &InputError{File: in.name, Msg: fmt.Sprintf("a JSON array larger than %d MiB; export one document a line instead (mongoexport without --jsonArray)", MaxArray>>20)}
	}
	startLine := in.line
	lineAt := func(off int64) int { return startLine + bytes.Count(data[:off], []byte{'\n'}) }
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return &InputError{File: in.name, Line: startLine, Msg: "not a JSON array"}
	}
	format := ""
	for dec.More() {
		off := min(dec.InputOffset(), int64(len(data)))
		line := lineAt(off) + leadingNewlines(data[off:])
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return &InputError{File: in.name, Line: line, Msg: "the JSON array is cut short or corrupted here"}
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
		return &InputError{File: in.name, Line: lineAt(dec.InputOffset()), Msg: "the JSON array is cut short (no closing bracket)"}
	}
	return nil
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
