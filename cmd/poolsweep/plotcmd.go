package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/compare"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plot"
	"github.com/poolsweep/poolsweep/results"
)

type plotOptions struct {
	out      string
	figures  string
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

Points are the knee analysis's medians over trials with its 95% intervals, and the knee
and peak are analyze's, with the same options (--plateau, --min-gain, --slo-p99). Several
files form series as analyze forms them: steps of one target in several files are
trials of one series. To set two runs of one target side by side, use
poolsweep compare --plot-dir, or poolsweep report A B.`,
		example: `  poolsweep plot poolsweep-out/20261130-101500-1a2b/results.jsonl -o figures
  poolsweep plot standalone/results.jsonl sharded/results.jsonl -o cmp --figure throughput,comparison`,
	}, "plot: give one or more results.jsonl files", func(ctx context.Context, args []string) error { return o.run(ctx, e, args) })
	textVarP(cmd.Flags(), &o.out, "out", "o", "", "a directory, made through outfile", nil, "directory to write the figures into, made if absent (required; its parent must exist)")
	choiceVar(cmd.Flags(), &o.figures, "figure", "", plot.AllFigures, true, "comma-separated figures to draw (default: all that apply): "+strings.Join(plot.AllFigures, ","))
	o.analysis.add(cmd.Flags())
	o.read.addFlag(cmd.Flags())
	return cmd
}

func (o *plotOptions) run(ctx context.Context, e *env, args []string) error {
	if o.out == "" {
		return usagef("-o/--out: required (the directory for the figures)")
	}
	if err := outfile.CheckDir(o.out); err != nil {
		return usagef("-o: %v", err)
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
	figs, notes, err := plot.FiguresWith(rs, plot.AnalyzeWith(rs, opts), plot.AnalyzeOpenWith(rs, opts), which)
	if err != nil {
		return usageError{err}
	}
	if err := checkFigurePaths("-o", o.out, figs); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(e.stderr, "note:", n)
	}
	if err := outfile.MakeDir(o.out); err != nil {
		return usagef("-o: %v", err)
	}
	paths, err := plot.WriteFiles(o.out, figs)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintln(e.stdout, textfmt.Escape(p))
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

type reportOptions struct {
	out       string
	format    string
	baseline  string
	candidate string
	analysis  kneeFlags
	read      readOptions
}

func newReportCmd(e *env) *cobra.Command {
	o := &reportOptions{}
	cmd := filesCmd(cmdHelp{
		use:   "report RESULTS.jsonl… -o report.html",
		short: "Write one self-contained HTML (or Markdown) report: header, verdicts, figures, step table",
		long: `report writes a capacity-planning report from results files: the run's targets,
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
report did not name is replaced. The directory the report goes into must exist.`,
		example: `  poolsweep report poolsweep-out/20261130-101500-1a2b/results.jsonl -o report.html
  poolsweep report run/results.jsonl --format markdown -o report.md      # figures in report_files/
  poolsweep report run/results.jsonl --slo-p99 20ms -o report.html
  poolsweep report audit-off/results.jsonl audit-on/results.jsonl -o ab.html     # with an A/B section
  poolsweep report ab/results.jsonl --baseline standalone --candidate sharded -o ab.html`,
	}, "report: give one or more results.jsonl files", func(ctx context.Context, args []string) error { return o.run(ctx, e, args) })
	textVarP(cmd.Flags(), &o.out, "out", "o", "", "a file, written through outfile", nil, "report file to write (required)")
	choiceVar(cmd.Flags(), &o.format, "format", "html", []string{"html", "markdown"}, false, "html or markdown")
	textVar(cmd.Flags(), &o.baseline, "baseline", "", "a target name of the results file", nil, "with one results file of two targets: the baseline target for the A/B section")
	textVar(cmd.Flags(), &o.candidate, "candidate", "", "a target name of the results file", nil, "the candidate target for the A/B section")
	o.analysis.add(cmd.Flags())
	o.read.addFlag(cmd.Flags())
	return cmd
}

func (o *reportOptions) run(ctx context.Context, e *env, args []string) error {
	if o.out == "" {
		return usagef("-o/--out: required (the report file)")
	}
	if err := checkReportPath(o.out, o.format); err != nil {
		return err
	}
	opts, err := o.analysis.options()
	if err != nil {
		return err
	}
	if (o.baseline == "") != (o.candidate == "") {
		return usagef("--baseline/--candidate: give both target names, or neither")
	}
	if len(args) == 2 && sameFile(args[0], args[1]) {
		return usagef("report: %s is given twice; an A/B report needs two different runs", args[0])
	}
	if len(args) > 1 && o.baseline != "" {
		return usagef("--baseline/--candidate: name two targets of one results file; two files are already an A/B pair")
	}
	rs, err := o.read.files(ctx, args, e.stderr)
	if err != nil {
		return err
	}
	ab := abRequest{baseline: o.baseline, candidate: o.candidate}
	if len(rs) == 2 || o.baseline != "" {
		ab.want = true
	}
	if err := writeReportWith(o.out, o.format, rs, ab, opts, e); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, textfmt.Escape(o.out))
	return nil
}

// abRequest asks for an A/B section: two files, or one file's two targets.
type abRequest struct {
	want                bool
	baseline, candidate string
}

// writeReport is writeReportWith and analyze's default options.
func writeReport(path, format string, rs []*results.Results, ab abRequest, e *env) error {
	return writeReportWith(path, format, rs, ab, knee.DefaultOptions(), e)
}

// writeReportWith draws every applicable figure and writes the report; for
// Markdown the PNGs (and SVGs) go into its figures directory (see
// figuresDir). The analysis is
// analyze's with opts: across all files, or each file on its own when two
// files form an A/B pair. With an A/B request the comparison's verdicts,
// table and figures are included.
func writeReportWith(path, format string, rs []*results.Results, ab abRequest, opts knee.Options, e *env) error {
	each := ab.want && len(rs) == 2
	rep := &plot.Report{Results: rs, Each: each, Options: &opts, Open: plot.AnalyzeOpenWith(rs, opts)}
	var notes []string
	var err error
	if each {
		rep.Analyses = plot.AnalyzeEach(rs, opts)
		rep.Figures, notes, err = plot.FiguresEach(rs, rep.Analyses, nil)
	} else {
		rep.Analyses = plot.AnalyzeWith(rs, opts)
		rep.Figures, notes, err = plot.FiguresWith(rs, rep.Analyses, rep.Open, nil)
	}
	if err != nil {
		if errors.Is(err, plot.ErrNoSteps) {
			return usageError{err}
		}
		return err
	}
	rep.Skipped = notes
	if err := checkReportPath(path, format); err != nil {
		return err
	}
	dir, side := filepath.Dir(path), figuresDir(path)
	if ab.want {
		base, cand := rs[:1], rs[len(rs)-1:]
		if ab.baseline != "" {
			base, cand = rs, rs
		}
		c, err := compare.Match(base, cand, compare.Options{Baseline: ab.baseline, Candidate: ab.candidate})
		if err != nil {
			return usageError{fmt.Errorf("A/B section: %w", err)}
		}
		f, abNotes, err := plot.ABFiguresWith(base, cand, c, opts)
		if err != nil {
			return fmt.Errorf("A/B figures: %w", err)
		}
		rep.Comparison, rep.ABFigures = c, f
		notes = append(notes, abNotes...)
	}
	all := append(append([]plot.Figure{}, rep.Figures...), rep.ABFigures...)
	if format == "markdown" {
		// The figures go into the report's figures directory: check them
		// all before writing any, so that a bad name among them leaves
		// nothing half done.
		if err := checkFigurePaths("-o", filepath.Join(dir, side), all); err != nil {
			return err
		}
	}
	if e != nil {
		for _, n := range notes {
			fmt.Fprintln(e.stderr, "note:", n)
		}
	}
	write := rep.WriteHTML
	if format == "markdown" {
		rep.PNGNames, rep.ABPNGNames = linkNames(side, rep.Figures), linkNames(side, rep.ABFigures)
		write = rep.WriteMarkdown
		figDir, err := outfile.MakeOwnDir(dir, side)
		if err != nil {
			return usagef("-o: %v", err)
		}
		if _, err := plot.WriteFiles(figDir, all); err != nil {
			return err
		}
	}
	if err := outfile.Write(path, write); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// checkReportPath refuses a report path that is not a regular file (or
// absent) in an existing writable directory, and for Markdown a figures
// directory that is not a real directory: before any work, one line
// naming -o. The directory is never created.
func checkReportPath(path, format string) error {
	if err := outfile.Check(path); err != nil {
		return usagef("-o: %v", err)
	}
	if format == "markdown" {
		if err := outfile.CheckOwnDir(filepath.Dir(path), figuresDir(path)); err != nil {
			return usagef("-o: %v", err)
		}
	}
	return nil
}

// figuresDir names the directory a Markdown report's figures go into,
// beside it and named after it (r.md → r_files), so that writing the
// report replaces no file the user did not name.
func figuresDir(report string) string {
	base := filepath.Base(report)
	return strings.TrimSuffix(base, filepath.Ext(base)) + "_files"
}

// linkNames are the links to figs' PNGs in the figures directory side,
// relative to the report, escaped for a Markdown link.
func linkNames(side string, figs []plot.Figure) []string {
	names := plot.PNGNames(figs)
	for i, n := range names {
		names[i] = url.PathEscape(side) + "/" + url.PathEscape(n)
	}
	return names
}

// checkFigurePaths refuses figure files in dir that could not be written
// as regular files, before any is written, naming flag.
func checkFigurePaths(flag, dir string, figs []plot.Figure) error {
	if _, err := os.Lstat(dir); err != nil {
		return nil // made fresh: every file in it is new
	}
	for _, p := range plot.Paths(dir, figs) {
		if err := outfile.Check(p); err != nil {
			return usagef("%s: %v", flag, err)
		}
	}
	return nil
}
