package sim

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The top command: a mongod's time and count of operations per namespace,
// as mongotop reads it. What a real server books (mongodb/mongo
// src/mongo/db/stats/top.cpp, Top::_record): every operation on a
// namespace adds its elapsed time in microseconds and one to total, to
// readLock or writeLock by the lock it took, and to the entry of its kind
// (queries, getmore, insert, update, remove, commands). The simulator books
// what it serves: a data command on a standalone or a member, from its
// request being parsed to its reply being built (slot wait and service
// included, as opLatencies); a routed data op on its shard's server, from
// the router taking a connection to the shard's reply, as that server's
// opLatencies. Updates and deletes count one per statement, as the server
// records each statement; an insert command one per shard it reaches.

// topEntries are a namespace's entries, in the server's order.
var topEntries = []string{"total", "readLock", "writeLock", "queries", "getmore", "insert", "update", "remove", "commands"}

// topUsage is one entry: microseconds and operations.
type topUsage struct{ time, count int64 }

// topTable is one server's usage by namespace.
type topTable struct {
	mu    sync.Mutex
	usage map[string]*[9]topUsage
}

// topOf says which lock and which entry a data command books: the index in
// topEntries of its lock (1 read, 2 write) and of its kind, or ok false for
// a command top does not book here.
func topOf(command string) (lock, kind int, ok bool) {
	switch command {
	case "find":
		return 1, 3, true
	case "getMore":
		return 1, 4, true
	case "count", "aggregate", "distinct":
		return 1, 8, true
	case "findAndModify":
		return 2, 8, true
	case "insert":
		return 2, 5, true
	case "update":
		return 2, 6, true
	case "delete":
		return 2, 7, true
	}
	return 0, 0, false
}

// record books n operations of command on ns taking d in all.
func (t *topTable) record(ns, command string, n int, d time.Duration) {
	lock, kind, ok := topOf(command)
	if !ok || ns == "" || n <= 0 {
		return
	}
	us := d.Microseconds()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.usage == nil {
		t.usage = map[string]*[9]topUsage{}
	}
	u := t.usage[ns]
	if u == nil {
		u = new([9]topUsage)
		t.usage[ns] = u
	}
	for _, i := range []int{0, lock, kind} {
		u[i].time += us
		u[i].count += int64(n)
	}
}

// totals is top's totals document: the note, then each namespace in name
// order.
func (t *topTable) totals() bson.D {
	t.mu.Lock()
	defer t.mu.Unlock()
	names := make([]string, 0, len(t.usage))
	for ns := range t.usage {
		names = append(names, ns)
	}
	slices.Sort(names)
	d := bson.D{{Key: "note", Value: "all times in microseconds"}}
	for _, ns := range names {
		u := t.usage[ns]
		entry := make(bson.D, len(topEntries))
		for i, name := range topEntries {
			entry[i] = bson.E{Key: name, Value: bson.D{
				{Key: "time", Value: appendNumber(u[i].time)},
				{Key: "count", Value: appendNumber(u[i].count)},
			}}
		}
		d = append(d, bson.E{Key: ns, Value: entry})
	}
	return d
}

// appendNumber types a count as the server's BSONObjBuilder::appendNumber
// (long long) does: int32 where it fits, int64 past it (the current
// source). Older servers wrote a double between 2^30 and 2^40 instead
// (DataDog's captured top reply, version not recorded, has
// "time": 2635115240.0); which release changed it is not known here, so
// every version follows the current rule.
func appendNumber(n int64) any {
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		return int32(n)
	}
	return n
}

// cmdTop answers top on a mongod; a mongos has no such command (the
// handler is mongodOnly). top is an admin command: elsewhere it is refused
// as a real server refuses an admin-only command.
func cmdTop(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	if c.db != "admin" {
		return nil, &cmdError{Code: 13, Name: "Unauthorized", Msg: "top may only be run against the admin database."}
	}
	return bson.D{{Key: "totals", Value: f.tel.top.totals()}}, nil
}

// topNamespace is the namespace a data command names (getMore's in its
// collection field), "" for any other command.
func topNamespace(c *cmd) string {
	if _, _, ok := topOf(c.name); !ok {
		return ""
	}
	key := c.name
	if c.name == "getMore" {
		key = "collection"
	}
	coll, err := c.str(key)
	if err != nil || coll == "" {
		return ""
	}
	return c.db + "." + coll
}

// topStatements is how many operations a data command books: its
// statements for an update or a delete, one otherwise.
func topStatements(c *cmd) int {
	key := map[string]string{"update": "updates", "delete": "deletes"}[c.name]
	if key == "" {
		return 1
	}
	stmts, err := c.docs(key)
	if err != nil {
		return 1
	}
	return max(len(stmts), 1)
}
