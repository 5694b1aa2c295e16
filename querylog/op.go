package querylog

import (
	"math"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/mongoname"
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
	// InsertLogged is what an insert's line holds of its documents:
	// insertWhole, insertCount or insertNone.
	InsertLogged string

	Metrics Metrics

	// End is when the operation ended as its input says: a log line's
	// time or a profile document's ts (each written as the operation
	// finishes); zero where the input has no time
	// ($queryStats) or its time cannot be read.
	End time.Time
	// SampleRate is the slowOpSampleRate a log line was written at, where
	// the log says it (its startup or profiler-settings lines); 0 where
	// it does not, and for a profile or $queryStats.
	SampleRate float64
}

// Start is when the operation arrived at the server: End less its
// duration (End itself where the duration is not known; zero without
// End).
func (o *Op) Start() time.Time {
	if o.End.IsZero() || math.IsNaN(o.Metrics.DurationMs) || o.Metrics.DurationMs < 0 {
		return o.End
	}
	return o.End.Add(-time.Duration(o.Metrics.DurationMs * float64(time.Millisecond)))
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

// Kinds of entries left out: the keys Report.Skipped counts them by (and
// a workload file's source.left_out); LeftOutWords says each in words.
const (
	skipGetMore    = "getmore"
	skipBatch      = "write-batch"
	skipOther      = "server-command"
	skipInternal   = "internal-namespace"
	skipThread     = "server-thread"
	skipTool       = "tool"
	skipStats      = "statistics"
	skipTruncated  = "truncated"
	skipApp        = "other-app"
	skipNoNS       = "no-namespace"
	skipDBCommand  = "database-aggregation"
	skipProfile    = "profiler-entry"
	skipChangeStrm = "change-stream"
	skipUnfit      = "unfit"
	skipOverflow   = "execcount-overflow"
)

var skipWords = map[string]string{
	skipGetMore:    "getMore (the rest of a find's or aggregate's results, not a new operation)",
	skipBatch:      "update/delete batch lines (their statements are read from their own lines)",
	skipOther:      "commands that are not a workload's (hello, serverStatus, collStats, index builds, …)",
	skipInternal:   "operations on internal namespaces (admin, config, local, system.* collections)",
	skipThread:     "operations of the server's own threads and members (LogicalSessionCacheRefresh, TTLMonitor, OplogFetcher, …)",
	skipTool:       "operations of monitoring, backup and GUI tools (MongoDB Compass, the Automation and Monitoring agents, mongodump, …)",
	skipStats:      "statistics aggregations ($collStats, $indexStats, $planCacheStats, …)",
	skipTruncated:  "operations whose command mongod cut in its log at maxLogSizeKB (a replay would send the cut command; raise maxLogSizeKB to keep them)",
	skipApp:        "operations of other appNames than --app",
	skipNoNS:       "entries without a namespace",
	skipDBCommand:  "database-level aggregations ($currentOp, $documents, …)",
	skipProfile:    "profiler entries that are not operations",
	skipChangeStrm: "change streams",
	skipUnfit:      "operations a workload file cannot hold (names MongoDB refuses, nesting deeper than the format, text that is not UTF-8; each a warning)",
	skipOverflow:   "$queryStats entries whose execCount would take the count of operations past 2^53",
}

// LeftOutWords is a kind of Report.Skipped in words.
func LeftOutWords(kind string) string {
	if w, ok := skipWords[kind]; ok {
		return w
	}
	return kind
}

// OwnWork says whether entries of a kind of Report.Skipped are the
// server's own or its tools' work rather than the application's.
func OwnWork(kind string) bool {
	switch kind {
	case skipInternal, skipThread, skipTool, skipStats:
		return true
	}
	return false
}

// internalNS says whether a namespace is the server's own: its admin,
// config and local databases, and system.* collections anywhere
// (system.profile, system.js, a time-series collection's buckets, whose
// writes are the server's translation of the application's inserts).
func internalNS(db, coll string) bool {
	return mongoname.SystemDatabase(db) || mongoname.SystemCollection(coll)
}

// clientConn says whether a log line's ctx is a client's connection
// ("conn" and its number). Every other ctx is one of the server's own
// threads: LogicalSessionCacheRefresh, TTLMonitor, ReplWriterWorker-3,
// IndexBuildsCoordinatorMongod-0, monitoring-keys-for-HMAC, ….
func clientConn(ctx string) bool {
	n, ok := strings.CutPrefix(ctx, "conn")
	if !ok || n == "" {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// serverApps are appNames the server gives its own clients: a member
// fetching another's oplog connects as a client, but its work is
// replication, not the application's.
var serverApps = []string{"OplogFetcher", "MongoDB Internal Client"}

// toolApps begin the appNames of monitoring, backup, search and GUI
// tools: what they run is their statistics and browsing, not the
// application's workload.
var toolApps = []string{
	// The Automation, Monitoring and Backup agents (and modules) of Ops
	// Manager, Cloud Manager and Atlas name themselves with a version.
	"MongoDB Compass", "MongoDB Automation", "MongoDB Monitoring", "MongoDB Backup",
	"MongoDB CPS Module", "MongoDB Agent", "mongot", "mongodump", "mongorestore", "mongoexport", "mongoimport",
	"mongostat", "mongotop", "mongofiles", "mongosync", "Studio 3T", "NoSQLBooster", "Robo 3T", "robo3t",
	"mongodb_exporter", "percona-backup-mongodb", "pbm-agent", "Datadog Agent", "DataGrip",
}

// ownApp is the kind an appName's work is left out as (skipThread or
// skipTool), or "" for an application.
func ownApp(app string) string {
	for _, p := range serverApps {
		if app == p {
			return skipThread
		}
	}
	for _, p := range toolApps {
		if len(app) >= len(p) && strings.EqualFold(app[:len(p)], p) {
			return skipTool
		}
	}
	return ""
}

// statsStages are the aggregation stages that report on the server
// (its collections' and indexes' statistics, its plan cache, operations
// and sessions) rather than read the application's documents: a
// pipeline that begins with one is a tool's, whatever follows it.
var statsStages = map[string]bool{
	"$collStats": true, "$indexStats": true, "$planCacheStats": true, "$currentOp": true,
	"$listSessions": true, "$listLocalSessions": true, "$listCatalog": true, "$listClusterCatalog": true,
	"$listSearchIndexes": true, "$queryStats": true, "$querySettings": true, "$shardedDataDistribution": true,
	"$listSampledQueries": true, "$operationMetrics": true,
}

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
		return op, op.internal()
	case "remove", "delete":
		op.Command = shapes.CmdDelete
		op.Filter = doc(cmd, "q")
		if n, ok := number(lookup(cmd, "limit")); ok && n == 0 {
			op.Multi = true
		}
		return op, op.internal()
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
	case "$truncated":
		// The profiler replaces a command over its size limit with
		// {$truncated: "<its text, cut>"}: no shape can be read from it.
		if reason := op.internal(); reason != "" {
			return op, reason
		}
		return op, skipTruncated
	case "getMore", "getmore", "killCursors":
		return op, skipGetMore
	default:
		return op, skipOther
	}
	return op, op.internal()
}

// internal is skipInternal when the op's namespace is the server's own.
func (op *Op) internal() string {
	if internalNS(op.Database, op.Collection) {
		return skipInternal
	}
	return ""
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
	if len(op.Pipeline) > 0 && len(op.Pipeline[0]) > 0 {
		switch first := op.Pipeline[0][0].Key; {
		case first == "$changeStream":
			return skipChangeStrm
		case statsStages[first]:
			return skipStats
		}
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

// What an insert's entry holds of the documents it inserted. Whether the
// command in the log holds them depends on how the client sent them, not
// on the server's version: a driver's OP_MSG document sequence is left
// out of the logged command (only ninserted counts them), while documents
// sent in the command's body are logged whole.
const (
	insertWhole = "documents"
	insertCount = "count"
	insertNone  = "none"
)

// observe is the op of one entry (a slow-query line's attributes, or a
// profile document): its command's op, with what the entry measured of
// it; nil, counted as skipped, when it is no operation of a workload.
// ctx is a log line's context ("" for a profile document): a client's
// connection, or one of the server's own threads.
func (st *state) observe(file string, line int, ctx, typ, ns string, cmd, entry bson.D, keys entryKeys) *Op {
	if ns == "" {
		st.rep.skip(skipNoNS, 1)
		return nil
	}
	if ctx != "" && !clientConn(ctx) {
		st.rep.skip(skipThread, 1)
		return nil
	}
	app, _ := lookup(entry, "appName").(string)
	// --app naming a tool asks for its operations: keep them.
	if kind := ownApp(app); kind != "" && (st.opt.App == "" || app != st.opt.App) {
		st.rep.skip(kind, 1)
		return nil
	}
	op, reason := fromCommand(typ, ns, cmd)
	if reason != "" {
		st.rep.skip(reason, 1)
		return nil
	}
	op.File, op.Line = file, line
	op.App = app
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
		op.InsertLogged = insertNone
		switch v := lookup(cmd, "documents").(type) {
		case bson.A:
			op.InsertLogged = insertWhole
		case nil:
		default:
			if _, ok := number(v); ok {
				op.InsertLogged = insertCount
			}
		}
	}
	op.Redacted = hasRedacted(cmd, 0)
	return &op
}
