package main

import (
	"context"
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	"strings"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plot"
)

type plotOptions struct {
	out      string
	figures  string
	steady   string
	analysis kneeFlags
	read     readOptions
}

func newPlotCmd(e *env) *cobra.Command {
	o := &plotOptions{}
	cmd := filesCmd(cmdHelp{
		use:   "plot RESULTS.jsonl… -o DIR",
		short: "Draw figures (PNG and SVG) from results files",
		long: `plot reads results.jsonl files and draws, as PNG and SVG:
  throughput           ops/s (and calls/s) against connections, with the knee, peak, USL fit
  latency              p50 and p99 against connections
  latency-throughput   p99 against ops/s: the price of the last few percent of throughput
  pool-grid            throughput and p99 over concurrency × maxPoolSize (a --pool list sweep)
  comparison           several targets overlaid, with the ratio of peaks
  time-breakdown       where call time went: pool wait, server time, the rest (needs telemetry)
  open-latency         open loop (sweep --rate): corrected p50 and p99 against offered rate, per pool
  open-achieved        open loop: achieved against offered rate, with the diagonal
  open-pool-wait       open loop: share of the latency spent waiting for a connection, per pool
A figure that does not apply to the results is skipped with a note.

--steady [TARGET:]C[,trial] draws instead one step's batch series (steady.png/.svg): its
rate per batch against time since the warm-up began, MSER-5's truncation point, the
window's start and end, and the window's mean ± its 95% half-width, all as the step
recorded them (trial 1 unless given; TARGET when the files hold several).

Points are the knee analysis's medians over trials with its 95% intervals, and the knee
and peak are analyze's, with the same options (--plateau, --min-gain, --slo-p99). Several
files form series as analyze forms them: steps of one target in several files are
trials of one series. To set two runs of one target side by side, use
poolsweep compare --plot-dir, or poolsweep report A B.`,
		example: `  poolsweep plot poolsweep-out/20261130-101500-1a2b/results.jsonl -o figures
  poolsweep plot standalone/results.jsonl sharded/results.jsonl -o cmp --figure throughput,comparison
  poolsweep plot poolsweep-out/20261130-101500-1a2b/results.jsonl -o figures --steady 16,2`,
	}, "plot: give one or more results.jsonl files", func(ctx context.Context, args []string) error { return o.run(ctx, e, args) })
	textVarP(cmd.Flags(), &o.out, "out", "o", "", "a directory, made through outfile", nil, "directory to write the figures into, made if absent (required; its parent must exist)")
	choiceVar(cmd.Flags(), &o.figures, "figure", "", plot.AllFigures, true, "comma-separated figures to draw (default: all that apply): "+strings.Join(plot.AllFigures, ","))
	textVar(cmd.Flags(), &o.steady, "steady", "", "[TARGET:]C|R/s[,trial]", checkSteadyStep, "draw only one step's batch series with its MSER-5 truncation point and window interval: concurrency C, or an open-loop step's offered rate R/s (its achieved rate), trial (default 1), TARGET when several, e.g. 16 or 16,2 or sharded:16 or 1000/s")
	o.analysis.add(cmd.Flags())
	o.read.addFlag(cmd.Flags())
	return cmd
}

// checkSteadyStep checks a --steady value as it is parsed.
func checkSteadyStep(s string) error {
	_, err := plot.ParseSteadyStep(s)
	return err
}

// steadyOption is the --steady step to draw, nil when not asked for.
func steadyOption(s string) *plot.SteadyStep {
	if s == "" {
		return nil
	}
	sel, _ := plot.ParseSteadyStep(s) // checked as the flag was parsed (checkSteadyStep)
	return &sel
}

func (o *plotOptions) run(ctx context.Context, e *env, args []string) error {
	if o.out == "" {
		return errext.Usagef("-o/--out: required (the directory for the figures)")
	}
	if err := outfile.CheckDir(o.out); err != nil {
		return errext.Usagef("-o: %w", err)
	}
	if err := plot.CheckNames(o.out); err != nil { // before the inputs are read
		return errext.Usagef("-o: %w", err)
	}
	which, err := figureList(o.figures)
	if err != nil {
		return err
	}
	opts, err := o.analysis.options()
	if err != nil {
		return err
	}
	rs, err := o.read.files(ctx, args, e.stderr)
	if err != nil {
		return err
	}
	if o.steady != "" && which != nil {
		return errext.Usagef("--steady: draws one figure of its own; leave out --figure")
	}
	figs, notes, err := plot.Figures(rs, analysis.Of(rs, opts), plot.Options{Figures: which, Steady: steadyOption(o.steady)})
	if err != nil && o.steady != "" {
		return errext.Usagef("--steady: %w", err)
	}
	if err != nil {
		return errext.UsageError{Err: err}
	}
	paths, err := writeFigures(e, "-o", o.out, figs, notes)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintln(e.stdout, textfmt.Escape(p))
	}
	return nil
}

// writeFigures writes figs into dir, the directory the flag named (made
// if absent, by outfile's rules), and returns the paths written. A
// figure's file that outfile refuses there is the flag's usage error,
// found before anything is written or any of the figures' notes is
// printed.
func writeFigures(e *env, flag, dir string, figs []plot.Figure, notes []string) ([]string, error) {
	if err := plot.CheckFiles(dir, figs); err != nil {
		return nil, errext.Usagef("%s: %w", flag, err)
	}
	for _, n := range notes {
		fmt.Fprintln(e.stderr, "note:", n)
	}
	if err := outfile.MakeDir(dir); err != nil {
		return nil, errext.Usagef("%s: %w", flag, err)
	}
	return plot.WriteFiles(dir, figs)
}

func figureList(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(f)) // each one of plot.AllFigures (choiceVar)
	}
	return out, nil
}
