// Package analyze is the analyze command: it reads results files (or a
// CSV of numbers) and prints each series' knee, peak, fit and the pool
// size to use, with --threshold verdicts and --ftdc server numbers.
package analyze

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/shared"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Options are analyze's flags and arguments, as parsed.
type Options struct {
	files    []string // the results files named as arguments
	csv      string
	analysis shared.KneeFlags
	format   string
	read     shared.ReadOptions
	gates    shared.ThresholdFlags
	ftdc     ftdcFlags
}

// NewCmdAnalyze builds the analyze command. runF, when not nil, is run
// with the parsed options instead of the analysis (the flags-only tests).
func NewCmdAnalyze(e *cmdutil.Env, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := shared.FilesCmd(shared.CmdHelp{
		Use:   "analyze RESULTS.jsonl… | --csv FILE",
		Short: "Find the knee, peak, USL fit and a pool-size recommendation for each series",
		Long: `analyze reads results.jsonl files (or a CSV of numbers from YCSB or a spreadsheet) and,
for each series (target × workload × pool setting), reports the peak, the knee by several
independent methods (plateau, Kneedle, marginal gain, SLO, USL fit), where they agree,
how confident that is, whether throughput falls past the peak, and the concurrency and
maxPoolSize to use.

Open-loop runs (sweep --rate) get the open-loop knee instead: per pool size the highest
offered rate carried (achieved ≥ 99% with p99 within --slo-p99, or with latency not yet
growing), and the smallest maxPoolSize that carries the highest such rate.

--ftdc DIR (once per host: a mongod's or mongos's diagnostic.data folder) gives the steps
the server numbers of the deployment's own FTDC, for a run whose account may not run
serverStatus or that ran with --no-telemetry: each host's samples inside a step's window
(started_at for duration_s, on this machine's clock: keep the clocks in sync) are summed
up as the sweep's sampler sums up its own, and the bound rules judge the step from them.
A step that every host's capture covers gets them; one that some host's does not is
judged without them, and says why for each host. Steps that have the sampler's numbers
keep them unless --ftdc-replace. The report ends with each step's source.

A CSV needs a header row with columns concurrency (or connections) and qps; p99_ms,
target, pool, trial, clients and workload are optional.

` + shared.ThresholdHelp + `
With --format json the outcomes are the "thresholds" array, as in a sweep's end record.`,
		Example: `  poolsweep analyze poolsweep-out/20261130-101500-1a2b/results.jsonl
  poolsweep analyze run1/results.jsonl run2/results.jsonl --format json
  poolsweep analyze --csv ycsb-runs.csv --slo-p99 20ms
  poolsweep analyze results.jsonl --ftdc db1/diagnostic.data --ftdc db2/diagnostic.data
  poolsweep analyze results.jsonl --threshold 'p99<20ms@64' --threshold 'ops>5000@knee' --threshold 'errors<0.1%'`,
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
	cmdutil.TextVar(f, &o.csv, "csv", "", "a path, read as a CSV", nil, "read a CSV (concurrency|connections, qps[, p99_ms, target, pool, trial, clients, workload]) instead of results files")
	o.analysis.Add(f)
	cmdutil.ChoiceVar(f, &o.format, "format", "text", []string{"text", "json"}, false, "output format: text or json")
	o.read.AddFlag(f)
	o.gates.Add(f)
	o.ftdc.add(f)
	return cmd
}

// options checks the flags and returns the analysis's options.
func (o *Options) options() (knee.Options, error) {
	return o.analysis.Options()
}

// check finds every usage error the flags and arguments make alone,
// before runF, so that the flags-only tests reach each of them.
func (o *Options) check() error {
	if _, err := o.options(); err != nil {
		return err
	}
	switch {
	case o.csv != "" && len(o.ftdc.dirs) > 0:
		return errext.Usagef("--ftdc: attached to results files' steps, not to --csv")
	case o.ftdc.replace && len(o.ftdc.dirs) == 0:
		return errext.Usagef("--ftdc-replace: needs --ftdc")
	case o.csv != "" && o.gates.Given():
		return errext.Usagef("--threshold: judged on results files' steps, not on --csv")
	case o.csv != "" && len(o.files) > 0:
		return errext.Usagef("--csv: give either results files or --csv, not both")
	case o.csv == "" && len(o.files) == 0:
		return errext.Usagef("analyze: give one or more results.jsonl files, or --csv FILE")
	}
	return nil
}

// run analyses what check let through.
func (o *Options) run(ctx context.Context, e *cmdutil.Env, args []string) error {
	opts, err := o.options()
	if err != nil {
		return err
	}
	var (
		a   *analysis.Analysis
		rs  []*results.Results
		rep *ftdcReport
	)
	switch {
	case o.csv != "":
		series, err := cmdutil.ReadInput(ctx, "--csv", o.csv, cmdutil.MaxCSVBytes, func(r io.Reader) ([]knee.Series, error) { return knee.ReadCSV(r, o.csv) })
		if err != nil {
			return err
		}
		a = analysis.OfSeries(series, opts)
	default:
		var err error
		rs, err = o.read.Files(ctx, args, e.Stderr)
		if err != nil {
			return err
		}
		if len(o.ftdc.dirs) > 0 {
			if rep, err = o.ftdc.attach(ctx, rs, e.Stderr); err != nil {
				return err
			}
		}
		a = analysis.Of(rs, opts)
	}
	if a.Empty() {
		return errext.Usagef("analyze: no measured steps to analyse")
	}
	outcomes := o.gates.Evaluate(rs, a)
	if o.format == "json" {
		if err := writeAnalysisJSON(e.Stdout, a, outcomes, rep); err != nil {
			return err
		}
		return shared.ThresholdsError(outcomes)
	}
	if err := render.Text(e.Stdout, a); err != nil {
		return err
	}
	if err := render.Replays(e.Stdout, a); err != nil {
		return err
	}
	shared.WriteThresholds(e.Stdout, outcomes)
	if rep != nil {
		ew := textfmt.NewErrWriter(e.Stdout)
		rep.writeText(ew)
		if ew.Err != nil {
			return ew.Err
		}
	}
	return shared.ThresholdsError(outcomes)
}

// writeAnalysisJSON is the analysis's document (render.Document), then the threshold outcomes when there are any,
// and what --ftdc attached (server_telemetry) when it was given.
func writeAnalysisJSON(w io.Writer, a *analysis.Analysis, outcomes []results.ThresholdOutcome, rep *ftdcReport) error {
	return render.Encode(w, struct {
		render.Doc
		Thresholds []results.ThresholdOutcome `json:"thresholds,omitempty"`
		FTDC       *ftdcReport                `json:"server_telemetry,omitempty"`
	}{render.Document(a), outcomes, rep})
}
