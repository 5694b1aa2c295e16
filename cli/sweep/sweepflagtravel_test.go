package sweep

import (
	"context"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/shared"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestSweepFlagsTravel: every sweep flag says whether the agents of
// --spawn get it (as given, as the plan resolved it, or never), so that a
// new flag cannot be left out of their command line unnoticed; and the
// flags that travel resolved are exactly those resolvedArgs gives.
func TestSweepFlagsTravel(t *testing.T) {
	t.Parallel()
	e := &cmdutil.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}
	flags := NewCmdSweep(e, nil).Flags()
	resolved := map[string]bool{}
	flags.VisitAll(func(f *pflag.Flag) {
		switch flagTravel(f) {
		case travelAsGiven, travelNever:
		case travelResolved:
			resolved[f.Name] = true
		default:
			t.Errorf("--%s does not say whether the agents of --spawn get it: add it to a travel(…) call where it is defined", f.Name)
		}
	})
	// Auto warm-ups and windows, so that every length flag is given.
	_, cfg, err := parseSweepOptions([]string{"--spawn", "2", "--uri", "mongodb://127.0.0.1:1/", "--warmup", "auto", "--duration", "auto"})
	if err != nil {
		t.Fatal(err)
	}
	given := map[string]bool{}
	for _, a := range resolvedArgs(cfg) {
		if name, ok := strings.CutPrefix(a, "--"); ok {
			given[name] = true
		}
	}
	for name := range resolved {
		if !given[name] {
			t.Errorf("--%s travels resolved, but resolvedArgs does not give it", name)
		}
	}
	for name := range given {
		if !resolved[name] {
			t.Errorf("resolvedArgs gives --%s, which does not travel resolved", name)
		}
	}
}

// TestSpawnArgsAsBefore: the agents' command line derived from the flags'
// decisions is the one the hand-kept lists gave (handSpawnArgs, as it was
// before, less --metrics-listen), for command lines that give every flag
// an agent may get and those it may not.
func TestSpawnArgsAsBefore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--spawn", "2"},
		{"--spawn", "2", "--uri", "mongodb://127.0.0.1:1/", "--concurrency", "1,2", "--pool", "4,8", "--clients", "2", "--op-timeout", "2s",
			"--prewarm-timeout", "5s", "--workload", "mixed", "--mix", "read=70,update=30", "--distribution", "zipfian", "--database", "db1",
			"--drop", "--drop-foreign", "--max-connecting", "4", "--keep-going", "--max-error-rate", "0.5", "--no-telemetry",
			"--no-shard-sampling", "--server-cores", "4", "--lock-wait", "1m", "--progress", "json", "--metrics-listen", "127.0.0.1:9999",
			"--agent-timeout", "5s", "--agent-silence", "5s", "--out", dir, "--run-id", "r1", "--warmup", "auto", "--min-warmup", "3s",
			"--max-warmup", "10s", "--duration", "auto", "--min-duration", "2s", "--max-duration", "20s", "--precision", "5%", "--min-calls", "10",
			"--records", "50", "--no-plot", "--instances", "3", "--max-connections", "100", "--conn-memory", "2", "--trials", "2"},
		{"--spawn", "3", "--target", "a=sim:slots=4", "--target", "b=sim:slots=8", "--concurrency", "1..8x2", "--warmup", "1s",
			"--duration", "2s", "--order", "interleaved", "--mixes", "100:0:0,0:0:100", "--read-preference", "primary,nearest",
			"--write-concern", "majority", "--storm", "x.jsonl", "--instances", "4"},
	} {
		o, cfg, err := parseSweepOptions(args)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if got, want := o.spawnArgs(cfg), handSpawnArgs(o, cfg); !slices.Equal(got, want) {
			t.Errorf("%v:\nderived %q\nby hand %q", args, got, want)
		}
	}
}

// parseSweepOptions is parseSweep with the parsed options too.
func parseSweepOptions(args []string) (*Options, *sweepConfig, error) {
	var (
		opts *Options
		cfg  *sweepConfig
	)
	e := &cmdutil.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}
	cmd := NewCmdSweep(e, func(_ context.Context, o *Options) error {
		var err error
		opts = o
		cfg, err = o.validate()
		return err
	})
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdutil.FlagError(err) })
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); err != nil {
		return nil, nil, err
	}
	return opts, cfg, nil
}

// handSpawnArgs is spawnArgs as it was while hand-kept lists chose the
// flags, kept as the reference the derived one must equal.
func handSpawnArgs(o *Options, cfg *sweepConfig) []string {
	decided := map[string]bool{"spawn": true, "out": true, "target": true, "uri": true, "run-id": true, "agents": true, "agent-index": true,
		"resume": true, "no-plot": true, "concurrency": true, "trials": true, "warmup": true, "duration": true, "records": true, "targets-fd": true,
		// The one change from the hand-kept lists: they passed
		// --metrics-listen on to every agent, which then could not bind the
		// port the launcher held, so --spawn with it always failed. The
		// launcher now hands its socket to agent 0 alone (--metrics-fd).
		"metrics-listen": true, "metrics-fd": true}
	args := []string{"sweep"}
	for _, name := range append(shared.FleetFlagNames, autoFlagNames...) {
		decided[name] = true // the leader writes the report; the lengths are the plan's
	}
	o.flagSet.Visit(func(f *pflag.Flag) {
		if !decided[f.Name] {
			args = append(args, givenArgs(f)...)
		}
	})
	levels := make([]string, len(cfg.plan.Concurrency))
	for i, c := range cfg.plan.Concurrency {
		levels[i] = strconv.Itoa(c)
	}
	args = append(args, "--concurrency", strings.Join(levels, ","), "--trials", strconv.Itoa(cfg.plan.Trials))
	args = append(args, lengthArgs(cfg.plan)...)
	return append(args, "--records", strconv.Itoa(cfg.workloads[0].Records), "--no-plot")
}

// TestSpawnArgsOwnLevels: levels per target travel to --spawn's agents
// resolved, one NAME=LIST per target, and an agent given them with the
// same targets (as the pipe hands them) plans the leader's steps.
func TestSpawnArgsOwnLevels(t *testing.T) {
	t.Parallel()
	targets := []string{"--target", "a=sim:slots=4", "--target", "b=sim:slots=8"}
	o, cfg, err := parseSweepOptions(append([]string{"--spawn", "2", "--concurrency", "b=4,16", "--concurrency", "1..8x2"}, targets...))
	if err != nil {
		t.Fatal(err)
	}
	args := o.spawnArgs(cfg)
	if !slices.Contains(args, "a=1,2,4,8") || !slices.Contains(args, "b=4,16") || slices.Contains(args, "1,2,4,8,16") {
		t.Fatalf("agents' args %q", args)
	}
	_, agent, err := parseSweepOptions(append(args[1:], targets...))
	if err != nil {
		t.Fatalf("an agent refused %q: %v", args, err)
	}
	names := []string{"a", "b"}
	if got, want := agent.plan.Steps(names, []string{"read"}), cfg.plan.Steps(names, []string{"read"}); !reflect.DeepEqual(got, want) {
		t.Errorf("agent plans %+v\nleader plans %+v", got, want)
	}
}

// TestSpawnArgsProfile: the agents of --spawn with a profile get a
// command line that an agent takes (no concurrency levels or lengths,
// which --profile refuses) and that gives it the leader's profile,
// events, calls in flight, clients and trials.
func TestSpawnArgsProfile(t *testing.T) {
	t.Parallel()
	o, cfg, err := parseSweepOptions([]string{"--spawn", "2", "--uri", "mongodb://127.0.0.1:1/", "--profile", "rate:100:2s", "--event", "1s=reset",
		"--clients", "2", "--max-in-flight", "40", "--pool", "5"})
	if err != nil {
		t.Fatal(err)
	}
	args := append(o.spawnArgs(cfg)[1:], "--agents", "2", "--agent-index", "1", "--run-id", "r1", "--uri", "mongodb://127.0.0.1:1/")
	_, agent, err := parseSweepOptions(args)
	if err != nil {
		t.Fatalf("an agent refuses %q: %v", args, err)
	}
	p, q := cfg.plan, agent.plan
	if q.Profile == nil || q.Profile.Spec != p.Profile.Spec || !reflect.DeepEqual(q.Events, p.Events) || q.MaxInFlight != 40 || q.Clients != 2 ||
		q.Trials != p.Trials || !slices.Equal(q.Pool.Sizes, p.Pool.Sizes) {
		t.Errorf("the agent's plan %+v, the leader's %+v", q, p)
	}
}
