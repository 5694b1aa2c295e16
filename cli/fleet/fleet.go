// Package fleet is the fleet command: the maxPoolSize per instance of a
// fleet of N application instances, from one client's measured knee.
package fleet

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/shared"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Options are fleet's flags and arguments, as parsed.
type Options struct {
	files    []string // the results files named as arguments
	fleet    shared.FleetFlags
	plan     planFlags
	format   string
	out      string
	analysis shared.KneeFlags
	read     shared.ReadOptions
}

// NewCmdFleet builds the fleet command. runF, when not nil, is run with the
// parsed options instead of the command (the flags-only tests).
func NewCmdFleet(e *cmdutil.Env, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := shared.FilesCmd(shared.CmdHelp{
		Use:   "fleet [RESULTS.jsonl…] --instances N",
		Short: "Size maxPoolSize for N application instances from one client's measured knee",
		Long: `fleet reads results files and plans for a fleet of N instances, each with its own pool
to every host: the maxPoolSize per instance that keeps the fleet's calls in flight per host
at the measured knee, not past it, and the connections per host within the server's limit
(serverStatus connections.current + available from the steps' telemetry, or
--max-connections). It prints a table of pool sizes with the connections per host, the
memory they cost (--conn-memory, about 1 MiB per connection on mongod), the expected
throughput from the measured curve and the expected pool wait (Little's law), and the
recommendation with its reasons. Open-loop runs (sweep --rate) give the rate per instance
instead. --storm adds a storm run of the same deployment (poolsweep storm): where
connection setup saturated the server, beside the knee, and how long a restart of the
whole fleet takes before its pools are full. --costs takes the memory per connection and
the monitors per client from a connection sweep (sweep --clients LIST at one rate) instead
of the 1 MiB assumption; --limit atlas:M30 takes an Atlas tier's connection limit.
--instances-trace (or --rate-trace with --rate-per-instance) plans an autoscaling fleet:
its peak connections per host against the limit, its pools at rest (--min-pool,
--max-idle), and how long each scale-out takes to warm its pools (with --storm). The model
and its assumptions: docs/fleet.md.`,
		Example: `  poolsweep fleet poolsweep-out/20261130-101500-1a2b/results.jsonl --instances 40
  poolsweep fleet run/results.jsonl --instances 200 --max-connections 20000 --format markdown -o fleet.md
  poolsweep fleet run/results.jsonl --instances 10 --concurrency 32 --format json
  poolsweep fleet run/results.jsonl --instances 40 --storm storm.jsonl
  poolsweep fleet --instances 400 --limit atlas:M30 --costs conns/results.jsonl
  poolsweep fleet run/results.jsonl --instances-trace pods.csv --min-pool 2 --max-idle 60s --storm storm.jsonl
  poolsweep fleet run/results.jsonl --rate-trace traffic.csv --rate-per-instance 200 --limit atlas:M40`,
	}, "", func(ctx context.Context, args []string) error {
		o.files = args
		if err := o.check(); err != nil {
			return err
		}
		if runF != nil {
			return runF(ctx, o)
		}
		return o.run(ctx, e, o.files)
	})
	f := cmd.Flags()
	o.fleet.Add(f, "required without a trace", true)
	o.plan.add(f)
	cmdutil.ChoiceVar(f, &o.format, "format", fleet.FormatText, []string{fleet.FormatText, fleet.FormatMarkdown, fleet.FormatJSON}, false, "output format: text, markdown or json")
	cmdutil.TextVarP(f, &o.out, "out", "o", "", "a file, written through outfile", nil, "write the plan to this file instead of standard output")
	o.analysis.Add(f)
	o.read.AddFlag(f)
	return cmd
}

// check finds every usage error the flags and arguments make alone (and
// -o's file), before runF, so that the flags-only tests reach each of
// them.
func (o *Options) check() error {
	if err := o.plan.check(o.fleet.Instances()); err != nil {
		return err
	}
	if len(o.files) == 0 {
		// The connection sweep is itself a run to plan from: its
		// rates and pools, beside the costs it measured.
		if o.plan.costs == "" {
			return errext.Usagef("fleet: give one or more results.jsonl files (or --costs alone)")
		}
		o.files = []string{o.plan.costs}
	}
	if o.out != "" {
		if err := outfile.Check(o.out); err != nil {
			return errext.Usagef("-o: %w", err)
		}
		if err := cmdutil.NotInput("-o", o.out, append(append(cmdutil.FileArgs("results file", o.files), o.fleet.Inputs()...), o.plan.inputs()...)); err != nil {
			return err
		}
	}
	_, err := o.analysis.Options()
	return err
}

// run plans the fleet check let through.
func (o *Options) run(ctx context.Context, e *cmdutil.Env, args []string) error {
	opts, err := o.analysis.Options()
	if err != nil {
		return err
	}
	// The traces and the costs first: a bad row is found before the
	// results files, which may be large, are read.
	more, err := o.plan.options(ctx, o.read, o.fleet.Instances())
	if err != nil {
		return err
	}
	rs, err := o.read.Files(ctx, args, e.Stderr)
	if err != nil {
		return err
	}
	p, err := o.fleet.Plan(ctx, o.read, rs, analysis.Of(rs, opts), more)
	if err != nil {
		return err
	}
	if o.out == "" {
		return p.Write(e.Stdout, o.format)
	}
	if err := outfile.Write(o.out, func(w io.Writer) error { return p.Write(w, o.format) }); err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout, textfmt.Escape(o.out))
	return nil
}
