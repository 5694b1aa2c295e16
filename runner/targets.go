package runner

import (
	"cmp"
	"context"
	"fmt"
	"io"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/topology"
)

// Target is a target with what the run learned and started for it.
type Target struct {
	topology.Target
	Header results.TargetHeader // as detected
	child  *topology.Child      // a server this run started
}

// StartTargets starts the servers poolsweep runs itself and detects what
// every target is. stop ends the servers it started, whatever happened:
// defer it before looking at err, which is the interruption when ctx ended.
func StartTargets(ctx context.Context, w io.Writer, ts []topology.Target) (targets []*Target, stop func(), err error) {
	stop = func() {
		for _, t := range targets {
			if t.child != nil {
				t.child.Stop()
			}
		}
	}
	targets, err = detectTargets(ctx, w, ts)
	if err != nil && ctx.Err() != nil {
		err = errext.InterruptedBy(ctx)
	}
	return targets, stop, err
}

// detectTargets starts and detects the targets in order; on an error the
// targets it returns are those started so far.
func detectTargets(ctx context.Context, w io.Writer, ts []topology.Target) ([]*Target, error) {
	var targets []*Target
	for _, t := range ts {
		st := &Target{Target: t}
		targets = append(targets, st)
		var err error
		switch {
		case t.Embedded:
			fmt.Fprintln(w, "starting the embedded FerretDB server (a child process; its numbers are FerretDB's, not MongoDB's)…")
			if st.child, err = topology.StartChild(ctx, topology.ChildConfig{}); err != nil {
				return targets, fmt.Errorf("embedded server: %w", err)
			}
			st.URI = st.child.URI
		case t.SimSpec != "":
			fmt.Fprintf(w, "starting simulator %s for target %s (a measuring instrument, not a database)…\n", t.SimSpec, t.Name)
			if st.child, err = topology.StartChild(ctx, topology.ChildConfig{Args: []string{"serve", "--sim", t.SimSpec}, NoData: true}); err != nil {
				return targets, fmt.Errorf("target %s: simulator: %w", t.Name, err)
			}
			st.URI = st.child.URI
		}
		info, err := topology.Detect(ctx, st.URI)
		if err != nil {
			return targets, fmt.Errorf("target %s (%s): %w", t.Name, st.Redacted(), err)
		}
		st.Header = sweep.NewTargetHeader(t.Name, st.URI, info)
		// The version and the hosts are the server's words: escaped, the
		// hosts listed as textfmt.List lists, the line one line at most.
		fmt.Fprintln(w, textfmt.Line(fmt.Sprintf("target %s: %s %s %s, hosts %s", t.Name, info.ServerKind, info.ServerVersion, info.Topology, textfmt.List(info.Hosts, ","))))
	}
	return targets, nil
}

// wireTargets completes each of the session's targets, named as the run
// began, with what detection found: its header, client factory, health
// check and telemetry; the returned func closes the telemetry.
func (o *Options) wireTargets(session *sweep.Session, targets []*Target) (func(), error) {
	var closers []func()
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	for i, t := range targets {
		uri := t.URI
		st := &session.Targets[i]
		st.Header, st.NewClient = t.Header, func() *options.ClientOptions { return topology.ClientOptions(uri) }
		if child := t.child; child != nil {
			st.Check = func() error {
				if child.Exited() {
					return fmt.Errorf("the server process poolsweep started for target %s exited: %s", t.Name, textfmt.Line(child.Stderr()))
				}
				return nil
			}
		}
		if !o.NoTelemetry {
			tel, err := NewStepTelemetry(t, o.NoShardSampling)
			if err != nil {
				return closeAll, fmt.Errorf("target %s: telemetry: %w", t.Name, err)
			}
			closers = append(closers, tel.Close)
			st.Observers = append(st.Observers, tel)
			st.Judge = newStepJudge(t, o.ServerCores)
		}
	}
	return closeAll, nil
}

// checkAxes refuses the read-preference and write-concern axes against a
// target where they change nothing: a standalone server (or the embedded
// one) has no secondaries to read from and no majority beyond itself.
func (o *Options) checkAxes(targets []*Target) error {
	for _, flag := range o.Axes {
		for _, t := range targets {
			if t.Header.Topology != topology.ReplSet && t.Header.Topology != topology.Sharded {
				return errext.Usagef("--%s: target %s is a %s; it takes effect on a replica set or a sharded cluster", flag, t.Name, cmp.Or(t.Header.Topology, "server of unknown topology"))
			}
		}
	}
	return nil
}

// checkEvents refuses, before anything is loaded, an event a target
// cannot take: a step-down of a server that is no replica set, a
// simulator's action on a real server (sweep.CheckEvents says each).
func (o *Options) checkEvents(ctx context.Context, targets []*Target) error {
	for _, t := range targets {
		uri := t.URI
		et := sweep.EventTarget{Header: t.Header, NewClient: func() *options.ClientOptions { return topology.ClientOptions(uri) }}
		if err := sweep.CheckEvents(ctx, et, o.Plan.Events); err != nil {
			return errext.UsageError{Err: err}
		}
	}
	return nil
}

// endInterrupted ends the results of a run that a signal stopped while
// its targets were being started or detected (targets: those begun so
// far): the header names every target, with what was detected of those
// that answered and the name, redacted URI or simulator spec of the
// others, and the end record says the run was interrupted before it
// measured anything; --resume continues it.
func (o *Options) endInterrupted(ctx context.Context, session *sweep.Session, targets []*Target) {
	for i, t := range o.Targets {
		h := sweep.NewTargetHeader(t.Name, t.URI, topology.Info{SimSpec: t.SimSpec})
		if i < len(targets) && targets[i].Header.Name != "" {
			h = targets[i].Header
		}
		session.Targets[i].Header = h
	}
	session.EndInterrupted(ctx, "interrupted while starting or connecting to the targets; nothing was measured")
}
