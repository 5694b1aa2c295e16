package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Cursors: what is left of a query's results after its first batch, and
// the getMore and killCursors commands that read and drop it.

// cursorTable holds open cursors of one listening server: the rest of a
// query's results, already computed. Results are materialised at find time,
// so getMore costs one data op on a standalone (its slot and service time)
// and only the router step on a router, where the merged cursor lives.
type cursorTable struct {
	mu      sync.Mutex
	cursors map[int64]*cursor
}

type cursor struct {
	ns   string
	docs []bsoncore.Document
	used time.Time
}

// maxCursors bounds the table; past it the least recently used cursor is
// dropped (its next getMore gets CursorNotFound), like mongod's idle cursor
// timeout but by count.
const maxCursors = 10000

func newCursorTable() *cursorTable { return &cursorTable{cursors: map[int64]*cursor{}} }

func (t *cursorTable) add(ns string, docs []bsoncore.Document) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.cursors) >= maxCursors {
		var oldest int64
		var at time.Time
		for id, c := range t.cursors {
			if oldest == 0 || c.used.Before(at) {
				oldest, at = id, c.used
			}
		}
		delete(t.cursors, oldest)
	}
	for {
		id := rand.Int64N(1<<62) + 1
		if _, taken := t.cursors[id]; !taken {
			t.cursors[id] = &cursor{ns: ns, docs: docs, used: time.Now()}
			return id
		}
	}
}

// next takes up to n documents; the cursor is removed when exhausted.
func (t *cursorTable) next(id int64, ns string, n int) ([]bsoncore.Document, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.cursors[id]
	if !ok || c.ns != ns {
		return nil, false, &cmdError{Code: 43, Name: "CursorNotFound", Msg: fmt.Sprintf("cursor id %d not found", id)}
	}
	batch, rest := splitBatch(c.docs, n)
	c.docs, c.used = rest, time.Now()
	if len(rest) == 0 {
		delete(t.cursors, id)
		return batch, false, nil
	}
	return batch, true, nil
}

func (t *cursorTable) kill(id int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.cursors[id]
	delete(t.cursors, id)
	return ok
}

func cmdGetMore(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	id, ok := c.body.Lookup("getMore").Int64OK()
	if !ok {
		return nil, errTypeMismatch("getMore must be an int64 cursor id")
	}
	coll, err := c.str("collection")
	if err != nil {
		return nil, err
	}
	n, has, err := c.int("batchSize")
	if err != nil {
		return nil, err
	}
	if !has || n <= 0 {
		n = 1 << 30
	}
	if f.router {
		err = f.routerStep(ctx, kindRead)
	} else {
		err = f.onShard(ctx, 0, kindRead, func(*store) {})
	}
	if err != nil {
		return nil, err
	}
	ns := c.db + "." + coll
	batch, more, err := f.cursors.next(id, ns, int(n))
	if err != nil {
		return nil, err
	}
	if !more {
		id = 0
	}
	return cursorReply("nextBatch", ns, id, batch), nil
}

func cmdKillCursors(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	arr, ok := c.body.Lookup("cursors").ArrayOK()
	if !ok {
		return nil, errTypeMismatch("killCursors.cursors must be an array")
	}
	vals, _ := arr.Values()
	killed, notFound := bson.A{}, bson.A{}
	for _, v := range vals {
		id, ok := v.Int64OK()
		if !ok {
			return nil, errTypeMismatch("cursor ids must be int64")
		}
		if f.cursors.kill(id) {
			killed = append(killed, id)
		} else {
			notFound = append(notFound, id)
		}
	}
	return bson.D{
		{Key: "cursorsKilled", Value: killed},
		{Key: "cursorsNotFound", Value: notFound},
		{Key: "cursorsAlive", Value: bson.A{}},
		{Key: "cursorsUnknown", Value: bson.A{}},
	}, nil
}
