package sweep

import (
	"context"
	"errors"
	"fmt"
	"github.com/poolsweep/poolsweep/sweep/failpoint"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/topology"
)

// Events under load (--event): an action fired into a profile step at a
// set time into its profile. An EventPerformer performs one way of
// doing the actions it knows; CheckEvents, before any load, finds one
// that will perform each event on each target, and the profile step
// (runProfile) fires them on a goroutine of its own, never on the
// worker's path.

// SimEventCommand is the simulator's administrative command that
// performs its actions: {poolsweepSimEvent: ACTION, factor, durationMS},
// sent to the admin database of the host it acts on (the simulator's
// own command). No real server has it. Its reply's endsAt is when
// the action is over (a router's restart time is the simulator's own).
const SimEventCommand = "poolsweepSimEvent"

// simActions are the simulator's words for the actions it performs.
var simActions = map[string]string{results.EventSlow: "slow", results.EventFreeze: "freeze", results.EventReset: "reset", results.EventRouterRestart: "routerRestart"}

// maxMemberFreeze is the longest freeze a replica-set member takes: a real
// primary silent for longer than electionTimeoutMillis (10 s by default)
// is replaced by an election, which the simulator does not model.
const maxMemberFreeze = 10 * time.Second

// EventTarget is a target as an event sees it: what was detected of it,
// and its client options (the real URI stays inside them).
type EventTarget struct {
	Header    results.TargetHeader
	NewClient ClientFactory
	// Primary is the replica set's primary as the step's clients see it
	// ("" when none is known, or before a step).
	Primary string
	// FailPoints sets and switches off the target's fail points (nil: no
	// fail point is set on it).
	FailPoints *failpoint.Guard
	// ServiceTime is the step's mean call latency so far, for a slowdown
	// by a fail point, which holds each command (factor − 1) × it; nil
	// before a step.
	ServiceTime func() time.Duration
}

// Fired is what an EventPerformer did: the host it acted on, and how
// long the trigger lasts from now when the performer knows it (0: it is
// over at once, or the step finds its end, as for a step-down).
type Fired struct {
	Host string
	For  time.Duration
}

// An EventPerformer performs events one way (results.EventVia*).
type EventPerformer interface {
	// Via is how it performs them, as StepEvent.Via records it.
	Via() string
	// Performs says whether it knows action at all.
	Performs(action string) bool
	// Check says why it cannot perform ev on t (nil: it can). It may
	// ask the target (a privilege, a parameter); it runs once the
	// targets answer, before anything is loaded.
	Check(ctx context.Context, t EventTarget, ev results.EventSpec) error
	// Fire performs ev on t now. It returns once the action is in effect
	// (the server answered), never waiting out the action's length.
	Fire(ctx context.Context, t EventTarget, ev results.EventSpec) (Fired, error)
}

// An EventEnder is an EventPerformer whose actions the server does not
// end by itself (a fail point stays set until it is switched off): the
// step calls End once the action's length (Fired.For) has passed, or as
// the step ends if that comes first. Whatever must not outlive the run
// on every other exit path (an error, a signal, a crash) is the
// performer's own to guard.
type EventEnder interface {
	End(ctx context.Context, t EventTarget, ev results.EventSpec, fired Fired) error
}

// eventPerformers are the ways this build performs events, in the order
// they are tried: the first that performs an action and whose Check
// passes is used for it. A way that needs the server's test commands
// (the failCommand fail point, for slow and freeze on a real server)
// goes after the simulator's, which refuses every real server.
func eventPerformers() []EventPerformer {
	return []EventPerformer{simPerformer{}, stepDownPerformer{}, failPointPerformer{}}
}

// CheckEvents finds, for every event, a performer that will perform it on
// t; the error (a refusal of the user's input, one line) names the event
// and why each way that knows its action refused.
func CheckEvents(ctx context.Context, t EventTarget, evs []results.EventSpec) error {
	for _, ev := range evs {
		if _, err := performerFor(ctx, t, ev); err != nil {
			return err
		}
	}
	return nil
}

// performerFor is the performer of ev on t (CheckEvents).
func performerFor(ctx context.Context, t EventTarget, ev results.EventSpec) (EventPerformer, error) {
	var why []string
	for _, p := range eventPerformers() {
		if !p.Performs(ev.Action) {
			continue
		}
		err := p.Check(ctx, t, ev)
		if err == nil {
			return p, nil
		}
		why = append(why, err.Error())
	}
	if len(why) == 0 {
		why = append(why, "no way to perform "+ev.Action+" is built in")
	}
	return nil, fmt.Errorf("--event %s: target %s: %s", textfmt.Token(ev.Spec), t.Header.Name, strings.Join(why, "; "))
}

// eventClient connects to t with one connection; direct, to host alone,
// when host is given.
func eventClient(t EventTarget, host string) (*mongo.Client, error) {
	o := t.NewClient().SetMaxPoolSize(1).SetMinPoolSize(0)
	if host != "" {
		o.SetHosts([]string{host}).SetDirect(true)
	}
	return mongo.Connect(o)
}

// runAdmin runs cmd on admin through a client of its own, bounded by
// eventCommandTimeout.
func runAdmin(ctx context.Context, t EventTarget, host string, cmd bson.D) (bson.M, error) {
	c, err := eventClient(t, host)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, eventCommandTimeout)
	defer cancel()
	defer c.Disconnect(context.WithoutCancel(ctx))
	var reply bson.M
	err = c.Database("admin").RunCommand(ctx, cmd).Decode(&reply)
	return reply, err
}

// eventCommandTimeout bounds an event's command: a step-down waits for a
// secondary to catch up (10 s by default) before it answers.
const eventCommandTimeout = 30 * time.Second

// simPerformer performs every action but a step-down through the
// simulator's administrative command.
type simPerformer struct{}

func (simPerformer) Via() string { return results.EventViaSimulator }

func (simPerformer) Performs(action string) bool {
	_, ok := simActions[action]
	return ok
}

func (simPerformer) Check(_ context.Context, t EventTarget, ev results.EventSpec) error {
	h := t.Header
	switch {
	case h.ServerKind != topology.KindSimulator:
		return fmt.Errorf("it is a %s server, and only the simulator performs %s (through its own administrative command, which no real server has)", kindOr(h.ServerKind), ev.Action)
	case ev.Action == results.EventRouterRestart && h.Topology != topology.Sharded:
		return fmt.Errorf("it is a %s, and router-restart restarts a mongos of a sharded cluster", kindOr(h.Topology))
	case ev.Action == results.EventFreeze && h.Topology == topology.ReplSet && ev.DurationS > maxMemberFreeze.Seconds():
		return fmt.Errorf("a replica-set member frozen longer than %s (electionTimeoutMillis) would be replaced by an election, which the simulator does not model", maxMemberFreeze)
	}
	return nil
}

// Fire sends the action to one host: the primary of a replica set (where
// the writes go; when the step's clients know none, the command goes
// where the driver finds one), else the first host the target names (a
// router of a sharded cluster: the one restarted).
func (simPerformer) Fire(ctx context.Context, t EventTarget, ev results.EventSpec) (Fired, error) {
	host := t.Primary
	switch {
	case t.Header.Topology == topology.ReplSet:
	case len(t.Header.Hosts) == 0:
		return Fired{}, errors.New("the target names no host")
	default:
		host = t.Header.Hosts[0]
	}
	d := time.Duration(ev.DurationS * float64(time.Second))
	cmd := bson.D{{Key: SimEventCommand, Value: simActions[ev.Action]}}
	if ev.Factor > 0 {
		cmd = append(cmd, bson.E{Key: "factor", Value: ev.Factor})
	}
	if d > 0 {
		cmd = append(cmd, bson.E{Key: "durationMS", Value: d.Milliseconds()})
	}
	sent := time.Now()
	reply, err := runAdmin(ctx, t, host, cmd)
	if err != nil {
		return Fired{Host: host}, err
	}
	if hs, ok := reply["hosts"].(bson.A); ok && len(hs) == 1 {
		// The simulator's name for the host it acted on.
		if h, ok := hs[0].(string); ok {
			host = h
		}
	}
	// A router's restart time is the simulator's own (its spec); its
	// endsAt is on the simulator's clock, which is this machine's for a
	// simulator poolsweep started.
	if at, ok := reply["endsAt"].(bson.DateTime); ok && ev.Action == results.EventRouterRestart {
		d = max(at.Time().Sub(sent), 0)
	}
	return Fired{Host: host, For: d}, nil
}

// stepDownPerformer steps the replica set's primary down with
// replSetStepDown, on real servers and the simulator alike.
type stepDownPerformer struct{}

func (stepDownPerformer) Via() string { return results.EventViaStepDown }

func (stepDownPerformer) Performs(action string) bool { return action == results.EventStepDown }

func (stepDownPerformer) Check(_ context.Context, t EventTarget, _ results.EventSpec) error {
	if h := t.Header; h.Topology != topology.ReplSet {
		return fmt.Errorf("it is a %s, and replSetStepDown steps down the primary of a replica set", kindOr(h.Topology))
	}
	return nil
}

// stepDownSecs is how long the stepped-down member may not be elected
// again: the least a server takes (it must be at least the default
// secondaryCatchUpPeriodSecs, 10), rather than the command's default of
// 60. A sweep steps the set down once per step, trial after trial: with
// 60 s a 3-member set whose steps are shorter would soon have no
// electable member left, and the step-down after that is refused ("No
// electable secondaries caught up").
const stepDownSecs = 10

func (stepDownPerformer) Fire(ctx context.Context, t EventTarget, _ results.EventSpec) (Fired, error) {
	c, err := eventClient(t, "")
	if err != nil {
		return Fired{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, eventCommandTimeout)
	defer cancel()
	defer c.Disconnect(context.WithoutCancel(ctx))
	admin := c.Database("admin")
	// The primary's own name for itself: where the command goes.
	var hello struct {
		Me string `bson:"me"`
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		return Fired{}, err
	}
	err = admin.RunCommand(ctx, bson.D{{Key: "replSetStepDown", Value: stepDownSecs}}).Err()
	return Fired{Host: hello.Me}, err
}

// kindOr names a topology or server kind, or says it is not known.
func kindOr(s string) string {
	if s == "" {
		return "target of unknown kind"
	}
	return s
}

// failPointPerformer performs slow and freeze on a real server through
// the failCommand fail point (sweep/failpoint): only where the server
// says its test commands are enabled, on the replica set's primary, the
// standalone, or the first router. The guard records each fail point
// before it is set and switches it off when the event ends, at the run's
// end, on an error or a signal, and at --resume after a crash.
type failPointPerformer struct{}

func (failPointPerformer) Via() string { return results.EventViaFailPoint }

func (failPointPerformer) Performs(action string) bool {
	return action == results.EventSlow || action == results.EventFreeze
}

func (failPointPerformer) Check(ctx context.Context, t EventTarget, ev results.EventSpec) error {
	if t.FailPoints == nil {
		return errors.New("no fail point guard for this target")
	}
	host := failPointHost(t)
	if host == "" {
		return errors.New("the target names no host")
	}
	if err := failpoint.CheckHost(ctx, failpoint.DirectTo(t.NewClient), host); err != nil {
		return fmt.Errorf("the failCommand fail point: %w", err)
	}
	return nil
}

func (failPointPerformer) Fire(ctx context.Context, t EventTarget, ev results.EventSpec) (Fired, error) {
	var service time.Duration
	if t.ServiceTime != nil {
		service = t.ServiceTime()
	}
	p := &failpoint.Performer{Guard: t.FailPoints, Host: failPointHost(t), AppName: failpoint.MeasuredAppName(t.NewClient), ServiceTime: service}
	host, d, err := p.Perform(ctx, ev)
	return Fired{Host: host, For: d}, err
}

// failPointHost is where a fail point goes: the primary the step's
// clients see, else the first host the target names.
func failPointHost(t EventTarget) string {
	if t.Primary != "" {
		return t.Primary
	}
	if len(t.Header.Hosts) > 0 {
		return t.Header.Hosts[0]
	}
	return ""
}
