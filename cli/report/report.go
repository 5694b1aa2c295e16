// Package report is the report command: one HTML or Markdown report of
// results files, with an A/B section and a fleet section when asked.
package report

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/shared"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plot"
	"github.com/poolsweep/poolsweep/report"
	"github.com/poolsweep/poolsweep/results"
)

// Options are report's flags and arguments, as parsed.
type Options struct {
	files     []string // the results files named as arguments
	out       string
	format    string
	baseline  string
	candidate string
	steady    string
	analysis  shared.KneeFlags
	fleet     shared.FleetFlags
	read      shared.ReadOptions
}

// NewCmdReport builds the report command. runF, when not nil, is run with the
// parsed options instead of the command (the flags-only tests).
func NewCmdReport(e *cmdutil.Env, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := shared.FilesCmd(shared.CmdHelp{
		Use:   "report RESULTS.jsonl… -o report.html",
		Short: "Write one self-contained HTML (or Markdown) report: header, verdicts, figures, step table",
		Long: `report writes a capacity-planning report from results files: the run's targets,
workload, plan and client machine; the knee verdict per series; the figures; and the
step table in the seeds' format (concurrency, pool, connections, throughput, average
read and write latency in µs, p99, errors).

The verdicts are analyze's, with the same options (--plateau, --min-gain, --slo-p99):
one file, or three and more, form series as analyze forms them (steps of one target in
several files are trials of one series). Two files are an A/B pair: the report adds
the comparison, and each run is analysed on its own, as analyze RUN would.

HTML is one file with the SVG figures inline and nothing to fetch. With --format
markdown the figures (PNG and SVG) go into a directory named after the report, beside
it: -o report.md writes report_files/throughput.png and so on, so that no file the
report did not name is replaced. The directory the report goes into must exist.

--instances N adds a fleet section: fleet's plan for N application instances (the pool
size per instance, its table and reasons), with fleet's flags; --storm STORM.jsonl puts a
storm run's connection-setup saturation beside the knee (docs/fleet.md).`,
		Example: `  poolsweep report poolsweep-out/20261130-101500-1a2b/results.jsonl -o report.html
  poolsweep report run/results.jsonl --format markdown -o report.md      # figures in report_files/
  poolsweep report run/results.jsonl --slo-p99 20ms -o report.html
  poolsweep report audit-off/results.jsonl audit-on/results.jsonl -o ab.html     # with an A/B section
  poolsweep report ab/results.jsonl --baseline standalone --candidate sharded -o ab.html
  poolsweep report run/results.jsonl --instances 40 --storm storm.jsonl -o report.html   # with a fleet section
  poolsweep report run/results.jsonl --steady 16 -o report.html        # with step 16's batch series`,
	}, "report: give one or more results.jsonl files", func(ctx context.Context, args []string) error {
		o.files = args
		if err := o.check(); err != nil {
			return err
		}
		if runF != nil {
			return runF(ctx, o)
		}
		return o.run(ctx, e, o.files)
	})
	cmdutil.TextVarP(cmd.Flags(), &o.out, "out", "o", "", "a file, written through outfile", nil, "report file to write (required)")
	cmdutil.ChoiceVar(cmd.Flags(), &o.format, "format", "html", []string{"html", "markdown"}, false, "html or markdown")
	cmdutil.TextVar(cmd.Flags(), &o.baseline, "baseline", "", "a target name of the results file", nil, "with one results file of two targets: the baseline target for the A/B section")
	cmdutil.TextVar(cmd.Flags(), &o.candidate, "candidate", "", "a target name of the results file", nil, "the candidate target for the A/B section")
	cmdutil.TextVar(cmd.Flags(), &o.steady, "steady", "", "[TARGET:]C|R/s[,trial]", shared.CheckSteadyStep, "add the figure of one step's batch series with its MSER-5 truncation point and window interval (as plot --steady), e.g. 16 or 16,2 or sharded:16 or 1000/s")
	o.analysis.Add(cmd.Flags())
	o.fleet.Add(cmd.Flags(), "adds the fleet section", true)
	o.read.AddFlag(cmd.Flags())
	return cmd
}

// check finds every usage error the flags and arguments make alone (and
// -o's file), before runF, so that the flags-only tests reach each of
// them.
func (o *Options) check() error {
	args := o.files
	if o.out == "" {
		return errext.Usagef("-o/--out: required (the report file)")
	}
	if err := checkReportPath(o.out, o.format); err != nil {
		return err
	}
	ins := append(cmdutil.FileArgs("results file", args), o.fleet.Inputs()...)
	if err := cmdutil.NotInput("-o", o.out, ins); err != nil {
		return err
	}
	if o.format == report.Markdown {
		if err := cmdutil.NotInputIn("-o", report.FiguresDir(o.out), plot.MayWrite, ins); err != nil {
			return err
		}
	}
	if _, err := o.analysis.Options(); err != nil {
		return err
	}
	if (o.baseline == "") != (o.candidate == "") {
		return errext.Usagef("--baseline/--candidate: give both target names, or neither")
	}
	if len(args) == 2 && cmdutil.SameFile(args[0], args[1]) {
		return errext.Usagef("report: %s is given twice; an A/B report needs two different runs", args[0])
	}
	if len(args) > 1 && o.baseline != "" {
		return errext.Usagef("--baseline/--candidate: name two targets of one results file; two files are already an A/B pair")
	}
	_, err := o.fleet.Asked()
	return err
}

// run writes the report check let through.
func (o *Options) run(ctx context.Context, e *cmdutil.Env, args []string) error {
	opts, err := o.analysis.Options()
	if err != nil {
		return err
	}
	withFleet, err := o.fleet.Asked()
	if err != nil {
		return err
	}
	rs, err := o.read.Files(ctx, args, e.Stderr)
	if err != nil {
		return err
	}
	// Two files are an A/B pair, each run analysed on its own; one file's
	// two targets are compared within one analysis.
	var ab *report.AB
	a := analysis.Of(rs, opts)
	switch {
	case o.baseline != "":
		ab = &report.AB{Baseline: o.baseline, Candidate: o.candidate}
	case len(rs) == 2:
		ab, a = &report.AB{}, analysis.Each(rs, opts)
	}
	var plan *fleet.Plan
	if withFleet {
		if plan, err = o.fleet.Plan(ctx, o.read, rs, a); err != nil {
			return err
		}
	}
	if err := writeReport(o.out, o.format, rs, a, ab, plan, shared.SteadyOption(o.steady), e.Stderr); err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout, textfmt.Escape(o.out))
	return nil
}

// writeReport assembles the report of rs from their analysis a (with the
// fleet's plan when not nil, and one step's batch series when steady is
// not nil), tells notes what it left out, and writes it to path in format.
func writeReport(path, format string, rs []*results.Results, a *analysis.Analysis, ab *report.AB, plan *fleet.Plan, steady *plot.SteadyStep, notes io.Writer) error {
	r, ns, err := report.New(rs, a, ab)
	if err == nil && steady != nil {
		if err := r.AddSteady(*steady); err != nil {
			return errext.Usagef("--steady: %w", errors.Unwrap(err))
		}
	}
	var in *report.InputError
	switch {
	case errors.As(err, &in):
		return errext.UsageError{Err: err}
	case err != nil:
		return err
	}
	r.Fleet = plan
	// A path that cannot take the report is one line naming -o, with
	// nothing written and nothing else said.
	var bad *report.PathError
	err = r.Write(path, format)
	if errors.As(err, &bad) {
		return errext.Usagef("-o: %w", err)
	}
	for _, n := range ns {
		fmt.Fprintln(notes, "note:", n)
	}
	return err
}

// checkReportPath refuses, before any work, a report path that could not
// be written (report.Check), as one line naming -o.
func checkReportPath(path, format string) error {
	if err := report.Check(path, format); err != nil {
		return errext.Usagef("-o: %w", err)
	}
	return nil
}
