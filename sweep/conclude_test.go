package sweep

import (
	"bytes"
	"context"
	"io"
	"os"
	"reflect"
	"testing"

	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/results"
)

// TestSessionConclude: Conclude is called once, when every step is in
// the results file and the end record is not, with the results as the
// file will hold them (the steps written, End the record about to be
// written); what it adds to that record is written; and Results after
// Run is what a read of the file gives, without reading it.
func TestSessionConclude(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=4,service=1ms").URI()
	s := newTestSession(t, uri, t.TempDir())
	calls := 0
	s.Conclude = func(res *results.Results) {
		calls++
		file, err := results.ReadResultsFile(s.ResultsPath)
		if err != nil || len(file.Steps) != 3 || file.End != nil {
			t.Errorf("at Conclude the file holds %v, %d steps and end %+v; want 3 steps and no end", err, len(file.Steps), file.End)
		} else if !reflect.DeepEqual(res.Steps, file.Steps) || !reflect.DeepEqual(res.Header, file.Header) {
			t.Errorf("at Conclude the results in memory are not the file's:\n%+v\n%+v", res, file)
		}
		end := res.End
		if end.Status != results.StatusComplete || end.Steps != 3 || len(res.Warnings) != 0 {
			t.Errorf("Conclude sees end %+v, warnings %q", end, res.Warnings)
		}
		end.Thresholds = []results.ThresholdOutcome{{Threshold: "ops>0", Pass: true, Unit: "ops/s", Checks: []results.ThresholdCheck{{Series: "sim", Value: new(1.0), Pass: true}}}}
	}
	if out, err := s.Run(context.Background()); err != nil || out.Status != results.StatusComplete {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	res, err := results.ReadResultsFile(s.ResultsPath)
	if err != nil || calls != 1 || len(res.End.Thresholds) != 1 || res.End.Thresholds[0].Threshold != "ops>0" {
		t.Fatalf("Conclude called %d times; end record %+v, %v", calls, res.End, err)
	}
	if got := s.Results(); !reflect.DeepEqual(got, res) {
		t.Errorf("Results is not what a read of the file gives:\n%+v\n%+v", got, res)
	}
}

// TestSessionResultsResumed: a resumed run's Results is what a lenient
// read of its file gives once it has ended, although the run it resumed
// held a record --lenient skipped, a step measured again, no end record
// and a cut-off last line: the skipped record's warning stays, the others
// do not, and the step measured again keeps its new record.
func TestSessionResultsResumed(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=4,service=1ms").URI()
	dir := t.TempDir()
	first := newTestSession(t, uri, dir)
	if out, err := first.Run(context.Background()); err != nil || out.Status != results.StatusComplete {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	// The header, the first step, a step record that breaks the schema,
	// the second step marked interrupted (measured again on resume), and
	// the start of a record cut off: no third step, no end record.
	b, err := os.ReadFile(first.ResultsPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	interrupted := bytes.Replace(lines[2], []byte(`"kind":"step"`), []byte(`"kind":"step","interrupted":true`), 1)
	cut := append(bytes.Join([][]byte{lines[0], lines[1], []byte(`{"kind":"step","concurrency":-1}` + "\n"), interrupted}, nil), `{"kind":"st`...)
	if err := outfile.Write(first.ResultsPath, func(w io.Writer) error { _, err := w.Write(cut); return err }); err != nil {
		t.Fatal(err)
	}
	lenient := results.ReadOptions{Lenient: true}
	prev, err := results.ReadFileWith(context.Background(), first.ResultsPath, lenient)
	if err != nil || prev.Skipped != 1 || len(prev.Warnings) != 3 || len(prev.Steps) != 2 {
		t.Fatalf("the run to resume: %v, %d skipped, warnings %q, %d steps", err, prev.Skipped, prev.Warnings, len(prev.Steps))
	}
	s := newTestSession(t, uri, dir)
	s.Previous, s.RunID = prev, prev.Header.RunID
	if out, err := s.Run(context.Background()); err != nil || out.Status != results.StatusComplete || out.Measured != 2 {
		t.Fatalf("resumed: outcome %+v, %v", out, err)
	}
	file, err := results.ReadFileWith(context.Background(), s.ResultsPath, lenient)
	if err != nil || len(file.Steps) != 3 || len(file.Warnings) != 1 {
		t.Fatalf("the resumed run's file: %v, %d steps, warnings %q", err, len(file.Steps), file.Warnings)
	}
	if got := s.Results(); !reflect.DeepEqual(got, file) {
		t.Errorf("Results is not what a read of the file gives:\n%+v\n%+v", got, file)
	}
}
