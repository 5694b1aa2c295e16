package sweep

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// The run's results.jsonl: created with its header (or continued, on
// --resume), a record per step, and the end record. Every record this
// session writes is kept as written, so that the run concludes from its
// own results (Conclude, Results) and nothing reads back the file it has
// just written.

// resultsFile is the results file being written and what it holds, as a
// reader of it would give it.
type resultsFile struct {
	w   *results.ResultsWriter
	res results.Results // Steps as written, in order: a step measured again is there twice
}

// writeStep writes a step and keeps it.
func (f *resultsFile) writeStep(st results.StepResult) error {
	if err := f.w.Write(st); err != nil {
		return err
	}
	f.res.Steps = append(f.res.Steps, st)
	return nil
}

// writeEnd writes the end record and keeps it.
func (f *resultsFile) writeEnd(end results.EndRecord) error {
	if err := f.w.Write(end); err != nil {
		return err
	}
	f.res.End = &end
	return nil
}

// results is what a reader of the file would give once end is written
// (nil: the file as it is): each step's last record, the skipped
// records' warnings of the run resumed, and the warning that the file
// has no end record while it has none.
func (f *resultsFile) results(end *results.EndRecord) *results.Results {
	res := f.res
	if end != nil {
		res.End = end
	}
	res.Steps = results.LatestSteps(slices.Clone(f.res.Steps))
	res.Warnings = slices.Clone(f.res.Warnings)
	if res.End == nil {
		res.Warnings = append(res.Warnings, results.NoEndWarning(res.Path, len(res.Steps)))
	}
	return &res
}

// Results is the run's results as its file holds them once Run has
// returned, as results.ReadFileWith would give them (with the options
// Previous was read with), taken from the records as they were written:
// the header, each step's latest record and the end record (nil when it
// could not be written). A run that wrote nothing gives Previous, nil
// for a new run.
func (s *Session) Results() *results.Results {
	if s.file == nil {
		return s.Previous
	}
	return s.file.results(nil)
}

// endUnmeasured ends the results of a run that could not load its data
// with the end record saying why, so that the file, not only the
// terminal, tells what happened. A file that cannot be written leaves the
// error the caller returns as the whole story.
func (s *Session) endUnmeasured(out Outcome) {
	f, err := s.openResults(out.Planned)
	if err != nil {
		return
	}
	defer f.w.Close()
	earlier := 0 // the steps a resumed run's file holds, once each
	if s.Previous != nil {
		earlier = len(s.Previous.Steps)
	}
	_ = f.writeEnd(results.EndRecord{Kind: results.KindEnd, Status: out.Status, Reason: out.Reason, FinishedAt: time.Now().UTC(),
		Steps: earlier, Planned: out.Planned, Signal: out.Signal})
}

// endInterrupted ends the results of a run that a signal stopped before
// it measured anything (ctx's cause names the signal) with the header and
// an interrupted end record saying where (reason): the output directory
// shows the run was started and stopped, and --resume continues it.
func (s *Session) endInterrupted(ctx context.Context, out Outcome, reason string) Outcome {
	out.Status, out.Reason, out.Signal = results.StatusInterrupted, reason, signalOf(ctx)
	s.endUnmeasured(out)
	return out
}

// EndInterrupted is endInterrupted for a caller stopped by a signal
// before it could start Run (while it started or connected to the
// targets): the run's header, with the targets as far as they are
// known, and an interrupted end record.
func (s *Session) EndInterrupted(ctx context.Context, reason string) Outcome {
	out := Outcome{Planned: len(s.Steps())}
	if s.Planner != nil {
		prev := measuredSteps(s.Previous)
		out.Planned = len(prev) + s.Planner.Remaining(prev)
	}
	return s.endInterrupted(ctx, out, reason)
}

// openResults creates the results file of a new run with its header, or
// opens the resumed run's file (whose cut-off last line the writer
// removes, and whose end record the new one replaces).
func (s *Session) openResults(planned int) (*resultsFile, error) {
	if prev := s.Previous; prev != nil {
		w, err := results.AppendResults(s.ResultsPath)
		if err != nil {
			return nil, err
		}
		s.file = &resultsFile{w: w, res: results.Results{Path: s.ResultsPath, Header: prev.Header, Steps: slices.Clone(prev.Steps),
			Storms: prev.Storms, Skipped: prev.Skipped, Warnings: slices.Clone(prev.SkipWarnings())}}
		return s.file, nil
	}
	if s.MakeDir != nil {
		if err := s.MakeDir(); err != nil {
			return nil, fmt.Errorf("create the output directory: %w", err)
		}
	}
	w, err := results.CreateResults(s.ResultsPath)
	if err != nil {
		return nil, err
	}
	headers := make([]results.TargetHeader, len(s.Targets))
	for i, t := range s.Targets {
		headers[i] = t.Header
	}
	header := newRunHeader(s.RunID, s.Plan, s.Workloads, headers, planned)
	header.Agents = s.agents
	if err := w.Write(header); err != nil {
		w.Close()
		return nil, err
	}
	s.file = &resultsFile{w: w, res: results.Results{Path: s.ResultsPath, Header: header}}
	return s.file, nil
}
