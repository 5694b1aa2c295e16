package derive

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// d is an ordered document from key, value pairs: a command's first key
// names it, so order matters.
func d(kv ...any) bson.D {
	out := make(bson.D, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

// genShape is one shape of a generated log: its name, its true share and
// how it writes one operation's log lines.
type genShape struct {
	name  string
	share float64
	lines func(r *rand.Rand, conn int, at time.Time) []string
}

// logLine is one mongod structured log line (logv2, 4.4+), as MongoDB's
// "Log Messages" page documents it: t, s, c, id, ctx, msg, attr.
func logLine(at time.Time, c string, id int, ctx, msg string, attr bson.D) string {
	b, err := bson.MarshalExtJSON(attr, false, false)
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf(`{"t":{"$date":"%s"},"s":"I",  "c":"%s",  "id":%d,   "ctx":"%s","msg":"%s","attr":%s}`,
		at.Format("2006-01-02T15:04:05.000-07:00"), c, id, ctx, msg, b)
}

// slow is a "Slow query" line of a command, with the fields mongod logs.
func slow(at time.Time, conn int, typ, ns string, cmd bson.D, extra bson.D) string {
	attr := d("type", typ, "ns", ns, "appName", "shop-api", "command", cmd, "numYields", 0,
		"remote", fmt.Sprintf("10.0.0.%d:5%04d", conn%200, conn), "protocol", "op_msg")
	attr = append(attr, extra...)
	c := "COMMAND"
	if typ != "command" {
		c = "WRITE"
	}
	return logLine(at, c, 51803, fmt.Sprintf("conn%d", conn), "Slow query", attr)
}

// zipfDraw is rank k in [0, n) with P(k) ∝ 1/(k+1)^θ, by the inverse of
// the exact cumulative weights (the generator's own, not derive's fit).
func zipfDraw(r *rand.Rand, cum []float64) int {
	u := r.Float64() * cum[len(cum)-1]
	return sort.SearchFloat64s(cum, u)
}

func zipfCum(n int, theta float64) []float64 {
	cum := make([]float64, n)
	s := 0.0
	for i := range cum {
		s += math.Pow(float64(i+1), -theta)
		cum[i] = s
	}
	return cum
}

// truth is the known log of the proof: five shapes in known shares, with a
// uniform number, a zipfian string and an empirical string among their
// values.
type truth struct {
	statuses []string
	cum      []float64
	zipf     bool // false: statuses uniform (the negative control)
}

func newTruth(zipf bool) *truth {
	t := &truth{cum: zipfCum(50, 1.1), zipf: zipf}
	for i := range 50 {
		t.statuses = append(t.statuses, fmt.Sprintf("status-%02d", i))
	}
	return t
}

func (tr *truth) shapes() []genShape {
	lsid := func(r *rand.Rand) bson.D {
		var id [16]byte
		for i := range id {
			id[i] = byte(r.UintN(256))
		}
		return d("id", bson.Binary{Subtype: 4, Data: id[:]})
	}
	return []genShape{
		{"find app.users {age}", 0.40, func(r *rand.Rand, conn int, at time.Time) []string {
			n := int32(r.IntN(50))
			return []string{slow(at, conn, "command", "app.users", d("find", "users",
				"filter", d("age", d("$gte", int32(18+r.IntN(73)))), "projection", d("name", int32(1)),
				"limit", int32(50), "lsid", lsid(r), "$db", "app"), d("planSummary", "IXSCAN { age: 1 }",
				"keysExamined", n, "docsExamined", n, "nreturned", n, "reslen", 120+80*n, "durationMillis", int32(r.IntN(3))))}
		}},
		{"find app.orders {status} sort", 0.25, func(r *rand.Rand, conn int, at time.Time) []string {
			k := r.IntN(50)
			if tr.zipf {
				k = zipfDraw(r, tr.cum)
			}
			return []string{slow(at, conn, "command", "app.orders", d("find", "orders",
				"filter", d("status", tr.statuses[k]), "sort", d("createdAt", int32(-1)), "limit", int32(20),
				"lsid", lsid(r), "$db", "app"), d("planSummary", "IXSCAN { status: 1, createdAt: -1 }",
				"keysExamined", int32(20), "docsExamined", int32(20), "nreturned", int32(20), "reslen", int32(9000),
				"durationMillis", int32(1+r.IntN(4))))}
		}},
		{"update app.users {_id} $set $inc", 0.15, func(r *rand.Rand, conn int, at time.Time) []string {
			stmt := slow(at, conn, "update", "app.users", d(
				"q", d("_id", int32(1+r.IntN(100000))),
				"u", d("$set", d("lastSeen", bson.NewDateTimeFromTime(at)), "$inc", d("visits", int32(1))),
				"multi", false, "upsert", false),
				d("planSummary", "IDHACK", "keysExamined", int32(1), "docsExamined", int32(1), "nMatched", int32(1),
					"nModified", int32(1), "durationMillis", int32(r.IntN(2))))
			batch := slow(at, conn, "command", "app.$cmd", d("update", "users", "ordered", true,
				"lsid", lsid(r), "$db", "app"), d("reslen", int32(60), "durationMillis", int32(r.IntN(2))))
			return []string{stmt, batch}
		}},
		{"aggregate app.orders [$match $group]", 0.12, func(r *rand.Rand, conn int, at time.Time) []string {
			u := r.Float64()
			region := "eu"
			if u >= 0.6 {
				region = "us"
			}
			if u >= 0.9 {
				region = "apac"
			}
			return []string{slow(at, conn, "command", "app.orders", d("aggregate", "orders",
				"pipeline", bson.A{d("$match", d("region", region)), d("$group", d("_id", "$status", "n", d("$sum", int32(1))))},
				"cursor", d(), "lsid", lsid(r), "$db", "app"), d("planSummary", "COLLSCAN",
				"keysExamined", int32(0), "docsExamined", int32(20000), "nreturned", int32(50), "reslen", int32(2500),
				"durationMillis", int32(20+r.IntN(30))))}
		}},
		{"insert app.events", 0.08, func(r *rand.Rand, conn int, at time.Time) []string {
			return []string{slow(at, conn, "command", "app.events", d("insert", "events", "ordered", true,
				"lsid", lsid(r), "$db", "app"), d("ninserted", int32(10), "keysInserted", int32(20), "reslen", int32(45),
				"durationMillis", int32(1+r.IntN(3))))}
		}},
	}
}

// generate is a log of n operations of the shapes in their shares, logged
// at slowms 0 (the startup options say so), with server lines between.
func (tr *truth) generate(seed uint64, n int) (string, map[string]int) {
	r := rand.New(rand.NewPCG(seed, 7))
	shapes := tr.shapes()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var b strings.Builder
	b.WriteString(logLine(at, "CONTROL", 21951, "initandlisten", "Options set by command line", d(
		"options", d("net", d("port", int32(27017)), "operationProfiling", d("slowOpThresholdMs", int32(0)),
			"replication", d("replSet", "rs0")))) + "\n")
	counts := map[string]int{}
	for i := range n {
		at = at.Add(time.Duration(1+r.IntN(5)) * time.Millisecond)
		u, k := r.Float64(), 0
		for k < len(shapes)-1 && u >= shapes[k].share {
			u -= shapes[k].share
			k++
		}
		counts[shapes[k].name]++
		for _, l := range shapes[k].lines(r, 10+r.IntN(40), at) {
			b.WriteString(l + "\n")
		}
		if i%500 == 0 {
			b.WriteString(logLine(at, "NETWORK", 22943, "listener", "Connection accepted", d(
				"remote", "10.0.0.9:50000", "connectionId", int32(i), "connectionCount", int32(12))) + "\n")
		}
	}
	return b.String(), counts
}
