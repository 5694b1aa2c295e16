// Package compare is the compare command: two runs, or two series of
// one run, step against step with statistics, and --fail-on-regression
// as a gate.
package compare

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/shared"
	"github.com/poolsweep/poolsweep/compare"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plot"
)

// maxMinEffect bounds --min-effect, in percent: a change ten times the
// baseline is still a change.
const maxMinEffect = 1000

// Options are compare's flags and arguments, as parsed.
type Options struct {
	files     []string // the results files named as arguments
	format    string
	baseline  string
	candidate string
	alpha     float64
	minEffect float64
	plotDir   string
	read      shared.ReadOptions
	failOn    float64 // --fail-on-regression, a percentage (failOnSet: given)
	runNoise  float64 // --run-noise, a percentage (runNoiseSet: given)

	failOnSet, runNoiseSet bool
}

// NewCmdCompare builds the compare command. runF, when not nil, is run with the
// parsed options instead of the command (the flags-only tests).
func NewCmdCompare(e *cmdutil.Env, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	var cmd *cobra.Command
	cmd = shared.FilesCmd(shared.CmdHelp{
		Use:   "compare BASELINE.jsonl [CANDIDATE.jsonl]",
		Short: "A/B comparison of two runs: what a server setting or a topology costs, with statistics",
		Long: `compare pairs the steps of two runs (by target, workload, concurrency, pool and clients)
and reports, per step, the change in throughput, average and p99 read and write latency,
server and client CPU and errors, with a confidence interval and "~" where the difference
is not significant (Mann–Whitney with 4+ trials per side, Welch's t with 3). It ends with a
verdict per workload in the style of "mixed read/write: throughput −17% [−20%, −14%], ...".

One trial a side (auto windows measure each level once) still concludes on throughput:
each window that ended by precision carries the batch-means interval of its rate, and
compare tests the two by Welch's t on those batch means (marked bm). Within one run
(two targets of one file) that is the whole test. Across two runs, windows cannot see
what moves a whole run (a restart, a cold cache, another tenant), so each side's variance
also holds a between-run noise floor, --run-noise (default 3%, measured in
docs/compare.md): a change large against it is concluded, a smaller one is left to
trials, and compare says which sweep to run and about how long it takes. Latency and
CPU need 3 trials a side; with fewer they are shown as unconfirmed.

One results file holding two targets (a sweep with --target a=… --target b=…,
best with --order interleaved) is compared with --baseline a --candidate b.
One results file holding two values of a series axis (sweep --write-concern 1,majority
or --read-preference primary,secondaryPreferred) is compared with --baseline w1
--candidate majority, or --baseline primary --candidate secondaryPreferred: the steps
run with each value are paired on the rest (target, workload, concurrency, pool, clients).
So are two values of a server parameter swept within one run (sweep --server-param
NAME=V1,V2): --baseline NAME=V1 --candidate NAME=V2.

--fail-on-regression 5% makes it a gate: exit status 4 when a step's throughput fell, or
its read or write p99 rose, by more than 5% and compare calls that change significant
(the tests above, at --alpha; at least --min-effect): noise alone, a change inside the
between-run floor, or too few trials to test, never fails it. The regressions are listed after the comparison (on stderr with
--format json).`,
		Example: `  poolsweep compare audit-off/results.jsonl audit-on/results.jsonl
  poolsweep compare ab/results.jsonl --baseline standalone --candidate sharded --format markdown
  poolsweep compare before.jsonl after.jsonl --format json
  poolsweep compare rs/results.jsonl --baseline w1 --candidate majority
  poolsweep compare run/results.jsonl --baseline wiredTigerConcurrentReadTransactions=2 --candidate wiredTigerConcurrentReadTransactions=8
  poolsweep compare baseline/results.jsonl candidate/results.jsonl --fail-on-regression 5%
  poolsweep compare monday.jsonl tuesday.jsonl --run-noise 5%`,
	}, "compare: give BASELINE.jsonl CANDIDATE.jsonl, or one file with --baseline and --candidate", func(ctx context.Context, args []string) error {
		o.files = args
		o.failOnSet, o.runNoiseSet = cmd.Flags().Changed("fail-on-regression"), cmd.Flags().Changed("run-noise")
		if err := o.check(); err != nil {
			return err
		}
		if runF != nil {
			return runF(ctx, o)
		}
		return o.run(ctx, e, o.files)
	})
	f := cmd.Flags()
	cmdutil.ChoiceVar(f, &o.format, "format", "text", []string{"text", "markdown", "json"}, false, "text, markdown or json")
	cmdutil.TextVar(f, &o.baseline, "baseline", "", "a target name, read preference, write concern or NAME=V of the results file", nil, "baseline target name, or read preference, write concern (w1, majority) or server parameter value (NAME=V, sweep --server-param) swept, to compare two series of one results file")
	cmdutil.TextVar(f, &o.candidate, "candidate", "", "a target name, read preference, write concern or NAME=V of the results file", nil, "candidate target name, read preference, write concern or server parameter value (NAME=V)")
	cmdutil.FloatVar(f, &o.alpha, "alpha", compare.DefaultAlpha, 0, 1, true, true, "significance level, above 0 and below 1")
	cmdutil.TextVar(f, &o.plotDir, "plot", "", "a directory, made through outfile", nil, "also draw the A/B figures (overlaid throughput, Δ% per metric) into this directory, made if absent (its parent must exist)")
	cmdutil.PercentVar(f, &o.minEffect, "min-effect", 0, 0, maxMinEffect, "call significant changes smaller than this many percent no change, 0 to 1000% (0 = off)")
	cmdutil.PercentVar(f, &o.failOn, "fail-on-regression", 0, 0, maxMinEffect, "exit 4 when a step is significantly worse than this (say 5%) on throughput or p99, 0 to 1000%")
	cmdutil.PercentVar(f, &o.runNoise, "run-noise", compare.DefaultRunNoisePct, 0, 100,
		"between-run noise floor of a step's throughput (one standard deviation) for one-trial comparisons of two runs, 0 to 100%")
	o.read.AddFlag(f)
	return cmd
}

// check finds every usage error the flags and arguments make alone
// (and the --plot directory's), before runF, so that the flags-only
// tests reach each of them.
func (o *Options) check() error {
	args := o.files
	switch {
	case len(args) > 2:
		return errext.Usagef("compare: give BASELINE.jsonl CANDIDATE.jsonl, or one file with --baseline and --candidate")
	case len(args) == 1 && (o.baseline == "" || o.candidate == ""):
		return errext.Usagef("--baseline/--candidate: with one results file, name the two targets (or read preferences, or write concerns) to compare")
	}
	if len(args) == 2 && cmdutil.SameFile(args[0], args[1]) {
		return errext.Usagef("compare: %s is both baseline and candidate; to compare two targets of one file, give it once with --baseline and --candidate", args[0])
	}
	if len(args) == 1 && o.baseline == o.candidate {
		return errext.Usagef("--baseline/--candidate: %s against itself is not a comparison", textfmt.Token(o.baseline))
	}
	if o.plotDir != "" {
		if err := outfile.CheckDir(o.plotDir); err != nil {
			return errext.Usagef("--plot: %w", err)
		}
		if err := plot.CheckNames(o.plotDir); err != nil { // before the inputs are read
			return errext.Usagef("--plot: %w", err)
		}
		if err := cmdutil.NotInputIn("--plot", o.plotDir, plot.MayWrite, cmdutil.FileArgs("results file", args)); err != nil {
			return err
		}
	}
	return nil
}

// run compares what check let through.
func (o *Options) run(ctx context.Context, e *cmdutil.Env, args []string) error {
	base, err := o.read.Files(ctx, args[:1], e.Stderr)
	if err != nil {
		return err
	}
	cand := base
	if len(args) == 2 {
		if cand, err = o.read.Files(ctx, args[1:], e.Stderr); err != nil {
			return err
		}
	}
	var runNoise *float64
	if o.runNoiseSet {
		runNoise = &o.runNoise
	}
	c, err := compare.Match(base, cand, compare.Options{Baseline: o.baseline, Candidate: o.candidate, Alpha: o.alpha, MinEffectPct: o.minEffect, RunNoisePct: runNoise})
	if err != nil {
		return errext.UsageError{Err: err}
	}
	if o.plotDir != "" && len(c.Steps) == 0 {
		fmt.Fprintln(e.Stderr, "note: --plot: no A/B figures: no step pairs at equal concurrency; the deployments are compared curve against curve")
	} else if o.plotDir != "" {
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
		paths, err := shared.WriteFigures(e, "--plot", o.plotDir, figs, notes)
		if err != nil {
			return err
		}
		for _, p := range paths {
			fmt.Fprintln(e.Stderr, "wrote", textfmt.Escape(p))
		}
	}
	var werr error
	switch o.format {
	case "markdown":
		werr = compare.WriteMarkdown(e.Stdout, c)
	case "json":
		werr = compare.WriteJSON(e.Stdout, c)
	default:
		werr = compare.WriteText(e.Stdout, c)
	}
	if werr != nil || !o.failOnSet {
		return werr
	}
	return o.gate(e, c)
}

// gate lists the regressions beyond --fail-on-regression (after the
// comparison, or on stderr when stdout is JSON) and fails with exit
// status 4 when there are any.
func (o *Options) gate(e *cmdutil.Env, c *compare.Comparison) error {
	regs := c.Regressions(o.failOn)
	w := e.Stdout
	if o.format == "json" {
		w = e.Stderr
	} else {
		fmt.Fprintln(w)
	}
	if err := compare.WriteRegressions(w, regs, o.failOn); err != nil {
		return err
	}
	if len(regs) > 0 {
		return errext.GateError{Msg: fmt.Sprintf("--fail-on-regression: %d significant regression(s) worse than %g%%", len(regs), o.failOn)}
	}
	return nil
}
