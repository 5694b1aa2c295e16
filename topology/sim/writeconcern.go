package sim

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Write concern on a replica set: a write is acknowledged once w members
// (the primary included) have applied it — w:1 when the primary has,
// w:"majority" when a majority has — or with a writeConcernError when
// wtimeout passes first. j is accepted and changes nothing: the simulator's
// members apply and persist in one step. A standalone and a sharded
// deployment ignore writeConcern, as before.

// writeConcern is what a write asked for. members is w as a count; 0 is an
// unacknowledged write.
type writeConcern struct {
	members  int
	majority bool
	wtimeout time.Duration
	given    bson.Raw // as the client sent it, for errInfo
}

// parseWriteConcern reads a write's writeConcern. Without one the server's
// default applies: w:1 before 5.0, w:"majority" from 5.0 (the implicit
// default for a set without arbiters).
func parseWriteConcern(c *cmd, v serverVersion, rs *replSet) (writeConcern, error) {
	wc := writeConcern{members: 1}
	if v.majorityDefault {
		wc = writeConcern{members: rs.majority(), majority: true}
	}
	d, err := c.doc("writeConcern")
	if err != nil || d == nil {
		return wc, err
	}
	wc.given = bson.Raw(d)
	if w, err := d.LookupErr("w"); err == nil {
		switch {
		case w.Type == bsoncore.TypeString:
			if w.StringValue() != "majority" {
				return wc, &cmdError{Code: 79, Name: "UnknownReplWriteConcern",
					Msg: fmt.Sprintf("No write concern mode named '%s' found in replica set configuration", w.StringValue())}
			}
			wc.members, wc.majority = rs.majority(), true
		default:
			n, ok := w.AsInt64OK()
			if !ok || n < 0 {
				return wc, &cmdError{Code: 9, Name: "FailedToParse", Msg: "w has to be a non-negative number or a string, not " + w.String()}
			}
			wc.members, wc.majority = int(n), false
		}
	}
	if t, err := d.LookupErr("wtimeout"); err == nil {
		ms, ok := t.AsInt64OK()
		if !ok || ms < 0 {
			return wc, &cmdError{Code: 9, Name: "FailedToParse", Msg: "wtimeout must be a non-negative number"}
		}
		wc.wtimeout = time.Duration(ms) * time.Millisecond
	}
	return wc, nil
}

// writeTracker follows one write command on a primary: the term it started
// in, the concern it asked for, and the newest entry it logged.
type writeTracker struct {
	term    int64
	concern writeConcern
	mu      sync.Mutex
	last    *oplogEntry
}

func (w *writeTracker) logged(e *oplogEntry) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last == nil || e.op.after(w.last.op) {
		w.last = e
	}
}

type writeKey struct{}

// writeOf returns the write command under way on ctx, or nil.
func writeOf(ctx context.Context) *writeTracker {
	w, _ := ctx.Value(writeKey{}).(*writeTracker)
	return w
}

// beginWrite admits a write command on m: only the primary takes writes
// (else NotWritablePrimary, as a secondary or a primary that stepped down
// answers). The returned context carries the write's tracker.
func (m *member) beginWrite(ctx context.Context, c *cmd) (context.Context, *writeTracker, error) {
	v := m.rs.d.version
	wc, err := parseWriteConcern(c, v, m.rs)
	if err != nil {
		return ctx, nil, err
	}
	view := m.rs.view()
	if view.primary != m.index {
		return ctx, nil, errNotWritablePrimary(v)
	}
	w := &writeTracker{term: view.term, concern: wc}
	return context.WithValue(ctx, writeKey{}, w), w, nil
}

// endWrite waits until the write is acknowledged as its concern asks and
// returns its reply, with a writeConcernError when the concern cannot be
// met (more members than the set has: UnsatisfiableWriteConcern) or wtimeout
// passed first (WriteConcernFailed, errInfo.wtimeout). A write that changed
// nothing waits for the newest entry the set had, as a real primary makes a
// no-op write wait for its last optime.
func (m *member) endWrite(ctx context.Context, w *writeTracker, reply bson.D) (bson.D, error) {
	wc := w.concern
	if wc.members == 0 {
		return reply, nil
	}
	w.mu.Lock()
	e := w.last
	w.mu.Unlock()
	if e == nil {
		e = m.rs.view().last
	}
	ack, ok := e.ackedBy(wc.members)
	if !ok {
		return append(reply, bson.E{Key: "writeConcernError", Value: bson.D{
			{Key: "code", Value: int32(100)},
			{Key: "codeName", Value: "UnsatisfiableWriteConcern"},
			{Key: "errmsg", Value: "Not enough data-bearing nodes"},
		}}), nil
	}
	sleeper := m.rs.d.sleeper
	if wc.wtimeout > 0 && time.Until(ack) > wc.wtimeout {
		if err := sleeper.until(ctx, time.Now().Add(wc.wtimeout)); err != nil {
			return nil, err
		}
		return append(reply, bson.E{Key: "writeConcernError", Value: wtimeoutError(wc)}), nil
	}
	if err := sleeper.until(ctx, ack); err != nil {
		return nil, err
	}
	return reply, nil
}

// wtimeoutError is the writeConcernError of a write whose wtimeout passed:
// code 64 with errInfo {wtimeout: true, writeConcern}. The codeName is
// WriteConcernFailed, as 4.x–6.x servers name code 64 (newer ones may call
// it WriteConcernTimeout; not modeled).
func wtimeoutError(wc writeConcern) bson.D {
	info := bson.D{{Key: "wtimeout", Value: true}}
	if wc.given != nil {
		info = append(info, bson.E{Key: "writeConcern", Value: wc.given})
	}
	return bson.D{
		{Key: "code", Value: int32(64)},
		{Key: "codeName", Value: "WriteConcernFailed"},
		{Key: "errmsg", Value: "waiting for replication timed out"},
		{Key: "errInfo", Value: info},
	}
}
