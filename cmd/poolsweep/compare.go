package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/compare"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plot"
)

// maxMinEffect bounds --min-effect, in percent: a change ten times the
// baseline is still a change.
const maxMinEffect = 1000

type compareOptions struct {
	format    string
	baseline  string
	candidate string
	alpha     float64
	minEffect float64
	plotDir   string
	read      readOptions
}

func newCompareCmd(e *env) *cobra.Command {
	o := &compareOptions{}
	cmd := filesCmd(cmdHelp{
		use:   "compare BASELINE.jsonl [CANDIDATE.jsonl]",
		short: "A/B comparison of two runs: what a server setting or a topology costs, with statistics",
		long: `compare pairs the steps of two runs (by target, workload, concurrency, pool and clients)
and reports, per step, the change in throughput, average and p99 read and write latency,
server and client CPU and errors, with a confidence interval and "~" where the difference
is not significant (Mann–Whitney with 4+ trials per side, Welch's t with 3; fewer trials
are shown as unconfirmed and never called a change). It ends with a verdict per
workload in the style of "mixed read/write: throughput −17% [−20%, −14%], ...".

One results file holding two targets (a sweep with --target a=… --target b=…,
best with --order interleaved) is compared with --baseline a --candidate b.`,
		example: `  poolsweep compare audit-off/results.jsonl audit-on/results.jsonl
  poolsweep compare ab/results.jsonl --baseline standalone --candidate sharded --format markdown
  poolsweep compare before.jsonl after.jsonl --format json`,
	}, "compare: give BASELINE.jsonl CANDIDATE.jsonl, or one file with --baseline and --candidate", func(ctx context.Context, args []string) error { return o.run(ctx, e, args) })
	f := cmd.Flags()
	choiceVar(f, &o.format, "format", "text", []string{"text", "markdown", "json"}, false, "text, markdown or json")
	textVar(f, &o.baseline, "baseline", "", "a target name of the results file", nil, "baseline target name (to compare two targets of one results file)")
	textVar(f, &o.candidate, "candidate", "", "a target name of the results file", nil, "candidate target name")
	floatVar(f, &o.alpha, "alpha", compare.DefaultAlpha, 0, 1, true, true, "significance level, above 0 and below 1")
	textVar(f, &o.plotDir, "plot", "", "a directory, made through outfile", nil, "also draw the A/B figures (overlaid throughput, Δ% per metric) into this directory, made if absent (its parent must exist)")
	floatVar(f, &o.minEffect, "min-effect", 0, 0, maxMinEffect, false, false, "call significant changes smaller than this many percent no change, 0 to 1000 (0 = off)")
	o.read.addFlag(f)
	return cmd
}

func (o *compareOptions) run(ctx context.Context, e *env, args []string) error {
	switch {
	case len(args) > 2:
		return usagef("compare: give BASELINE.jsonl CANDIDATE.jsonl, or one file with --baseline and --candidate")
	case len(args) == 1 && (o.baseline == "" || o.candidate == ""):
		return usagef("--baseline/--candidate: with one results file, name the two targets to compare")
	}
	if len(args) == 2 && sameFile(args[0], args[1]) {
		return usagef("compare: %s is both baseline and candidate; to compare two targets of one file, give it once with --baseline and --candidate", args[0])
	}
	if len(args) == 1 && o.baseline == o.candidate {
		return usagef("--baseline/--candidate: %q against itself is not a comparison", o.baseline)
	}
	if o.plotDir != "" {
		if err := outfile.CheckDir(o.plotDir); err != nil {
			return usagef("--plot: %v", err)
		}
	}
	base, err := o.read.files(ctx, args[:1], e.stderr)
	if err != nil {
		return err
	}
	cand := base
	if len(args) == 2 {
		if cand, err = o.read.files(ctx, args[1:], e.stderr); err != nil {
			return err
		}
	}
	c, err := compare.Match(base, cand, compare.Options{Baseline: o.baseline, Candidate: o.candidate, Alpha: o.alpha, MinEffectPct: o.minEffect})
	if err != nil {
		return usageError{err}
	}
	if o.plotDir != "" {
		// Each side's knees are analyze's with its defaults; one file
		// holding both sides is analysed once.
		bs := plot.Side{Results: base, Analysis: analysis.Of(base, knee.DefaultOptions())}
		cs := bs
		if len(args) == 2 {
			cs = plot.Side{Results: cand, Analysis: analysis.Of(cand, knee.DefaultOptions())}
		}
		figs, notes, err := plot.ABFigures(c, bs, cs)
		if err != nil {
			return fmt.Errorf("A/B figures: %w", err)
		}
		for _, n := range notes {
			fmt.Fprintln(e.stderr, "note:", n)
		}
		if err := plot.CheckFiles(o.plotDir, figs); err != nil {
			return usagef("--plot: %v", err)
		}
		if err := outfile.MakeDir(o.plotDir); err != nil {
			return usagef("--plot: %v", err)
		}
		paths, err := plot.WriteFiles(o.plotDir, figs)
		if err != nil {
			return err
		}
		for _, p := range paths {
			fmt.Fprintln(e.stderr, "wrote", textfmt.Escape(p))
		}
	}
	switch o.format {
	case "markdown":
		return compare.WriteMarkdown(e.stdout, c)
	case "json":
		return compare.WriteJSON(e.stdout, c)
	default:
		return compare.WriteText(e.stdout, c)
	}
}

// sameFile says whether two paths name one file.
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
