// Package report writes the capacity-planning report of some results
// files: each run's header (targets, workload, plan, client machine), the
// verdict of every series, the figures, the step tables in the seeds'
// format, and optionally an A/B section — as one self-contained HTML page,
// or as Markdown with its figures in a directory beside it. It shows a
// finished analysis (package analysis) and its figures (package plot) and
// decides nothing; every file it writes goes through internal/outfile.
package report

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/compare"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/plot"
	"github.com/poolsweep/poolsweep/results"
)

// Formats Write takes.
const (
	HTML     = "html"
	Markdown = "markdown"
)

// AB asks for an A/B section. With two results files the first is the
// baseline and the second the candidate, each analysed on its own
// (analysis.Each); with one file, Baseline and Candidate name two of its
// targets.
type AB struct {
	Baseline, Candidate string
}

// InputError says the results cannot make the report asked for (no step
// to draw, an A/B pair with nothing to match): the input's fault, not a
// failure to write.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// PathError says the path the report was to be written to (or a figure
// beside it) cannot take it: nothing was written.
type PathError struct{ Err error }

func (e *PathError) Error() string { return e.Err.Error() }
func (e *PathError) Unwrap() error { return e.Err }

// New assembles the report of rs from their analysis a: every figure that
// applies and, with ab, the comparison and its figures. It returns the
// notes to tell the user (figures left out and why); the page shows the
// figures' too.
func New(rs []*results.Results, a *analysis.Analysis, ab *AB) (*Report, []string, error) {
	r := &Report{Results: rs, Analysis: a}
	figs, notes, err := plot.Figures(rs, a, plot.Options{})
	if err != nil {
		if errors.Is(err, plot.ErrNoSteps) {
			return nil, nil, &InputError{err}
		}
		return nil, nil, err
	}
	r.Figures, r.Skipped = figs, notes
	if ab == nil {
		return r, notes, nil
	}
	base, cand := plot.Side{Results: rs, Analysis: a}, plot.Side{Results: rs, Analysis: a}
	if ab.Baseline == "" {
		if len(rs) != 2 || len(a.PerFile) != 2 {
			return nil, nil, errors.New("an A/B report takes two results files, each analysed on its own, or two targets of one file")
		}
		base = plot.Side{Results: rs[:1], Analysis: a.PerFile[0]}
		cand = plot.Side{Results: rs[1:], Analysis: a.PerFile[1]}
	}
	c, err := compare.Match(base.Results, cand.Results, compare.Options{Baseline: ab.Baseline, Candidate: ab.Candidate})
	if err != nil {
		return nil, nil, &InputError{fmt.Errorf("A/B section: %w", err)}
	}
	var abFigs []plot.Figure
	abNotes := []string{"a/b figures: skipped: no step pairs at equal concurrency; the deployments are compared curve against curve"}
	if len(c.Steps) > 0 {
		if abFigs, abNotes, err = plot.ABFigures(c, base, cand); err != nil {
			return nil, nil, fmt.Errorf("A/B figures: %w", err)
		}
	}
	r.Comparison, r.ABFigures = c, abFigs
	return r, append(notes, abNotes...), nil
}

// AddSteady adds the figure of one step's batch series (plot's
// Options.Steady) to the report's figures: its MSER-5 truncation point
// and its window's interval, for the step sel names. An error names a step
// that is not there or kept no series (an *InputError).
func (r *Report) AddSteady(sel plot.SteadyStep) error {
	figs, _, err := plot.Figures(r.Results, r.Analysis, plot.Options{Steady: &sel})
	if err != nil {
		return &InputError{fmt.Errorf("steady figure: %w", err)}
	}
	r.Figures = append(r.Figures, figs...)
	return nil
}

// Check refuses, before any work, a path the report could not be written
// to: not a regular file (or absent) in an existing directory, or for
// Markdown a figures directory beside it that is not a real directory, or
// that holds something other than a file at a figure's name.
// Its error is a *PathError.
func Check(path, format string) error {
	if err := outfile.Check(path); err != nil {
		return &PathError{err}
	}
	if format == Markdown {
		if err := outfile.CheckOwnDir(filepath.Dir(path), figuresDir(path)); err != nil {
			return &PathError{err}
		}
		if err := plot.CheckNames(filepath.Join(filepath.Dir(path), figuresDir(path))); err != nil {
			return &PathError{err}
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

// FiguresDir is the directory a Markdown report written to path puts
// its figures into (figuresDir), beside it.
func FiguresDir(path string) string {
	return filepath.Join(filepath.Dir(path), figuresDir(path))
}

// Write writes the report to path in format (HTML or Markdown), whole or
// not at all. A Markdown report's figures, PNG and SVG, go into its
// figures directory (figuresDir), every one checked before any is
// written. A path that cannot take them is a *PathError.
func (r *Report) Write(path, format string) error {
	if err := Check(path, format); err != nil {
		return err
	}
	write := r.WriteHTML
	if format == Markdown {
		dir, side := filepath.Dir(path), figuresDir(path)
		all := append(append([]plot.Figure{}, r.Figures...), r.ABFigures...)
		if err := plot.CheckFiles(filepath.Join(dir, side), all); err != nil {
			return &PathError{err}
		}
		figDir, err := outfile.MakeOwnDir(dir, side)
		if err != nil {
			return &PathError{err}
		}
		if _, err := plot.WriteFiles(figDir, all); err != nil {
			return err
		}
		write = func(w io.Writer) error { return r.writeMarkdown(w, side) }
	}
	if err := outfile.Write(path, write); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
