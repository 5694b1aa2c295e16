package querylog

import (
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/workload/shapes"
)

// Op is one observed operation: its namespace, its command's parts (with
// their literal values, or placeholders for $queryStats), and what was
// measured of it.
type Op struct {
	File string
	Line int

	Database, Collection string
	// Command is one of shapes.Commands.
	Command        string
	Filter         bson.D
	Projection     bson.D
	Sort           bson.D
	Update         bson.D
	Pipeline       []bson.D
	UpdatePipeline []bson.D
	Limit, Skip    *int64
	Multi, Upsert  bool
	Remove         bool
	Key            string
	// InsertDocs is the documents an insert inserted (ninserted).
	InsertDocs int
	App        string

	// Weight is the operations the entry stands for: 1 for a log line or a
	// profile document, execCount for a $queryStats entry.
	Weight int64
	// Shaped: the parts already hold placeholders ($queryStats), not values.
	Shaped bool
	// Redacted: the entry's values were hidden by redactClientLogData.
	Redacted bool
	// Truncated: mongod cut the command (maxLogSizeKB); it may lack parts.
	Truncated bool

	Metrics Metrics
}

// Metrics is what the input measured of an operation; NaN where it did not
// say. For a $queryStats entry they are means over its executions, and
// MaxDurationMs the slowest.
type Metrics struct {
	DurationMs    float64
	MaxDurationMs float64
	DocsExamined  float64
	KeysExamined  float64
	NReturned     float64
	ResLen        float64
	Plan          string
}

func noMetrics() Metrics {
	n := math.NaN()
	return Metrics{DurationMs: n, MaxDurationMs: n, DocsExamined: n, KeysExamined: n, NReturned: n, ResLen: n}
}

// skip reasons, the words a report counts skipped entries by.
const (
	skipGetMore    = "getMore (the rest of a find's or aggregate's results, not a new operation)"
	skipBatch      = "update/delete batch lines (their statements are read from their own lines)"
	skipOther      = "commands that are not a workload's (hello, serverStatus, collStats, index builds, …)"
	skipInternal   = "operations on admin, config and local"
	skipApp        = "operations of other appNames than --app"
	skipNoNS       = "entries without a namespace"
	skipDBCommand  = "database-level aggregations ($currentOp, $documents, …)"
	skipProfile    = "profiler entries that are not operations"
	skipChangeStrm = "change streams"
	skipUnfit      = "operations a workload file cannot hold (names MongoDB refuses, nesting deeper than the format, text that is not UTF-8; each a warning)"
	skipOverflow   = "$queryStats entries whose execCount would take the count of operations past 2^53"
)

// fromCommand is the op a command stands for. typ is the log's attr.type
// (or the profiler's op): "update" and "remove" lines hold one statement
// ({q, u, multi, upsert} or {q, limit}); others hold the command. ns names
// the collection where the command's own field cannot (redacted, or a
// "$cmd" namespace). It returns the reason when the entry is no operation
// of a workload.
func fromCommand(typ, ns string, cmd bson.D) (Op, string) {
	op := Op{Weight: 1, Metrics: noMetrics()}
	op.Database, op.Collection, _ = strings.Cut(ns, ".")
	switch typ {
	case "update":
		op.Command = shapes.CmdUpdate
		op.Filter = doc(cmd, "q")
		if u, ok := lookup(cmd, "u").(bson.A); ok {
			op.UpdatePipeline = docs(u)
		} else {
			op.Update = doc(cmd, "u")
			if op.Update == nil {
				op.Update = bson.D{}
			}
		}
		op.Multi = truthy(lookup(cmd, "multi"))
		op.Upsert = truthy(lookup(cmd, "upsert"))
		return op, ""
	case "remove", "delete":
		op.Command = shapes.CmdDelete
		op.Filter = doc(cmd, "q")
		if n, ok := number(lookup(cmd, "limit")); ok && n == 0 {
			op.Multi = true
		}
		return op, ""
	}
	if len(cmd) == 0 {
		return op, skipOther
	}
	name := cmd[0].Key
	if c, ok := cmd[0].Value.(string); ok && c != shapes.Redacted && c != "" {
		op.Collection = c // the log's ns of a write batch is "db.$cmd"
	}
	switch name {
	case "find":
		op.readFind(cmd)
	case "aggregate":
		if _, isColl := cmd[0].Value.(string); !isColl {
			return op, skipDBCommand
		}
		if reason := op.readPipeline(cmd); reason != "" {
			return op, reason
		}
	case "count":
		op.Command = shapes.CmdCount
		op.Filter = doc(cmd, "query")
		op.Limit, op.Skip = count(cmd, "limit"), count(cmd, "skip")
	case "distinct":
		op.readDistinct(cmd)
	case "findAndModify", "findandmodify":
		op.Command = shapes.CmdFindAndModify
		op.Filter = doc(cmd, "query")
		op.Sort = doc(cmd, "sort")
		op.Projection = doc(cmd, "fields")
		op.Remove = truthy(lookup(cmd, "remove"))
		op.Upsert = truthy(lookup(cmd, "upsert"))
		if u, ok := lookup(cmd, "update").(bson.A); ok {
			op.UpdatePipeline = docs(u)
		} else if !op.Remove {
			op.Update = doc(cmd, "update")
			if op.Update == nil {
				op.Update = bson.D{}
			}
		}
	case "insert":
		op.Command = shapes.CmdInsert
		op.InsertDocs = 1
		if a, ok := lookup(cmd, "documents").(bson.A); ok && len(a) > 0 {
			op.InsertDocs = len(a)
		}
	case "update", "delete":
		return op, skipBatch
	case "getMore", "getmore", "killCursors":
		return op, skipGetMore
	default:
		return op, skipOther
	}
	if op.Database == "admin" || op.Database == "config" || op.Database == "local" {
		return op, skipInternal
	}
	return op, ""
}

// readFind sets a find's parts from d: a find command, or $queryStats'
// queryShape of one.
func (op *Op) readFind(d bson.D) {
	op.Command = shapes.CmdFind
	op.Filter = doc(d, "filter")
	op.Projection = doc(d, "projection")
	op.Sort = doc(d, "sort")
	op.Limit, op.Skip = count(d, "limit"), count(d, "skip")
}

// readPipeline sets an aggregate's stages from d's pipeline; a change
// stream is no operation of a workload, and says why.
func (op *Op) readPipeline(d bson.D) (skip string) {
	op.Command = shapes.CmdAggregate
	p, _ := lookup(d, "pipeline").(bson.A)
	op.Pipeline = docs(p)
	if len(op.Pipeline) > 0 && len(op.Pipeline[0]) > 0 && op.Pipeline[0][0].Key == "$changeStream" {
		return skipChangeStrm
	}
	if len(op.Pipeline) == 0 {
		op.Pipeline = []bson.D{{}}
	}
	return ""
}

// readDistinct sets a distinct's key and filter from d.
func (op *Op) readDistinct(d bson.D) {
	op.Command = shapes.CmdDistinct
	op.Filter = doc(d, "query")
	op.Key, _ = lookup(d, "key").(string)
	if op.Key == "" {
		op.Key = shapes.Redacted
	}
}

func lookup(d bson.D, key string) any {
	for _, e := range d {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}

func doc(d bson.D, key string) bson.D {
	v, _ := lookup(d, key).(bson.D)
	return v
}

func docs(a bson.A) []bson.D {
	out := make([]bson.D, 0, len(a))
	for _, e := range a {
		if d, ok := e.(bson.D); ok {
			out = append(out, d)
		}
	}
	return out
}

func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int32, int64, float64:
		n, _ := number(x)
		return n != 0
	}
	return false
}

// number is v as a float64 when it is a number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	return 0, false
}

// count is a limit's or a skip's value; 0 and negatives (a find's limit
// -1 is one batch of one) are kept as their size, absent or redacted nil.
func count(d bson.D, key string) *int64 {
	n, ok := number(lookup(d, key))
	if !ok {
		return nil
	}
	v := int64(math.Abs(n))
	if v == 0 && key == "limit" {
		return nil
	}
	return &v
}

// metric is attr[key] as a number, NaN when absent.
func metric(d bson.D, key string) float64 {
	if n, ok := number(lookup(d, key)); ok {
		return n
	}
	return math.NaN()
}

// hasRedacted says whether any value in v is redactClientLogData's "###".
func hasRedacted(v any, depth int) bool {
	if depth > shapes.MaxDepth {
		return false
	}
	switch x := v.(type) {
	case string:
		return x == shapes.Redacted
	case bson.D:
		for _, e := range x {
			if hasRedacted(e.Value, depth+1) {
				return true
			}
		}
	case bson.A:
		for _, e := range x {
			if hasRedacted(e, depth+1) {
				return true
			}
		}
	}
	return false
}

// entryKeys name an entry's measurements, which a log line and a profile
// document name differently.
type entryKeys struct{ duration, resLen string }

var (
	logKeys     = entryKeys{duration: "durationMillis", resLen: "reslen"}
	profileKeys = entryKeys{duration: "millis", resLen: "responseLength"}
)

// observe is the op of one entry (a slow-query line's attributes, or a
// profile document): its command's op, with what the entry measured of
// it; nil, counted as skipped, when it is no operation of a workload.
func (st *state) observe(file string, line int, typ, ns string, cmd, entry bson.D, keys entryKeys) *Op {
	if ns == "" {
		st.rep.skip(skipNoNS, 1)
		return nil
	}
	op, reason := fromCommand(typ, ns, cmd)
	if reason != "" {
		st.rep.skip(reason, 1)
		return nil
	}
	op.File, op.Line = file, line
	op.App, _ = lookup(entry, "appName").(string)
	op.Metrics = Metrics{
		DurationMs:    metric(entry, keys.duration),
		MaxDurationMs: math.NaN(),
		DocsExamined:  metric(entry, "docsExamined"),
		KeysExamined:  metric(entry, "keysExamined"),
		NReturned:     metric(entry, "nreturned"),
		ResLen:        metric(entry, keys.resLen),
	}
	op.Metrics.Plan, _ = lookup(entry, "planSummary").(string)
	if op.Command == shapes.CmdInsert {
		if n, ok := number(lookup(entry, "ninserted")); ok && n >= 1 {
			op.InsertDocs = int(n)
		}
	}
	op.Redacted = hasRedacted(cmd, 0)
	return &op
}
