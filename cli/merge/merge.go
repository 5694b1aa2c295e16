// Package merge is the merge command: the results of the agents of one
// run merged into one results.jsonl.
package merge

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/analysis/timeline"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/shared"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/infile"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Options are merge's flags and arguments, as parsed.
type Options struct {
	files []string // the results files named as arguments
	out   string
	read  shared.ReadOptions
}

// NewCmdMerge builds the merge command. runF, when not nil, is run with the
// parsed options instead of the command (the flags-only tests).
func NewCmdMerge(e *cmdutil.Env, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := shared.FilesCmd(shared.CmdHelp{
		Use:   "merge DIR|FILE... -o OUT",
		Short: "Merge the results of the agents of one run (--agents) into one results.jsonl",
		Long: `merge combines the results.jsonl of every agent of one agent-mode run (sweep --agents N
--agent-index I --run-id NAME on several hosts) into one results file: per step, ops,
calls, errors and connections summed; latency histograms merged, so the percentiles are
exact rather than averaged; each agent's share kept under "agents"; and the skew of the
agents' windows under "window_skew". A merged step counts the clients of the agents
whose records it holds (agents × --clients when every agent measured it), so analyze,
plot, report and compare read it like a --clients run of one process.

A step that some agent has no record of (it was killed, or was not ready within
--agent-timeout) is marked partial, names the agents missing and counts only the others'
clients; analyze leaves partial steps out of the knee and names them. Files of different
runs or plans are refused, naming the file; a histogram that does not decode is named by
its file and step. Each argument is a results file or a directory holding one; OUT is a
file, or a directory to write results.jsonl into (an existing one, or a new one named with
a trailing slash, made if its parent exists).`,
		Example: `  poolsweep merge poolsweep-out/seed003/agent-* -o poolsweep-out/seed003/results.jsonl
  poolsweep merge host1/results.jsonl host2/results.jsonl host3/results.jsonl -o merged/
  poolsweep report merged/results.jsonl -o report.html`,
	}, "merge: give the results of every agent of one run (files, or directories holding results.jsonl)", func(ctx context.Context, args []string) error {
		o.files = args
		if _, _, _, err := o.outputs(); err != nil {
			return err
		}
		if runF != nil {
			return runF(ctx, o)
		}
		return o.run(ctx, e, o.files)
	})
	cmdutil.TextVarP(cmd.Flags(), &o.out, "out", "o", "", "a file or directory, checked by outfile", nil, "the merged results file to write, or a directory for results.jsonl (required)")
	o.read.AddFlag(cmd.Flags())
	return cmd
}

// outputs are the file merge writes, the directory it makes for it ("" for
// none) and the results files it reads, or the usage error the flags and
// arguments make; RunE calls it before runF, so that the flags-only tests
// reach each error.
func (o *Options) outputs() (out, outDir string, paths []string, err error) {
	if o.out == "" {
		return "", "", nil, errext.Usagef("--out: required: the merged results file to write")
	}
	// A directory (existing, or named with a trailing slash) takes
	// results.jsonl; it is made, one level, if absent. A symlink is not
	// taken for a directory: outfile refuses it as the file to write.
	out = o.out
	if fi, err := os.Lstat(out); (err == nil && fi.IsDir()) || strings.HasSuffix(out, string(filepath.Separator)) {
		outDir, out = out, filepath.Join(out, "results.jsonl")
		if err := outfile.CheckDir(outDir); err != nil {
			return "", "", nil, errext.Usagef("--out: %w", err)
		}
	}
	if _, err := os.Lstat(outDir); outDir == "" || err == nil { // else made fresh: the file is new
		if err := outfile.Check(out); err != nil {
			return "", "", nil, errext.Usagef("--out: %w", err)
		}
	}
	paths = make([]string, len(o.files))
	for i, a := range o.files {
		p := a
		if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			p = infile.In(a, "results.jsonl") // the one in the directory Stat found
		}
		paths[i] = p
	}
	if err := cmdutil.NotInput("--out", out, cmdutil.FileArgs("results file", paths)); err != nil {
		return "", "", nil, err
	}
	return out, outDir, paths, nil
}

// run merges what outputs let through.
func (o *Options) run(ctx context.Context, e *cmdutil.Env, args []string) error {
	out, outDir, paths, err := o.outputs()
	if err != nil {
		return err
	}
	res, err := MergeFiles(ctx, paths, o.read, e.Stderr)
	if err != nil {
		return cmdutil.InputError(ctx, err)
	}
	if outDir != "" {
		if err := outfile.MakeDir(outDir); err != nil {
			return errext.Usagef("--out: %w", err)
		}
	}
	if err := WriteMerged(out, res); err != nil {
		return err
	}
	PrintMerged(e.Stdout, out, res, analysis.Of([]*results.Results{res}, knee.DefaultOptions()))
	return nil
}

// MergeFiles reads the agents' results and merges them, each merged step
// labelled by the sweep's own bound rules (results.MergeAgents).
func MergeFiles(ctx context.Context, paths []string, read shared.ReadOptions, warn io.Writer) (*results.Results, error) {
	var files []*results.Results
	for _, p := range paths {
		r, err := results.ReadFileWith(ctx, p, read.Options())
		if err != nil {
			return nil, err
		}
		if read.Lenient {
			shared.WarnAll(warn, r)
		}
		files = append(files, r)
	}
	return results.MergeAgents(files, timeline.LabelMerged(bound.NewJudge(bound.JudgeConfig{}).Judge))
}

// WriteMerged writes the merged results whole, or leaves out as it was;
// its error names out.
func WriteMerged(out string, res *results.Results) error {
	return outfile.Write(out, func(w io.Writer) error { return results.WriteResults(w, res) })
}

// PrintMerged says what was merged, how well the windows lined up, and
// the end-of-run table of res with its analysis a (render.Summary).
func PrintMerged(w io.Writer, out string, res *results.Results, a *analysis.Analysis) {
	agents := res.Header.Agents
	partial := 0
	maxStart, maxEnd, minOverlap := 0.0, 0.0, 1.0
	for _, s := range res.Steps {
		if s.Partial {
			partial++
		}
		if k := s.WindowSkew; k != nil {
			maxStart, maxEnd, minOverlap = max(maxStart, k.StartMS), max(maxEnd, k.EndMS), min(minOverlap, k.Overlap)
		}
	}
	fmt.Fprintf(w, "merged run %s: %d of %d agents' results, %d step(s)", cmdutil.SafeLine(res.Header.RunID), len(agents.Merged), agents.Count, len(res.Steps))
	if partial > 0 {
		fmt.Fprintf(w, ", %d partial (see missing_agents)", partial)
	}
	fmt.Fprintf(w, "\nwindows: start skew ≤ %.1f ms, end skew ≤ %.1f ms, overlap ≥ %.1f%%\n\n", maxStart, maxEnd, 100*minOverlap)
	_ = render.Summary(w, res, a)
	fmt.Fprintf(w, "\nresults: %s (end status %s)\n", textfmt.Escape(out), res.End.Status)
}
