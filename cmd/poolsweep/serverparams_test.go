package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/internal/testsrv"
	"github.com/poolsweep/poolsweep/sweep/failpoint"
	"github.com/poolsweep/poolsweep/workload"
)

// The simulator's read tickets are its read slots: with service 1 ms a
// standalone of 2 carries 2,000 reads/s, of 8 carries 8,000 (capacity =
// slots / service time), so sweeping the parameter within one run has a
// known answer.
const ticketParam = "wiredTigerConcurrentReadTransactions"

// readTickets is the parameter as getParameter answers it on uri.
func readTickets(t *testing.T, c *mongo.Client) int32 {
	t.Helper()
	raw, err := c.Database("admin").RunCommand(t.Context(), bson.D{{Key: "getParameter", Value: 1}, {Key: ticketParam, Value: 1}}).Raw()
	if err != nil {
		t.Fatalf("getParameter: %v", err)
	}
	return raw.Lookup(ticketParam).Int32()
}

// pendingParams are the parameter records of the meta collection not
// marked done.
func pendingParams(t *testing.T, c *mongo.Client) []failpoint.ParamRecord {
	t.Helper()
	recs, err := failpoint.PendingParams(t.Context(), c.Database("poolsweep").Collection(workload.MetaCollection), "")
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestServerParamAxisWithinRun: --server-param sweeps a runtime parameter
// within one run: the plan line says what it changes, each value is a
// series whose steps take turns trial by trial, each step records the
// value getParameter read back, the throughput follows the construction,
// compare concludes between the values within the run, and the original
// is set back (getParameter after the run), its record done.
func TestServerParamAxisWithinRun(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=2,service=1ms").URI()
	c := testsrv.Connect(t, uri)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, _, errText := runBinary(t, dir, 3*time.Minute, "sweep", "--uri", uri, "--concurrency", "16", "--pool", "match", "--trials", "4",
		"--warmup", "200ms", "--duration", "1s", "--workload", "read", "--records", "50", "--no-plot", "--out", out,
		"--server-param", ticketParam+"=2,8")
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s", code, errText)
	}
	if !strings.Contains(errText, "server parameters: this run sets "+ticketParam+" to 2, then 8") {
		t.Errorf("the plan does not say what the run changes:\n%s", errText)
	}
	if got := readTickets(t, c); got != 2 {
		t.Errorf("after the run %s = %d, want the original 2", ticketParam, got)
	}
	if p := pendingParams(t, c); len(p) != 0 {
		t.Errorf("records left not done: %+v", p)
	}
	res := readRes(t, filepath.Join(out, "results.jsonl"))
	if len(res.Steps) != 8 {
		t.Fatalf("%d steps, want 8", len(res.Steps))
	}
	rate := map[string][]float64{}
	for i, s := range res.Steps {
		want := []string{"2", "8"}[i%2] // the values take turns within each trial
		if len(s.ServerParams) != 1 || s.ServerParams[0].Value != want || s.Workload != "read "+ticketParam+"="+want {
			t.Fatalf("step %d (trial %d): %q %+v, want value %s", i+1, s.Trial, s.Workload, s.ServerParams, want)
		}
		if r := s.ServerParams[0].Read; len(r) != 1 || r[0].Value != `{"$numberInt":"`+want+`"}` {
			t.Errorf("step %d: read back %+v, want %s as an int32", i+1, r, want)
		}
		rate[want] = append(rate[want], s.OpsPerS)
	}
	// Four trials a side: the rank test concludes on the order of the
	// trials alone (at 4 + 4 the smallest p is 0.029), whatever a busy
	// host does to one trial's spread.
	//
	// Each side stays within its construction (slots / 1 ms: 2,000 and
	// 8,000 ops/s), and 8 tickets carry more than 2 do (4× by
	// construction; a busy host holds the faster side back the more, so
	// the medians are compared only loosely).
	for i := range rate["2"] {
		if lo, hi := rate["2"][i], rate["8"][i]; lo > 2000*1.1 || hi > 8000*1.1 {
			t.Errorf("trial %d: 8 tickets carried %.0f ops/s, 2 tickets %.0f: above the construction's 8,000 and 2,000", i+1, hi, lo)
		}
	}
	if lo, hi := median(rate["2"]), median(rate["8"]); hi < 1.5*lo {
		t.Errorf("median ops/s: 8 tickets %.0f, 2 tickets %.0f: not the gain the construction gives (4×)", hi, lo)
	}
	code, stdout, errText := runBinary(t, dir, time.Minute, "compare", filepath.Join(out, "results.jsonl"),
		"--baseline", ticketParam+"=2", "--candidate", ticketParam+"="+"8", "--format", "json")
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, errText)
	}
	var cmp struct {
		WithinRun bool `json:"within_run"`
		Steps     []struct {
			Metrics map[string]struct {
				Significant bool     `json:"significant"`
				DeltaPct    *float64 `json:"delta_pct"`
			} `json:"metrics"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(stdout), &cmp); err != nil {
		t.Fatalf("compare json: %v\n%s", err, stdout)
	}
	if !cmp.WithinRun || len(cmp.Steps) != 1 {
		t.Fatalf("compare: within_run %v, %d steps paired:\n%s", cmp.WithinRun, len(cmp.Steps), stdout)
	}
	if m := cmp.Steps[0].Metrics["ops_per_s"]; !m.Significant || m.DeltaPct == nil || *m.DeltaPct < 100 {
		t.Errorf("compare did not conclude the gain of 8 tickets over 2 within the run:\n%s", stdout)
	}
}
