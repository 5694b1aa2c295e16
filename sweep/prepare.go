package sweep

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/internal/teardown"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep/failpoint"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// Preparing the targets: connecting, loading the data, and building the
// runners that measure each workload's steps on them.

// target is a SessionTarget being measured.
type sessionTarget struct {
	SessionTarget
	setup   *mongo.Client // loads the data, then checks health before each step
	runners map[string]*runner
	// guard sets the target's fail points, and switches off at close
	// whatever is still on.
	guard *failpoint.Guard
	// params are the server parameters' hosts and values (--server-param),
	// and which series' are in force; nil when none is swept.
	params *targetParams
	// said reports what close did to the server (SessionHooks.Server).
	said func(msg string)
}

// prepareAll connects to every target, loads its data and builds its
// runners; with nothing to measure it only connects.
func (s *Session) prepareAll(ctx context.Context, load bool) (map[string]*sessionTarget, error) {
	byName := map[string]*sessionTarget{}
	if !load {
		return byName, nil
	}
	for _, t := range s.Targets {
		st, err := s.prepare(ctx, t)
		if st != nil {
			byName[t.Header.Name] = st
		}
		if err != nil {
			return byName, err
		}
	}
	return byName, nil
}

func (t *sessionTarget) close() {
	if t.guard != nil {
		// On every way out of the session (its end, an error, a signal):
		// Close runs on a context of its own, the run's being cancelled.
		if err := t.guard.Close(context.Background()); err != nil && t.said != nil {
			t.said(fmt.Sprintf("%v; --resume undoes it", err))
		}
	}
	if t.setup != nil {
		ctx, cancel := context.WithTimeout(context.Background(), disconnectTimeout)
		teardown.Within(ctx, func(ctx context.Context) { t.setup.Disconnect(ctx) })
		cancel()
	}
}

// prepare connects to a target, loads its data and builds its runners.
func (s *Session) prepare(ctx context.Context, t SessionTarget) (*sessionTarget, error) {
	st := &sessionTarget{SessionTarget: t, runners: map[string]*runner{}}
	name := t.Header.Name
	setup, err := mongo.Connect(t.NewClient().SetMaxPoolSize(8).SetTimeout(2 * time.Minute))
	if err != nil {
		return nil, fmt.Errorf("target %s: connect: %w", name, err)
	}
	st.setup = setup
	wl := s.Workloads[0]
	st.guard = s.failPointGuard(setup, t)
	st.params = s.params[name]
	if s.Hooks.Server != nil {
		st.said = func(msg string) { s.Hooks.Server(name, msg) }
	}
	opts := workload.PrepareOptions{Drop: s.Drop, DropForeign: s.DropForeign, RunID: s.RunID, LockWait: s.LockWait}
	if s.Hooks.Loading != nil {
		opts.Progress = func(done, total int) { s.Hooks.Loading(name, done, total) }
	}
	if s.Hooks.Waiting != nil {
		opts.Waiting = func(msg string) { s.Hooks.Waiting(name, msg) }
	}
	lr, err := workload.Prepare(ctx, setup, wl, opts)
	if err != nil {
		return st, fmt.Errorf("target %s: %w", name, err)
	}
	if s.Hooks.Loaded != nil {
		s.Hooks.Loaded(name, lr)
	}
	keys := workload.NewKeySpace(wl.Distribution, int64(wl.Records), lr.NextInsert)
	// Prepare loaded the records, or found poolsweep's complete load of
	// them: an op by one of their keys that finds nothing is evidence the
	// target lost its data (markTargetFailed).
	keys.SetLoaded(int64(wl.Records))
	agent := s.agentIndex()
	if agent > 0 {
		// Agents inserting at once never collide: each has its own block.
		keys.AgentBlock(agent)
	}
	for _, w := range s.Workloads {
		r := &runner{Target: name, NewClient: t.NewClient, Workload: w, Keys: keys,
			Warmup: s.Plan.Warmup, Duration: s.Plan.Duration, Auto: s.Plan.Auto, OpTimeout: s.Plan.OpTimeout,
			PrewarmTimeout: s.PrewarmTimeout, Progress: s.Hooks.Progress,
			Observers: t.Observers, Judge: t.Judge, Hosts: poolHosts(t.Header), FailPoints: st.guard,
			Events: s.Plan.Events, Header: t.Header}
		if agent >= 0 {
			// In lock step: the coordinator's start barrier, and random
			// streams of this agent's own.
			r.StartAt, r.Seed = s.coord.Ready, uint64(agent)+1
			if a := s.agents; a != nil && a.Count > 1 {
				// A profile is the fleet's: each agent offers its clients'
				// share of its arrivals, and the leader alone fires its
				// events.
				r.FleetClients, r.FleetFirst = a.Count*s.Plan.Clients, agent*s.Plan.Clients
				r.Follower = agent > 0
			}
			if fc, ok := s.coord.(FleetCoordinator); ok {
				r.Fleet = fc.Fleet
			}
		}
		st.runners[w.Label] = r
	}
	return st, nil
}

// poolHosts is how many hosts each client keeps a full pool to, which the
// pre-warm waits for: every mongos of a sharded target (the driver spreads
// operations over them); every member of a replica set (minPoolSize holds
// the step's connections open on each, and the read preference may send
// the reads to any of them: waiting for the primary's pool only would
// open the secondaries' during the window); one host otherwise.
func poolHosts(h results.TargetHeader) int {
	if (h.Topology == topology.Sharded || h.Topology == topology.ReplSet) && len(h.Hosts) > 0 {
		return len(h.Hosts)
	}
	return 1
}

// switchOffFailPoints switches off every fail point the targets' steps
// left on, on a context of its own (the run's may be cancelled); its
// error names each one that may still be on.
func switchOffFailPoints(ctx context.Context, targets map[string]*sessionTarget) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(targets)) {
		if g := targets[name].guard; g != nil {
			if err := g.OffAll(ctx); err != nil {
				errs = append(errs, fmt.Errorf("target %s: %w", name, err))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w; --resume switches it off", errors.Join(errs...))
	}
	return nil
}

// failPointGuard is the target's fail point guard: its records go into
// the meta collection of poolsweep's database for the first workload,
// the one the load's own records are in.
func (s *Session) failPointGuard(setup *mongo.Client, t SessionTarget) *failpoint.Guard {
	meta := setup.Database(s.Workloads[0].Database).Collection(workload.MetaCollection)
	return failpoint.NewGuard(meta, s.RunID, failpoint.DirectTo(t.NewClient))
}

// recoverFailPoints switches off, on every target, the fail points an
// earlier process of this run set and never switched off (it was
// killed): a resumed run does it before anything else, and does not go
// on while one may still be on.
func (s *Session) recoverFailPoints(ctx context.Context) error {
	for _, t := range s.Targets {
		name := t.Header.Name
		client, err := mongo.Connect(t.NewClient().SetMaxPoolSize(2).SetTimeout(failpoint.OffTimeout))
		if err != nil {
			return fmt.Errorf("target %s: connect: %w", name, err)
		}
		g := s.failPointGuard(client, t)
		msgs, err := g.Recover(ctx)
		for _, m := range msgs {
			if s.Hooks.Server != nil {
				s.Hooks.Server(name, m)
			}
		}
		g.Close(ctx)
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), disconnectTimeout)
		teardown.Within(dctx, func(ctx context.Context) { client.Disconnect(ctx) })
		cancel()
		if err != nil {
			return fmt.Errorf("target %s: %w", name, err)
		}
	}
	return nil
}
