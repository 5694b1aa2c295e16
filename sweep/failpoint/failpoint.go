// Package failpoint sets what poolsweep changes on a server (the
// failCommand fail point, and server parameters: params.go), and makes
// sure that nothing it set outlives the run that set it.
//
// A fail point stays on in the server until someone switches it off:
// the server has no expiry for it, and a run that dies with one set
// leaves that server blocking or failing commands for whoever uses it
// next. So every fail point is recorded in poolsweep's own meta
// collection (workload.MetaCollection, in poolsweep's database) before
// it is set, and its record is marked done only once the server has
// answered that it is off. The run switches its fail points off when
// each event ends, at the run's end, on an error and on a signal (Guard.
// OffAll, with a context of its own since the run's has been cancelled
// by then); a run killed outright leaves its records unfinished, and
// resuming it switches them off before anything else (Guard.Recover).
//
// This package writes only records it creates (their _id begins with
// "failpoint:" or "serverparam:"), and never reads or changes another
// document of the meta collection.
package failpoint

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Name is the only fail point poolsweep sets.
const Name = "failCommand"

// Kind marks a meta record of a fail point.
const Kind = "failpoint"

// OffTimeout bounds switching a run's fail points off at its end, on an
// error or on a signal: long enough for a server that is slow to answer,
// short enough that a second Ctrl-C is not needed for a dead one.
const OffTimeout = 30 * time.Second

// Command is one failCommand setting: which commands it acts on, what it
// does to them, and whose commands (AppName) it acts on.
type Command struct {
	// FailCommands are the command names it acts on.
	FailCommands []string
	// BlockConnection holds each matching command's connection for
	// BlockTime before the command runs.
	BlockConnection bool
	BlockTime       time.Duration
	// ErrorCode, when not 0, fails each matching command with that code.
	ErrorCode int
	// CloseConnection closes the connection instead of answering.
	CloseConnection bool
	// AppName limits it to clients of that appName: the measured clients,
	// so that the server's other users, and this package's own client
	// that switches it off, are never held.
	AppName string
	// Times, when above 0, lets it act that many times and then turn
	// itself off; 0 leaves it on until switched off.
	Times int
}

// check says what is wrong with c, for the caller's error.
func (c Command) check() error {
	switch {
	case len(c.FailCommands) == 0:
		return errors.New("no command names to act on")
	case c.AppName == "":
		// Without it the fail point would act on every client of the
		// server, the server's other users among them.
		return errors.New("no appName to limit it to")
	case c.BlockTime < 0 || c.BlockTime.Milliseconds() > math.MaxInt32:
		return fmt.Errorf("blockTimeMS %d is out of range", c.BlockTime.Milliseconds())
	case c.BlockConnection && c.BlockTime < time.Millisecond:
		return errors.New("blockConnection without a blockTimeMS of at least 1")
	case c.ErrorCode < 0 || c.ErrorCode > math.MaxInt32 || c.Times < 0 || c.Times > math.MaxInt32:
		return errors.New("errorCode or times out of range")
	case !c.BlockConnection && c.ErrorCode == 0 && !c.CloseConnection:
		return errors.New("it neither blocks, fails nor closes")
	}
	return nil
}

// On is the configureFailPoint command that sets c, as real servers take
// it: {configureFailPoint, mode, data}.
func (c Command) On() bson.D {
	var mode any = "alwaysOn"
	if c.Times > 0 {
		mode = bson.D{{Key: "times", Value: int32(c.Times)}}
	}
	names := bson.A{}
	for _, n := range c.FailCommands {
		names = append(names, n)
	}
	data := bson.D{{Key: "failCommands", Value: names}, {Key: "appName", Value: c.AppName}}
	if c.BlockConnection {
		data = append(data, bson.E{Key: "blockConnection", Value: true}, bson.E{Key: "blockTimeMS", Value: int32(c.BlockTime.Milliseconds())})
	}
	if c.ErrorCode != 0 {
		data = append(data, bson.E{Key: "errorCode", Value: int32(c.ErrorCode)})
	}
	if c.CloseConnection {
		data = append(data, bson.E{Key: "closeConnection", Value: true})
	}
	return bson.D{{Key: "configureFailPoint", Value: Name}, {Key: "mode", Value: mode}, {Key: "data", Value: data}}
}

// off is the command that switches the fail point off.
func off() bson.D {
	return bson.D{{Key: "configureFailPoint", Value: Name}, {Key: "mode", Value: "off"}}
}

// Record is a fail point's meta record.
type Record struct {
	ID    string    `bson:"_id"`
	Kind  string    `bson:"kind"`
	Tool  string    `bson:"tool"`
	RunID string    `bson:"run_id"`
	Host  string    `bson:"host"` // host:port the fail point is set on
	Name  string    `bson:"fail_point"`
	On    bson.Raw  `bson:"command"` // the configureFailPoint command as sent
	SetAt time.Time `bson:"set_at"`
	// Process names the process that set it, for the message of a run
	// that finds it.
	Process string `bson:"process"`
	// Done is set once the server answered that the fail point is off
	// (or that it never was), with when and how.
	Done    bool      `bson:"done"`
	DoneAt  time.Time `bson:"done_at,omitempty"`
	Outcome string    `bson:"outcome,omitempty"`
}

// recordID names a fail point's record: the prefix keeps it apart from
// the meta collection's other documents.
func recordID() string { return Kind + ":" + bson.NewObjectID().Hex() }

// HostClient builds driver options for a client of host alone, from the
// target's own (its credentials and TLS).
type HostClient func(host string) *options.ClientOptions

// DirectTo is the usual HostClient: the target's options, connected to
// host directly, with an appName of its own so that a fail point limited
// to the measured clients' appName never holds it.
func DirectTo(newClient func() *options.ClientOptions) HostClient {
	return func(host string) *options.ClientOptions {
		return newClient().SetHosts([]string{host}).SetDirect(true).SetAppName("poolsweep-failpoint").
			SetMaxPoolSize(2).SetServerSelectionTimeout(10 * time.Second)
	}
}

// Guard sets fail points for one run on one target and switches them off.
// Its methods may be called from several goroutines.
type Guard struct {
	meta   *mongo.Collection // the meta collection in poolsweep's database
	runID  string
	client HostClient

	mu      sync.Mutex
	clients map[string]*mongo.Client // per host, connected on first use
	on      map[string]string        // record id → host: set and not yet off
	timers  map[string]*time.Timer   // record id → its scheduled switch-off
	// params are the server parameters changed and not set back, by
	// host and name (params.go), in the order first changed.
	params     map[string]changed
	paramOrder []string
}

// NewGuard is a Guard recording in meta (poolsweep's own meta
// collection) under runID, reaching each host through client.
func NewGuard(meta *mongo.Collection, runID string, client HostClient) *Guard {
	return &Guard{meta: meta, runID: runID, client: client, clients: map[string]*mongo.Client{}, on: map[string]string{}, timers: map[string]*time.Timer{}, params: map[string]changed{}}
}

// hostClient is the guard's client of host.
func (g *Guard) hostClient(host string) (*mongo.Client, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c, ok := g.clients[host]; ok {
		return c, nil
	}
	c, err := mongo.Connect(g.client(host))
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", host, err)
	}
	g.clients[host] = c
	return c, nil
}

// Set records c for host in the meta collection, then sets it on host.
// It returns the record's id, which Off takes. A server that refuses the
// command leaves nothing on, and its record is marked done; a command
// whose answer never came may have been applied, so its record stays
// unfinished and OffAll (or a resumed run's Recover) switches it off.
func (g *Guard) Set(ctx context.Context, host string, c Command) (string, error) {
	if err := c.check(); err != nil {
		return "", fmt.Errorf("%s on %s: %w", Name, host, err)
	}
	on := c.On()
	raw, err := bson.Marshal(on)
	if err != nil {
		return "", err
	}
	hostname, _ := os.Hostname()
	rec := Record{ID: recordID(), Kind: Kind, Tool: "poolsweep", RunID: g.runID, Host: host, Name: Name, On: raw,
		SetAt: time.Now().UTC(), Process: fmt.Sprintf("pid %d on %s", os.Getpid(), hostname)}
	// The record first: a run that dies between the two leaves a record
	// of a fail point that may be on, never a fail point without one.
	if _, err := g.meta.InsertOne(ctx, rec); err != nil {
		return "", fmt.Errorf("record the %s fail point in %s: %w", Name, g.meta.Name(), err)
	}
	client, err := g.hostClient(host)
	if err != nil {
		g.markDone(ctx, rec.ID, "not sent: "+err.Error())
		return rec.ID, fmt.Errorf("set the %s fail point on %s: %w", Name, host, err)
	}
	g.mu.Lock()
	g.on[rec.ID] = host
	g.mu.Unlock()
	if err := client.Database("admin").RunCommand(ctx, on).Err(); err != nil {
		if refused(err) {
			// The server answered with an error: nothing was set.
			g.forget(rec.ID)
			g.markDone(ctx, rec.ID, "refused: "+err.Error())
		}
		return rec.ID, fmt.Errorf("set the %s fail point on %s: %w", Name, host, err)
	}
	return rec.ID, nil
}

// refused says the server answered err, so a command it refused did not
// take effect; a network error or a timeout says nothing about that.
func refused(err error) bool {
	var ce mongo.CommandError
	return errors.As(err, &ce) && !ce.HasErrorLabel("NetworkError") && !mongo.IsTimeout(err) && !mongo.IsNetworkError(err)
}

// OffAfter switches the fail point of id off after d, on a context of its
// own (bounded by OffTimeout); OffAll cancels the wait and switches it off
// at once. Its error, if any, leaves the record unfinished for OffAll or
// Recover; done, when not nil, is told how the switch-off went.
func (g *Guard) OffAfter(id string, d time.Duration, done func(error)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.timers[id] = time.AfterFunc(d, func() {
		ctx, cancel := context.WithTimeout(context.Background(), OffTimeout)
		defer cancel()
		err := g.Off(ctx, id)
		if done != nil {
			done(err)
		}
	})
}

// Off switches the fail point of id off and marks its record done. An
// id already off is not sent again.
func (g *Guard) Off(ctx context.Context, id string) error {
	g.mu.Lock()
	host, ok := g.on[id]
	g.mu.Unlock()
	if !ok {
		return nil
	}
	outcome, err := g.switchOff(ctx, host)
	if err != nil {
		return err
	}
	g.forget(id)
	g.markDone(ctx, id, outcome)
	return nil
}

// switchOff sends the switch-off to host, and says how it went.
func (g *Guard) switchOff(ctx context.Context, host string) (string, error) {
	client, err := g.hostClient(host)
	if err != nil {
		return "", fmt.Errorf("switch the %s fail point off on %s: %w", Name, host, err)
	}
	err = client.Database("admin").RunCommand(ctx, off()).Err()
	var ce mongo.CommandError
	switch {
	case err == nil:
		return "switched off", nil
	case errors.As(err, &ce) && ce.Code == codeCommandNotFound:
		// A server without test commands (or one restarted without
		// them) has no fail point to switch off.
		return "the server has no configureFailPoint command (test commands off): nothing was on", nil
	}
	return "", fmt.Errorf("switch the %s fail point off on %s: %w", Name, host, err)
}

// codeCommandNotFound is what real servers answer for a command they do
// not have (CommandNotFound), configureFailPoint without test commands.
const codeCommandNotFound = 59

// forget drops id from the fail points on, and its timer.
func (g *Guard) forget(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.on, id)
	if t, ok := g.timers[id]; ok {
		t.Stop()
		delete(g.timers, id)
	}
}

// markDone marks the record of id done. The switch-off is what matters:
// a record left unfinished by a failed write is switched off again, to
// no harm, by a resumed run.
func (g *Guard) markDone(ctx context.Context, id, outcome string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), OffTimeout)
	defer cancel()
	_, _ = g.meta.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "kind", Value: Kind}, {Key: "run_id", Value: g.runID}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "done", Value: true}, {Key: "done_at", Value: time.Now().UTC()}, {Key: "outcome", Value: outcome}}}})
}

// On is how many fail points this guard has set and not switched off.
func (g *Guard) On() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.on)
}

// OffAll switches off every fail point this guard set that is still on,
// at the run's end, on an error or on a signal. It runs on a context of
// its own, bounded by OffTimeout and detached from ctx: the run's
// context is cancelled by then, and a cancelled switch-off would leave
// the server blocking. It returns the hosts it could not reach, joined.
func (g *Guard) OffAll(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), OffTimeout)
	defer cancel()
	g.mu.Lock()
	ids := make([]string, 0, len(g.on))
	for id := range g.on {
		ids = append(ids, id)
	}
	for _, t := range g.timers {
		t.Stop()
	}
	g.mu.Unlock()
	var errs []error
	for _, id := range ids {
		if err := g.Off(ctx, id); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Close switches everything off (OffAll), sets every server parameter
// it changed back (RestoreParams) and disconnects the guard's clients.
func (g *Guard) Close(ctx context.Context) error {
	err := errors.Join(g.OffAll(ctx), g.RestoreParams(ctx))
	g.mu.Lock()
	clients := g.clients
	g.clients = map[string]*mongo.Client{}
	g.mu.Unlock()
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for _, c := range clients {
		_ = c.Disconnect(dctx)
	}
	return err
}

// Recover switches off the fail points, and sets back the server
// parameters, that an earlier process of this run recorded and never
// marked done (it was killed, or could not reach the
// server at its end), and marks their records done. It is what a resumed
// run does before anything else; it returns one line per record, saying
// what it did, and an error for each fail point it could not switch off
// (the run must not go on measuring a server that may still block).
func (g *Guard) Recover(ctx context.Context) ([]string, error) {
	cur, err := g.meta.Find(ctx, bson.D{{Key: "kind", Value: Kind}, {Key: "run_id", Value: g.runID}, {Key: "done", Value: false}})
	if err != nil {
		return nil, fmt.Errorf("read the fail points recorded in %s: %w", g.meta.Name(), err)
	}
	var recs []Record
	if err := cur.All(ctx, &recs); err != nil {
		return nil, fmt.Errorf("read the fail points recorded in %s: %w", g.meta.Name(), err)
	}
	var msgs []string
	var errs []error
	for _, r := range recs {
		if r.Tool != "poolsweep" || len(r.ID) <= len(Kind)+1 || r.ID[:len(Kind)+1] != Kind+":" {
			continue // not a record this package wrote
		}
		outcome, err := g.switchOff(ctx, r.Host)
		if err != nil {
			errs = append(errs, fmt.Errorf("a %s fail point set by this run at %s (%s) may still be on: %w", Name,
				r.SetAt.Local().Format(time.DateTime), r.Process, err))
			continue
		}
		g.markDone(ctx, r.ID, "at --resume: "+outcome)
		msgs = append(msgs, fmt.Sprintf("the %s fail point this run set on %s at %s (%s) and never switched off: %s",
			Name, r.Host, r.SetAt.Local().Format(time.DateTime), r.Process, outcome))
	}
	pmsgs, err := g.recoverParams(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	return append(msgs, pmsgs...), errors.Join(errs...)
}
