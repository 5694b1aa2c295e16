package main

import (
	"context"
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	"io"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

type fleetOptions struct {
	fleet    fleetFlags
	format   string
	out      string
	analysis kneeFlags
	read     readOptions
}

func newFleetCmd(e *env) *cobra.Command {
	o := &fleetOptions{}
	cmd := filesCmd(cmdHelp{
		use:   "fleet RESULTS.jsonl… --instances N",
		short: "Size maxPoolSize for N application instances from one client's measured knee",
		long: `fleet reads results files and plans for a fleet of N instances, each with its own pool
to every host: the maxPoolSize per instance that keeps the fleet's calls in flight per host
at the measured knee, not past it, and the connections per host within the server's limit
(serverStatus connections.current + available from the steps' telemetry, or
--max-connections). It prints a table of pool sizes with the connections per host, the
memory they cost (--conn-memory, about 1 MiB per connection on mongod), the expected
throughput from the measured curve and the expected pool wait (Little's law), and the
recommendation with its reasons. Open-loop runs (sweep --rate) give the rate per instance
instead. --storm adds a storm run of the same deployment (poolsweep storm): where
connection setup saturated the server, beside the knee, and how long a restart of the
whole fleet takes before its pools are full. The model and its assumptions: docs/fleet.md.`,
		example: `  poolsweep fleet poolsweep-out/20261130-101500-1a2b/results.jsonl --instances 40
  poolsweep fleet run/results.jsonl --instances 200 --max-connections 20000 --format markdown -o fleet.md
  poolsweep fleet run/results.jsonl --instances 10 --concurrency 32 --format json
  poolsweep fleet run/results.jsonl --instances 40 --storm storm.jsonl`,
	}, "fleet: give one or more results.jsonl files", func(ctx context.Context, args []string) error { return o.run(ctx, e, args) })
	f := cmd.Flags()
	o.fleet.add(f, "required", true)
	choiceVar(f, &o.format, "format", fleet.FormatText, []string{fleet.FormatText, fleet.FormatMarkdown, fleet.FormatJSON}, false, "output format: text, markdown or json")
	textVarP(f, &o.out, "out", "o", "", "a file, written through outfile", nil, "write the plan to this file instead of standard output")
	o.analysis.add(f)
	o.read.addFlag(f)
	return cmd
}

func (o *fleetOptions) run(ctx context.Context, e *env, args []string) error {
	if o.fleet.instances < 1 {
		return errext.Usagef("--instances: required (the application instances, from 1 to %d)", maxFleetInstances)
	}
	if o.out != "" {
		if err := outfile.Check(o.out); err != nil {
			return errext.Usagef("-o: %w", err)
		}
	}
	opts, err := o.analysis.options()
	if err != nil {
		return err
	}
	rs, err := o.read.files(ctx, args, e.stderr)
	if err != nil {
		return err
	}
	p, err := o.fleet.plan(ctx, o.read, rs, analysis.Of(rs, opts))
	if err != nil {
		return err
	}
	if o.out == "" {
		return p.Write(e.stdout, o.format)
	}
	if err := outfile.Write(o.out, func(w io.Writer) error { return p.Write(w, o.format) }); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, textfmt.Escape(o.out))
	return nil
}
