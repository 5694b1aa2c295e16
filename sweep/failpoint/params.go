package failpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Server parameters are the other thing poolsweep sets on a server and
// must undo (sweep --server-param). The Guard treats them as it treats a
// fail point: the original value is read with getParameter and recorded
// in the meta collection before the first change on each host, every
// later change is set over it, and the original is set back at the
// run's end, on an error or a signal (RestoreParams, from Close), or by
// a resumed run's Recover when the process that changed it was killed.

// ParamKind marks a meta record of a server parameter poolsweep changed.
const ParamKind = "serverparam"

// ParamRecord is a changed parameter's meta record: where, which, and
// the value to set back.
type ParamRecord struct {
	ID    string `bson:"_id"`
	Kind  string `bson:"kind"`
	Tool  string `bson:"tool"`
	RunID string `bson:"run_id"`
	Host  string `bson:"host"`
	Name  string `bson:"parameter"`
	// Original is {v: value} as getParameter answered it before the
	// first change, in its own BSON type.
	Original bson.Raw  `bson:"original"`
	SetAt    time.Time `bson:"set_at"`
	Process  string    `bson:"process"`
	Done     bool      `bson:"done"`
	DoneAt   time.Time `bson:"done_at,omitempty"`
	Outcome  string    `bson:"outcome,omitempty"`
}

// changed is a parameter the guard changed and has not set back.
type changed struct {
	id       string
	original bson.RawValue
}

func paramKey(host, name string) string { return host + "\x00" + name }

// GetParam reads one parameter on host with getParameter. A server that
// lacks it answers "no option found to get" (InvalidOptions), relayed.
func (g *Guard) GetParam(ctx context.Context, host, name string) (bson.RawValue, error) {
	client, err := g.hostClient(host)
	if err != nil {
		return bson.RawValue{}, err
	}
	return getParam(ctx, client, name)
}

func getParam(ctx context.Context, client *mongo.Client, name string) (bson.RawValue, error) {
	raw, err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: name, Value: 1}}).Raw()
	if err != nil {
		return bson.RawValue{}, err
	}
	v, err := raw.LookupErr(name)
	if err != nil {
		return bson.RawValue{}, fmt.Errorf("getParameter's reply has no %s", name)
	}
	return v, nil
}

func setParam(ctx context.Context, client *mongo.Client, name string, v bson.RawValue) error {
	return client.Database("admin").RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: name, Value: v}}).Err()
}

// SetParam sets parameter name to v on host and returns the value
// getParameter reads back after it. Before the first change of name on
// host it reads the original and records it in the meta collection: a
// run that dies after that leaves a record its --resume sets back, never
// a changed value without one.
func (g *Guard) SetParam(ctx context.Context, host, name string, v bson.RawValue) (bson.RawValue, error) {
	client, err := g.hostClient(host)
	if err != nil {
		return bson.RawValue{}, err
	}
	key := paramKey(host, name)
	g.mu.Lock()
	_, known := g.params[key]
	g.mu.Unlock()
	if !known {
		orig, err := getParam(ctx, client, name)
		if err != nil {
			return bson.RawValue{}, fmt.Errorf("getParameter %s on %s: %w", name, host, err)
		}
		raw, err := bson.Marshal(bson.D{{Key: "v", Value: orig}})
		if err != nil {
			return bson.RawValue{}, err
		}
		hostname, _ := os.Hostname()
		rec := ParamRecord{ID: ParamKind + ":" + bson.NewObjectID().Hex(), Kind: ParamKind, Tool: "poolsweep", RunID: g.runID,
			Host: host, Name: name, Original: raw, SetAt: time.Now().UTC(), Process: fmt.Sprintf("pid %d on %s", os.Getpid(), hostname)}
		if _, err := g.meta.InsertOne(ctx, rec); err != nil {
			return bson.RawValue{}, fmt.Errorf("record %s's original value in %s: %w", name, g.meta.Name(), err)
		}
		g.mu.Lock()
		g.params[key] = changed{id: rec.ID, original: orig}
		g.paramOrder = append(g.paramOrder, key)
		g.mu.Unlock()
	}
	if err := setParam(ctx, client, name, v); err != nil {
		if !known && refused(err) {
			// The server answered no to the first change: the original
			// is still in force, and there is nothing to set back.
			g.mu.Lock()
			c := g.params[key]
			delete(g.params, key)
			g.paramOrder = slices.DeleteFunc(g.paramOrder, func(k string) bool { return k == key })
			g.mu.Unlock()
			g.markParamDone(ctx, c.id, "refused: "+err.Error())
		}
		return bson.RawValue{}, fmt.Errorf("setParameter %s on %s: %w", name, host, err)
	}
	back, err := getParam(ctx, client, name)
	if err != nil {
		return bson.RawValue{}, fmt.Errorf("getParameter %s on %s after setting it: %w", name, host, err)
	}
	return back, nil
}

// ParamsChanged is how many parameters this guard changed and has not
// set back.
func (g *Guard) ParamsChanged() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.params)
}

// RestoreParams sets every parameter this guard changed back to its
// original and marks its record done, on a context of its own (bounded
// by OffTimeout: the run's may be cancelled by a signal). Its error
// names each value left, with the original it should have.
func (g *Guard) RestoreParams(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), OffTimeout)
	defer cancel()
	g.mu.Lock()
	keys := slices.Clone(g.paramOrder)
	g.mu.Unlock()
	var errs []error
	for _, key := range keys {
		g.mu.Lock()
		c, ok := g.params[key]
		g.mu.Unlock()
		if !ok {
			continue
		}
		host, name := splitKey(key)
		if err := g.restore(ctx, host, name, c.original); err != nil {
			errs = append(errs, err)
			continue
		}
		g.mu.Lock()
		delete(g.params, key)
		g.mu.Unlock()
		g.markParamDone(ctx, c.id, "set back to "+c.original.String())
	}
	return errors.Join(errs...)
}

func splitKey(key string) (host, name string) {
	for i := range len(key) {
		if key[i] == 0 {
			return key[:i], key[i+1:]
		}
	}
	return key, ""
}

// restore sets name back to original on host, and reads it back to know.
func (g *Guard) restore(ctx context.Context, host, name string, original bson.RawValue) error {
	left := func(err error) error {
		return fmt.Errorf("%s on %s may still differ from its original %s: %w", name, host, original.String(), err)
	}
	client, err := g.hostClient(host)
	if err != nil {
		return left(err)
	}
	if err := setParam(ctx, client, name, original); err != nil {
		return left(err)
	}
	back, err := getParam(ctx, client, name)
	if err != nil {
		return left(err)
	}
	if !back.Equal(original) {
		return fmt.Errorf("%s on %s reads %s after setting back its original %s", name, host, back.String(), original.String())
	}
	return nil
}

func (g *Guard) markParamDone(ctx context.Context, id, outcome string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), OffTimeout)
	defer cancel()
	_, _ = g.meta.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "kind", Value: ParamKind}, {Key: "run_id", Value: g.runID}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "done", Value: true}, {Key: "done_at", Value: time.Now().UTC()}, {Key: "outcome", Value: outcome}}}})
}

// recoverParams sets back the parameters an earlier process of this run
// changed and never set back (it was killed), from their records.
func (g *Guard) recoverParams(ctx context.Context) ([]string, error) {
	recs, err := PendingParams(ctx, g.meta, g.runID)
	if err != nil {
		return nil, err
	}
	var msgs []string
	var errs []error
	for _, r := range recs {
		orig, err := r.Original.LookupErr("v")
		if err != nil {
			errs = append(errs, fmt.Errorf("the record of %s on %s has no original value", r.Name, r.Host))
			continue
		}
		if err := g.restore(ctx, r.Host, r.Name, orig); err != nil {
			errs = append(errs, fmt.Errorf("changed by this run at %s (%s): %w", r.SetAt.Local().Format(time.DateTime), r.Process, err))
			continue
		}
		g.markParamDone(ctx, r.ID, "at --resume: set back to "+orig.String())
		msgs = append(msgs, fmt.Sprintf("%s on %s, changed by this run at %s (%s) and never set back: set back to %s",
			r.Name, r.Host, r.SetAt.Local().Format(time.DateTime), r.Process, orig.String()))
	}
	return msgs, errors.Join(errs...)
}

// PendingParams lists the parameter records of runID (every run's when
// runID is "") that are not done: values poolsweep changed and has not
// set back. It reads only records this package wrote.
func PendingParams(ctx context.Context, meta *mongo.Collection, runID string) ([]ParamRecord, error) {
	filter := bson.D{{Key: "kind", Value: ParamKind}, {Key: "done", Value: false}}
	if runID != "" {
		filter = append(filter, bson.E{Key: "run_id", Value: runID})
	}
	cur, err := meta.Find(ctx, filter)
	if err != nil {
		return nil, fmt.Errorf("read the server parameters recorded in %s: %w", meta.Name(), err)
	}
	var recs []ParamRecord
	if err := cur.All(ctx, &recs); err != nil {
		return nil, fmt.Errorf("read the server parameters recorded in %s: %w", meta.Name(), err)
	}
	out := recs[:0]
	for _, r := range recs {
		if r.Tool == "poolsweep" && len(r.ID) > len(ParamKind)+1 && r.ID[:len(ParamKind)+1] == ParamKind+":" {
			out = append(out, r)
		}
	}
	return out, nil
}
