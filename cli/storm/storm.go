// Package storm is the storm command: K clients opening their pools at
// once against one target, recorded to a results file.
package storm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/shared"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/fdlimit"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/runner"
	"github.com/poolsweep/poolsweep/storm"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/topology"
)

// Memory one storm may need in this process: each connection's buffers
// and goroutines in the driver, and each client's monitor and topology.
// Measured (Go heap + stacks at the storm's peak, driver v2, linux/amd64):
// 100 clients × 21 connections took 44,696 KiB over the baseline, about
// 21 KiB a connection with the clients' share; rounded up here.
const (
	stormConnKiB   = 24
	stormClientKiB = 100
	maxStormMemMiB = 2048
)

// Options are storm's flags, as parsed.
type Options struct {
	uri           string
	target        string
	clients       string
	pool          int
	maxConnecting string
	trials        int
	timeout       time.Duration
	probeInterval time.Duration
	out           string
	noTelemetry   bool
}

// NewCmdStorm builds the storm command; runF runs it once its flags are
// parsed (nil: run the storms; tests pass their own).
func NewCmdStorm(e *cmdutil.Env, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "storm -o STORM.jsonl",
		Short: "Measure a connection storm: K clients opening their pools at once",
		Long: `storm starts K independent clients at once against one target, each opening a pool of
--pool connections with the driver's --max-connecting, as a fleet's instances do after a
deploy, a failover or a scale-out. For each K (and maxConnecting) it records the time until
every pool is full, the rate the server accepted connections at (serverStatus
connections.totalCreated), connections that failed to be set up, the latency of pings a
client connected before the storm issued during it, and the server's telemetry (its CPU
and connection counts). Records go to a results file (-o, created new; kind "storm",
docs/results-schema.md). --target name=sim:SPEC with accept_cost= starts a simulator
whose storms have a known answer: docs/storm.md.`,
		Example: `  poolsweep storm --uri mongodb://db1:27017 --clients 10,50,200 --pool 20 -o storm.jsonl
  poolsweep storm --target sim=sim:slots=8,accept_cost=2ms --clients 10,50 --max-connecting 2,8 -o storm.jsonl`,
		Args: cmdutil.ArgsUsage(cobra.NoArgs),
		RunE: cmdutil.RunSeam(o, func() error { _, err := o.Validate(); return err }, runF, func(ctx context.Context) error { return o.run(ctx, e) }),
	}
	f := cmd.Flags()
	cmdutil.TextVar(f, &o.uri, "uri", "", "a MongoDB URI", topology.ValidateURI, "MongoDB connection string of the deployment to storm")
	cmdutil.TextVar(f, &o.target, "target", "", "name=URI or name=sim:SPEC", shared.CheckTarget, "name=URI of the deployment to storm; name=sim:SPEC starts a calibrated simulator")
	cmdutil.LevelsVar(f, &o.clients, "clients", "10", results.MaxStormClients, false, plan.ParseLevels, fmt.Sprintf("K: clients opening their pools at once, a list or range (10,50,200; 10..200x2), each from 1 to %d", results.MaxStormClients))
	cmdutil.IntVar(f, &o.pool, "pool", 20, 1, results.MaxStormPool, fmt.Sprintf("P: each client's maxPoolSize, the pool it fills, from 1 to %d", results.MaxStormPool))
	cmdutil.LevelsVar(f, &o.maxConnecting, "max-connecting", "2", results.MaxConnecting, false, plan.ParseLevels, "the driver's maxConnecting: connections each pool opens at a time, a list (the driver's default is 2)")
	cmdutil.IntVar(f, &o.trials, "trials", 1, 1, 100, "storms of each K and maxConnecting, from 1 to 100; all the storms, each at --timeout + 30s, within 168h")
	cmdutil.DurationVar(f, &o.timeout, "timeout", time.Minute, time.Second, 10*time.Minute, "bound on each storm (and each connection's setup), from 1s to 10m")
	cmdutil.DurationVar(f, &o.probeInterval, "probe-interval", 10*time.Millisecond, time.Millisecond, time.Second, "how often the probe client pings during a storm, from 1ms to 1s")
	cmdutil.TextVarP(f, &o.out, "out", "o", "", "a file, created through outfile", nil, "results file to create (required; never replaced)")
	f.BoolVar(&o.noTelemetry, "no-telemetry", false, "do not sample the server (no CPU, connection counts or accept rate)")
	return cmd
}

// stormPlan is what the flags ask for, checked.
type stormPlan struct {
	target        topology.Target
	clients       []int
	maxConnecting []int
}

// Validate checks the flags together, before anything starts.
func (o *Options) Validate() (stormPlan, error) {
	var p stormPlan
	switch {
	case o.out == "":
		return p, errext.Usagef("-o/--out: required (the results file to create)")
	case o.uri != "" && o.target != "":
		return p, errext.Usagef("--uri and --target: give one")
	case o.uri == "" && o.target == "":
		return p, errext.Usagef("--uri or --target: required (the deployment to storm)")
	}
	if err := outfile.Check(o.out); err != nil {
		return p, errext.Usagef("-o: %w", err)
	}
	if _, err := os.Lstat(o.out); err == nil {
		return p, errext.Usagef("-o: %s %w: storm creates a new results file", textfmt.Escape(o.out), outfile.ErrExists)
	}
	var err error
	if o.target != "" {
		p.target, err = topology.ParseTarget(o.target)
	} else {
		p.target, err = topology.ParseTarget("target=" + o.uri)
	}
	if err != nil {
		return p, errext.Usagef("--target: %w", err)
	}
	if p.clients, err = plan.ParseLevels(o.clients, results.MaxStormClients); err != nil {
		return p, errext.Usagef("--clients: %w", err)
	}
	if p.maxConnecting, err = plan.ParseLevels(o.maxConnecting, results.MaxConnecting); err != nil {
		return p, errext.Usagef("--max-connecting: %w", err)
	}
	storms := len(p.clients) * len(p.maxConnecting) * o.trials
	if err := plan.CheckRunTime("--clients, --max-connecting and --trials", storms, "storms", float64(storms)*storm.Longest(o.timeout).Seconds()); err != nil {
		return p, errext.Usagef("%w (each up to --timeout %s and %s of pings and closes); plan fewer storms, or a shorter --timeout", err, o.timeout, storm.Longest(0))
	}
	return p, o.checkBudget(slices.Max(p.clients), 1)
}

// checkBudget refuses a storm this process cannot hold: more connections
// than a storm allows, than its file descriptors, or than the memory
// estimate allows. pools is the pools per client (the mongos count).
func (o *Options) checkBudget(k, pools int) error {
	conns := k * o.pool * pools
	if conns > results.MaxStormConns {
		return errext.Usagef("--clients × --pool: %d connections in one storm, more than %d", conns, results.MaxStormConns)
	}
	// Each client's pools, its monitor per host, and the probe.
	fds := k*(o.pool+1)*pools + 1
	if err := fdlimit.Ensure(uint64(fds + fdlimit.Reserve)); err != nil {
		return errext.Usagef("--clients × --pool: %d connections with their monitors and the process's own files %w", fds, err)
	}
	if mib := (fds*stormConnKiB + k*stormClientKiB) / 1024; mib > maxStormMemMiB {
		return errext.Usagef("--clients × --pool: about %d MiB for %d clients' connections, more than %d MiB", mib, k, maxStormMemMiB)
	}
	return nil
}

func (o *Options) run(ctx context.Context, e *cmdutil.Env) error {
	p, err := o.Validate()
	if err != nil {
		return err
	}
	// The target started (a simulator, FerretDB) or detected as the
	// sweep's are, saying so on stderr.
	ts, stop, err := runner.StartTargets(ctx, e.Stderr, []topology.Target{p.target})
	defer stop()
	if err != nil {
		return err
	}
	t := ts[0]
	pools, routers := 1, []string(nil)
	if t.Header.Topology == topology.Sharded {
		routers = t.Header.Hosts
		pools = max(len(routers), 1)
	}
	if err := o.checkBudget(slices.Max(p.clients), pools); err != nil {
		return err
	}
	var obs storm.Observer
	if !o.noTelemetry {
		tel, err := runner.NewStepTelemetry(t, false)
		if err != nil {
			return fmt.Errorf("telemetry: %w", err)
		}
		defer tel.Close()
		obs = tel
	}
	sp := results.StormPlan{Clients: p.clients, Pool: o.pool, MaxConnecting: p.maxConnecting, TimeoutS: o.timeout.Seconds(),
		ProbeIntervalMs: float64(o.probeInterval) / float64(time.Millisecond)}
	w, err := results.CreateResults(o.out)
	if err != nil {
		return errext.Usagef("-o: %w", err)
	}
	runID := sweep.NewRunID(time.Now(), uint16(rand.Uint32()))
	if err := w.Write(storm.Header(runID, sp, o.trials, t.Header, sweep.NewClientInfo())); err != nil {
		w.Close()
		return err
	}
	end := results.EndRecord{Kind: results.KindEnd, Status: "complete"}
	var done []results.StormResult
	for _, k := range p.clients {
		for _, m := range p.maxConnecting {
			for trial := 1; trial <= o.trials; trial++ {
				uri := t.URI
				rec, err := storm.Run(ctx, storm.Config{Target: t.Name, NewClient: func() *options.ClientOptions { return topology.ClientOptions(uri) },
					Clients: k, Pool: o.pool, MaxConnecting: m, RouterHosts: routers, Timeout: o.timeout,
					ProbeInterval: o.probeInterval, Trial: trial, Observer: obs})
				if err != nil {
					end.Status, end.Reason = "interrupted", "interrupted during the storm of "+fmt.Sprint(k)+" clients"
					break
				}
				if err := w.Write(rec); err != nil {
					w.Close()
					return err
				}
				end.Steps++
				done = append(done, rec)
				fmt.Fprintln(e.Stderr, stormLine(rec))
			}
		}
	}
	end.FinishedAt = time.Now().UTC()
	end.Planned = len(p.clients) * len(p.maxConnecting) * o.trials
	if err := w.Write(end); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	for _, sat := range fleet.SaturationOf(done) {
		fmt.Fprintln(e.Stdout, sat.Text())
	}
	fmt.Fprintln(e.Stdout, textfmt.Escape(o.out))
	if end.Status == "interrupted" {
		return errext.InterruptedBy(ctx)
	}
	return nil
}

// stormLine is one storm's progress line.
func stormLine(r results.StormResult) string {
	fill := "not full"
	if r.FillS != nil {
		fill = fmt.Sprintf("full after %.3f s", *r.FillS)
	}
	accept := "accept rate not reported"
	if r.AcceptPerS != nil {
		accept = fmt.Sprintf("server accepted %.0f connections/s", *r.AcceptPerS)
	}
	return fmt.Sprintf("storm K=%d P=%d maxConnecting=%d trial %d: %d/%d connections, %s, %s, %s, %d connect errors, probe p99 %.2f ms",
		r.Clients, r.Pool, r.MaxConnecting, r.Trial, r.Ready, r.Wanted, fill, accept, admission(r.ServerTotal), r.ConnectErrors, r.Probe.Latency.P99)
}

// admission is what the server's connection-establishment rate limiter
// (8.2) did during the storm, beside the storm's own fill times.
func admission(t *results.ServerSample) string {
	if t == nil || t.Establishment == nil {
		return "server establishment limiter not reported"
	}
	e := t.Establishment
	n := func(v *float64) string {
		if v == nil {
			return "n/r"
		}
		return fmt.Sprintf("%.0f", *v)
	}
	return fmt.Sprintf("server establishment limiter admitted %s, queued %s, rejected %s", n(e.Admitted), n(e.Queued), n(e.Rejected))
}
