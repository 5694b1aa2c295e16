package sweep

import (
	"context"
	"testing"

	"github.com/poolsweep/poolsweep/internal/testsrv"
	"github.com/poolsweep/poolsweep/results"
)

// TestSessionConclude: Conclude is called once, when every step is in
// the results file and the end record is not, and what it adds to the
// end record is written.
func TestSessionConclude(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=4,service=1ms").URI()
	s := newTestSession(t, uri, t.TempDir())
	calls := 0
	s.Conclude = func(end *results.EndRecord) {
		calls++
		res, err := results.ReadResultsFile(s.ResultsPath)
		if err != nil || len(res.Steps) != 3 || res.End != nil {
			t.Errorf("at Conclude the file holds %v, %d steps and end %+v; want 3 steps and no end", err, len(res.Steps), res.End)
		}
		if end.Status != results.StatusComplete || end.Steps != 3 {
			t.Errorf("Conclude sees end %+v", end)
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
}
