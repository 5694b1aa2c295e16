// Package plot is the plot command: it draws the figures of results
// files (PNG and SVG) into a directory, through the plot package.
package plot

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/shared"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plot"
)

// Options are plot's flags and arguments, as parsed.
type Options struct {
	files    []string // the results files named as arguments
	out      string
	figures  string
	steady   string
	analysis shared.KneeFlags
	read     shared.ReadOptions
}

// NewCmdPlot builds the plot command. runF, when not nil, is run with the
// parsed options instead of the command (the flags-only tests).
func NewCmdPlot(e *cmdutil.Env, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := shared.FilesCmd(shared.CmdHelp{
		Use:   "plot RESULTS.jsonl… -o DIR",
		Short: "Draw figures (PNG and SVG) from results files",
		Long: `plot reads results.jsonl files and draws, as PNG and SVG:
  throughput           ops/s (and calls/s) against connections, with the knee, peak, USL fit
  latency              p50 and p99 against connections
  latency-throughput   p99 against ops/s: the price of the last few percent of throughput
  pool-grid            throughput and p99 over concurrency × maxPoolSize (a --pool list sweep)
  comparison           several targets overlaid, with the ratio of peaks
  time-breakdown       where call time went: pool wait, server time, the rest (needs telemetry)
  router-pool          a sharded cluster: the busiest router pool to a shard host against
                       connections per client, with ShardingTaskExecutorPoolMaxSize
  open-latency         open loop (sweep --rate): corrected p50 and p99 against offered rate, per pool
  open-achieved        open loop: achieved against offered rate, with the diagonal
  open-pool-wait       open loop: share of the latency spent waiting for a connection, per pool
  timeline             profile steps (sweep --profile): calls/s, p99 and connections against
                       time, one colour per pool setting, the profile's phases marked
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
		Example: `  poolsweep plot poolsweep-out/20261130-101500-1a2b/results.jsonl -o figures
  poolsweep plot standalone/results.jsonl sharded/results.jsonl -o cmp --figure throughput,comparison
  poolsweep plot poolsweep-out/20261130-101500-1a2b/results.jsonl -o figures --steady 16,2`,
	}, "plot: give one or more results.jsonl files", func(ctx context.Context, args []string) error {
		o.files = args
		if err := o.check(); err != nil {
			return err
		}
		if runF != nil {
			return runF(ctx, o)
		}
		return o.run(ctx, e, o.files)
	})
	cmdutil.TextVarP(cmd.Flags(), &o.out, "out", "o", "", "a directory, made through outfile", nil, "directory to write the figures into, made if absent (required; its parent must exist)")
	cmdutil.ChoiceVar(cmd.Flags(), &o.figures, "figure", "", plot.AllFigures, true, "comma-separated figures to draw (default: all that apply): "+strings.Join(plot.AllFigures, ","))
	cmdutil.TextVar(cmd.Flags(), &o.steady, "steady", "", "[TARGET:]C|R/s[,trial]", shared.CheckSteadyStep, "draw only one step's batch series with its MSER-5 truncation point and window interval: concurrency C, or an open-loop step's offered rate R/s (its achieved rate), trial (default 1), TARGET when several, e.g. 16 or 16,2 or sharded:16 or 1000/s")
	o.analysis.Add(cmd.Flags())
	o.read.AddFlag(cmd.Flags())
	return cmd
}

// check finds every usage error the flags and arguments make alone (and
// -o's directory), before runF, so that the flags-only tests reach each
// of them.
func (o *Options) check() error {
	if o.out == "" {
		return errext.Usagef("-o/--out: required (the directory for the figures)")
	}
	if err := outfile.CheckDir(o.out); err != nil {
		return errext.Usagef("-o: %w", err)
	}
	if err := plot.CheckNames(o.out); err != nil { // before the inputs are read
		return errext.Usagef("-o: %w", err)
	}
	if err := cmdutil.NotInputIn("-o", o.out, plot.MayWrite, cmdutil.FileArgs("results file", o.files)); err != nil {
		return err
	}
	if o.steady != "" && o.figures != "" {
		return errext.Usagef("--steady: draws one figure of its own; leave out --figure")
	}
	_, err := o.analysis.Options()
	return err
}

// run draws what check let through.
func (o *Options) run(ctx context.Context, e *cmdutil.Env, args []string) error {
	which, err := figureList(o.figures)
	if err != nil {
		return err
	}
	opts, err := o.analysis.Options()
	if err != nil {
		return err
	}
	rs, err := o.read.Files(ctx, args, e.Stderr)
	if err != nil {
		return err
	}
	figs, notes, err := plot.Figures(rs, analysis.Of(rs, opts), plot.Options{Figures: which, Steady: shared.SteadyOption(o.steady)})
	if err != nil && o.steady != "" {
		return errext.Usagef("--steady: %w", err)
	}
	if err != nil {
		return errext.UsageError{Err: err}
	}
	paths, err := shared.WriteFigures(e, "-o", o.out, figs, notes)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintln(e.Stdout, textfmt.Escape(p))
	}
	return nil
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
