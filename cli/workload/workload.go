// Package workload is the workload command: the user's own workload,
// derived from what their deployment ran. Its one subcommand,
// from-log, reads mongod logs, system.profile exports or $queryStats
// output (querylog), groups the operations into shapes (workload/derive)
// and writes the workload file (workload/shapes).
package workload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/loadprofile"
	"github.com/poolsweep/poolsweep/querylog"
	"github.com/poolsweep/poolsweep/workload/derive"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// NewCmdWorkload builds "poolsweep workload". Its flags are from-log's,
// declared here so that every check that walks the commands' flags walks
// them too. runF, when not nil, is run with from-log's parsed options
// instead of the command (the flags-only tests).
func NewCmdWorkload(e *cmdutil.Env, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "workload",
		Short: "Derive a workload file (query shapes and their shares) from a deployment's log, profiler or $queryStats",
		Long: `workload derives the user's own workload from what a deployment ran: its query shapes,
each with its share of the operations, the distributions of its values, and what was
observed of it (docs/workload-file.md). sweep --workload-file replays such a file.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return errext.Usagef("unknown command workload %s; see poolsweep workload --help", textfmt.Token(args[0]))
			}
			return cmd.Help()
		},
	}
	f := cmd.PersistentFlags()
	cmdutil.TextVarP(f, &o.out, "out", "o", "", "a file, written through outfile", nil, "from-log: the workload file to write (default: standard output)")
	cmdutil.ChoiceVar(f, &o.format, "format", "yaml", []string{"yaml", "json"}, false, "from-log: yaml (the workload file) or json (the derived shapes with their shares)")
	cmdutil.TextVar(f, &o.app, "app", "", "an appName", nil, "from-log: keep only the operations of this appName (the client's application name)")
	cmdutil.TextVar(f, &o.rateTrace, "rate-trace", "", "a file, written through outfile", nil, "from-log: also write the kept operations' arrivals per second as a rate trace (CSV t_s,rate) for sweep --profile trace:FILE")
	// Cobra merges a command's persistent flags into its Flags() only when
	// it parses them; merged now, they are in Flags() for whoever walks
	// them (the hostile-value tests).
	cmd.Flags().AddFlagSet(f)
	cmd.AddCommand(newFromLogCmd(e, o, runF))
	return cmd
}

// Options are from-log's flags and arguments, as parsed.
type Options struct {
	files  []string // the inputs named as arguments
	out    string
	format string
	app    string
	// rateTrace is the rate trace's file (--rate-trace), "" for none.
	rateTrace string
}

func newFromLogCmd(e *cmdutil.Env, o *Options, runF func(context.Context, *Options) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "from-log FILE… [-o WORKLOAD] [--format yaml|json] [--app NAME] [--rate-trace CSV]",
		Short: "Derive a workload file from mongod logs, a system.profile export or $queryStats output",
		Long: `from-log reads what a deployment ran and writes a workload file: the query shapes as
$queryStats makes them (the command with its values replaced by their types: the
filter's fields and operators, the projection, sort and limit, the update's operators,
the pipeline's stages), each with its share of the operations, the distribution of the
values each placeholder took (empirical, or a fitted uniform or zipfian with the fit
stated), the result documents' sizes, and the latency, documents examined and plan
observed (kept as a sanity check for the replay).

It reads, detecting the format of each file (all files must be of one format):
  mongod's JSON log (4.4 and later, .gz too)   the "Slow query" lines (id 51803); the
      slowms and sample rate they were logged at come from the startup options and
      setProfilingLevel's lines. A mongos log is refused: give the shards' logs.
  system.profile exported as JSON               mongoexport -d DB -c system.profile, relaxed
      or canonical extended JSON, a document a line or --jsonArray.
  $queryStats output (MongoDB 8.0)              a document a line or a JSON array; shapes and
      execCounts, no values.

Only the application's operations become shapes. The server's own work (its threads'
lines, such as LogicalSessionCacheRefresh; admin, config, local and system.* namespaces),
monitoring and GUI tools' commands (Compass, the agents), statistics aggregations
($collStats, $indexStats, …) and commands mongod cut at maxLogSizeKB are left out and
counted by kind, in the caveats and in source.left_out.

What it cannot know is said in the file's caveats: shares are of the logged operations
unless the log was written at slowms 0 (or the profiler ran at level 2); values hidden by
redactClientLogData are known only by their types; what the inserts' lines held of their
documents. A log of slow operations only is still read, and says so. To log every
operation for a while: db.setProfilingLevel(0, {slowms: 0}), and set it back afterwards.

--rate-trace FILE also writes the operations' arrivals per second as a rate trace (CSV
t_s,rate) for sweep --profile trace:FILE: the operations the workload file keeps, each at
the second it started (its logged time less its duration), scaled by 1/rate where the
log says a sample rate below 1. Unless the log was written at slowms 0, it is a lower
bound of the arrivals (mongod logs only operations slower than slowms); its notes say
so. $queryStats output has no times; logs spanning more than 24 h are refused
(docs/profiles.md).

Without -o the workload file (YAML) goes to standard output; --format json writes the
derived shapes, each with its share, as JSON instead. --app NAME keeps only the
operations of that appName. Lines that cannot be read, and operations a workload file
cannot hold (a name MongoDB refuses, nesting deeper than 32, text that is not UTF-8),
are left out with a warning on standard error naming their file and line; nothing a
file holds is quoted. Up to 32 lines before a file's first JSON line (a wrapper's, such as
"nohup: ignoring input") are skipped, with a warning. Inputs are bounded: lines over
4 MiB are skipped unread, a JSON array is read an element at a time (each at most
4 MiB), all files together may hold 8 GiB, and a file that grows while read is read to
its size when opened.

Exit status: 0 done; 1 a file could not be written; 2 bad input: a flag, a path, a
file that is not one of the formats, or inputs with no operation of a workload.`,
		Example: `  poolsweep workload from-log /var/log/mongodb/mongod.log -o shop.yaml
  poolsweep workload from-log mongod.log mongod.log.1.gz --app checkout -o checkout.yaml
  poolsweep workload from-log mongod.log -o shop.yaml --rate-trace shop-rate.csv
  poolsweep workload from-log mongod.log --format json | jq '.shapes[] | {name, share}'
  mongoexport -d shop -c system.profile -o profile.json && poolsweep workload from-log profile.json
  mongosh --quiet --eval 'db.getSiblingDB("admin").aggregate([{$queryStats: {}}]).forEach(d => print(EJSON.stringify(d)))' > qs.json
  poolsweep workload from-log qs.json -o reads.yaml`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errext.Usagef("workload from-log: give one or more mongod logs, system.profile exports or $queryStats files")
			}
			o.files = args
			return nil
		},
		RunE: cmdutil.RunSeam(o, o.check, runF, func(ctx context.Context) error { return o.run(ctx, e) }),
	}
	// Its flags are workload's (see NewCmdWorkload): cobra would list them
	// as "Global Flags".
	cmd.SetUsageTemplate(strings.Replace(cmd.UsageTemplate(), "Global Flags:", "Flags of from-log:", 1))
	return cmd
}

// check finds every usage error the flags and arguments make alone (and
// the output files'), before runF, so that the flags-only tests reach
// each of them.
func (o *Options) check() error {
	args := o.files
	if o.out != "" {
		if err := outfile.Check(o.out); err != nil {
			return errext.Usagef("-o: %w", err)
		}
		if err := cmdutil.NotInput("-o", o.out, cmdutil.FileArgs("log", args)); err != nil {
			return err
		}
	}
	if o.rateTrace != "" {
		if err := outfile.Check(o.rateTrace); err != nil {
			return errext.Usagef("--rate-trace: %w", err)
		}
		ins := cmdutil.FileArgs("log", args)
		if o.out != "" {
			// Two outputs in one file: the second would replace the first.
			ins = append(ins, outfile.Input{What: "-o", Path: o.out})
		}
		if err := cmdutil.NotInput("--rate-trace", o.rateTrace, ins); err != nil {
			return err
		}
	}
	for i, a := range args {
		for _, b := range args[:i] {
			if cmdutil.SameFile(a, b) {
				return errext.Usagef("workload from-log: %s is given twice; its operations would count twice", textfmt.Escape(a))
			}
		}
	}
	return nil
}

// run derives the workload file check let through.
func (o *Options) run(ctx context.Context, e *cmdutil.Env) error {
	args := o.files
	b := derive.NewBuilder()
	emit := b.Add
	var trace *rateTrace
	if o.rateTrace != "" {
		// The operations the workload keeps, and only those: what b.Add
		// leaves out is not counted.
		trace = newRateTrace()
		emit = func(op *querylog.Op) error {
			if err := b.Add(op); err != nil {
				return err
			}
			trace.add(op)
			return nil
		}
	}
	rep, err := querylog.Read(ctx, args, querylog.Options{App: o.app}, emit)
	if rep != nil {
		printWarnings(e.Stderr, rep)
	}
	if err != nil {
		if errors.Is(err, querylog.ErrNoOps) && o.app != "" && rep.OtherApps > 0 {
			return errext.Usagef("--app: no operations of appName %s in the inputs (%d of other appNames)", textfmt.Token(o.app), rep.OtherApps)
		}
		return cmdutil.InputError(ctx, err)
	}
	if trace != nil {
		if err := trace.check(rep.Format); err != nil {
			return errext.Usagef("--rate-trace: %w", err)
		}
	}
	f := b.File(rep, o.app)
	data, err := encodeWorkload(f, o.format)
	if err != nil {
		return fmt.Errorf("workload file: %w", err)
	}
	if trace != nil {
		// Without -o the workload file is standard output: the trace's
		// lines go to standard error, beside the warnings.
		w := e.Stdout
		if o.out == "" {
			w = e.Stderr
		}
		if err := writeTrace(w, o.rateTrace, trace, rep); err != nil {
			return err
		}
	}
	if o.out == "" {
		_, err := e.Stdout.Write(data)
		return err
	}
	if err := outfile.Write(o.out, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		if errors.Is(err, outfile.ErrNotRegular) {
			return errext.Usagef("-o: %w", err)
		}
		return err
	}
	printShapes(e.Stdout, o.out, f)
	return nil
}

// writeTrace writes the rate trace to path and says on w what it counts
// and what it cannot see.
func writeTrace(w io.Writer, path string, trace *rateTrace, rep *querylog.Report) error {
	pts := trace.points()
	if err := outfile.Write(path, func(w io.Writer) error { return loadprofile.WriteTrace(w, pts) }); err != nil {
		if errors.Is(err, outfile.ErrNotRegular) {
			return errext.Usagef("--rate-trace: %w", err)
		}
		return err
	}
	fmt.Fprintf(w, "%s: rate trace (sweep --profile trace:%s)\n", short(path), short(path))
	for _, n := range trace.notes(rep, pts) {
		text := textfmt.Wrap(cmdutil.SafeLine(n), 100)
		fmt.Fprintln(w, strings.Replace(textfmt.Indent(text, "        "), "        ", "  note: ", 1))
	}
	return nil
}

// encodeWorkload is the file in format: YAML (the workload file) or JSON.
func encodeWorkload(f *shapes.File, format string) ([]byte, error) {
	if format != "json" {
		return f.Marshal()
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// printWarnings says on stderr, one line each, what could not be read.
func printWarnings(w io.Writer, rep *querylog.Report) {
	for _, wa := range rep.Warnings {
		fmt.Fprintf(w, "poolsweep: warning: %s\n", cmdutil.SafeLine(wa.String()))
	}
	if rep.WarningsLeftOut > 0 {
		fmt.Fprintf(w, "poolsweep: warning: %d more lines could not be read\n", rep.WarningsLeftOut)
	}
}

// printShapes is what -o wrote, as a person reads it: the shapes with
// their shares, and the caveats. Every line fits the one-line rule
// (textfmt.LineMax): a long path or shape name is shown as a token (cut,
// its length said), and a caveat, which is prose, is wrapped.
func printShapes(w io.Writer, path string, f *shapes.File) {
	fmt.Fprintf(w, "%s: %d shapes of %d operations (%s)\n", short(path), len(f.Shapes), f.Source.Operations, f.Source.Format)
	for _, s := range f.Shapes {
		p50 := "–"
		if l := s.Observed.LatencyMs; l != nil {
			p50 = textfmt.Ms(l.P50) + " ms"
		}
		fmt.Fprintf(w, "  %6.2f%%  %-9s  p50 %-8s  %s\n", 100*s.Share, s.ID, p50, short(s.Name))
	}
	for _, c := range f.Caveats {
		text := textfmt.Wrap(cmdutil.SafeLine(strings.TrimSpace(c)), 100)
		fmt.Fprintln(w, strings.Replace(textfmt.Indent(text, "        "), "        ", "  note: ", 1))
	}
}

// shortMax is the longest path or name printShapes shows whole.
const shortMax = 200

// short is s for one line: escaped, or a token when longer than shortMax.
func short(s string) string {
	if e := textfmt.Escape(s); len(e) <= shortMax {
		return e
	}
	return textfmt.Token(s)
}
