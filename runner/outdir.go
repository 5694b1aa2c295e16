package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plot"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
)

// NewRunID is runID, or a fresh name when it is "".
func NewRunID(runID string) string {
	if runID != "" {
		return runID
	}
	return sweep.NewRunID(time.Now(), uint16(rand.IntN(1<<16)))
}

// DefaultOutDir is where results go without --out: each agent (a nil
// agents: alone) in its own directory of the run's, so that agents
// sharing a file system do not collide and merge finds them together.
func DefaultOutDir(runID string, agents *AgentOptions) string {
	if agents != nil {
		return filepath.Join("poolsweep-out", runID, fmt.Sprintf("agent-%d", agents.Index))
	}
	return filepath.Join("poolsweep-out", runID)
}

// CheckNamedDir refuses a --resume or --out directory that cannot take
// the run's files before anything is read (the workload file, a storm
// run, the run to resume) or started; Run checks again, with every name,
// once the run is named.
func CheckNamedDir(out, resume string, noPlot bool) error {
	switch {
	case resume != "":
		if err := outfile.CheckDir(resume); err != nil {
			return errext.Usagef("--resume: %w", err)
		}
		// The run to resume is its results file: a directory that does
		// not exist, or holds no writable results.jsonl, is refused here
		// as Run would refuse it.
		if err := outfile.Check(filepath.Join(resume, "results.jsonl")); err != nil {
			return errext.Usagef("--resume: %w", err)
		}
		return checkArtifacts(noPlot, "--resume", resume)
	case out != "":
		if err := outfile.CheckDir(out); err != nil {
			return errext.Usagef("--out: %w", err)
		}
		return checkArtifacts(noPlot, "--out", out)
	}
	return nil
}

// outputDir settles where results go: the run being resumed (read into
// session.Previous), --out, or a new directory named after the run; it
// refuses a place that cannot take them before anything connects: a
// results.jsonl already there (or a symlink in its place), and a report
// or figure name that is a symlink or not a regular file, which the end
// of the run would have to skip.
func (o *Options) outputDir(ctx context.Context, session *sweep.Session) (string, error) {
	if o.Resume != "" {
		if o.Out != "" && filepath.Clean(o.Out) != filepath.Clean(o.Resume) {
			return "", errext.Usagef("--resume: results go back into %s; drop --out", o.Resume)
		}
		if err := outfile.CheckDir(o.Resume); err != nil {
			return "", errext.Usagef("--resume: %w", err)
		}
		path := filepath.Join(o.Resume, "results.jsonl")
		if err := outfile.Check(path); err != nil {
			return "", errext.Usagef("--resume: %w", err)
		}
		if err := checkArtifacts(o.NoPlot, "--resume", o.Resume); err != nil { // every output name before the input is read
			return "", err
		}
		prev, err := results.ReadFileWith(ctx, path, o.Read)
		if err != nil {
			if ctx.Err() != nil {
				return "", errext.Usagef("--resume: %w", errext.InterruptedBy(ctx))
			}
			// Paths and decoding errors may carry bytes from outside.
			return "", errext.Usagef("--resume: %w", textfmt.EscapeError(err))
		}
		session.Previous, session.RunID = prev, prev.Header.RunID
		return o.Resume, nil
	}
	dir := o.Out
	if dir == "" {
		dir = DefaultOutDir(session.RunID, o.Agents)
	}
	if err := o.checkOutDir(dir); err != nil {
		return "", errext.Usagef("--out: %w", err)
	}
	results := filepath.Join(dir, "results.jsonl")
	if _, err := os.Lstat(results); err == nil {
		if err := outfile.Check(results); err != nil {
			return "", errext.Usagef("--out: %w", err)
		}
		return "", errext.Usagef("--out: %s already holds a results.jsonl; choose another directory, or continue it with --resume %s", dir, dir)
	}
	if err := checkArtifacts(o.NoPlot, "--out", dir); err != nil {
		return "", err
	}
	session.MakeDir = func() error { return o.makeOutDir(dir) }
	return dir, nil
}

// checkOutDir checks the output directory of a new run: the one the user
// named (--out), which poolsweep makes one level deep if it is absent, or
// the default ./poolsweep-out/RUN-ID, poolsweep's own names, which must be
// real directories where they exist.
func (o *Options) checkOutDir(dir string) error {
	if o.Out != "" {
		return outfile.CheckDir(dir)
	}
	return outfile.CheckOwnDir(".", dir)
}

// makeOutDir makes the output directory checkOutDir accepted.
func (o *Options) makeOutDir(dir string) error {
	if o.Out != "" {
		return outfile.MakeDir(dir)
	}
	_, err := outfile.MakeOwnDir(".", dir)
	return err
}

// Writes says whether name is a file a run may write over in its output
// directory: the results (--spawn merges its agents' into results.jsonl),
// report.html and the figures. Its other files (an agent's log or
// directory) are created new, never written over.
func Writes(name string) bool {
	return name == "results.jsonl" || name == "report.html" || plot.MayWrite(name)
}

// checkArtifacts refuses an existing output directory in which the report
// or a figure drawn at the end of the run could not be written (unless
// noPlot): it is known before the run starts, not after it.
func checkArtifacts(noPlot bool, flag, dir string) error {
	if noPlot {
		return nil
	}
	if _, err := os.Lstat(filepath.Clean(dir)); err != nil {
		return nil // made fresh: every file in it is new
	}
	if err := plot.CheckNames(dir); err != nil {
		return errext.Usagef("%s: %w", flag, err)
	}
	if err := outfile.Check(filepath.Join(dir, "report.html")); err != nil {
		return errext.Usagef("%s: %w", flag, err)
	}
	return nil
}
