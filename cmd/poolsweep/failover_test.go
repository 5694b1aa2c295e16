package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
)

// TestFailoverInsideWindow steps a simulated replica set's primary down in
// the middle of the first step's window, as an operator's maintenance
// would: that step records the election (the primary before and after,
// the time without one, its errors and latency) and is left out of the
// knee; the run goes on, exits 0, and the next step is clean. It asserts
// no speed, and the step-down lands by the sweep's own first update (1.2 s
// into a 3-s window), so it runs beside the other parallel tests.
func TestFailoverInsideWindow(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps a simulated replica set through an election")
	}
	const election = 400 * time.Millisecond
	uri, _ := startServe(t, "--sim", "rs=3,slots=4,service=2ms,repl_lag=5ms,election="+election.String())
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "sweep", "--target", "rs="+uri, "--workload", "mixed", "--mix", "read=50,update=50",
		"--concurrency", "4,8", "--warmup", "500ms", "--duration", "3s", "--op-timeout", "3s", "--records", "500", "--out", out)
	cmd.Dir = dir
	stdout, stderr, done := startCaught(t, cmd)

	// The first update is the first step's warm-up (loading only
	// inserts); the window opens 500 ms later and lasts 3 s: step down
	// about 1.2 s into it.
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	admin := c.Database("admin")
	primary := options.RunCmd().SetReadPreference(readpref.Primary())
	for {
		var st struct {
			Opcounters struct{ Update int64 } `bson:"opcounters"`
		}
		if err := admin.RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}, primary).Decode(&st); err != nil {
			t.Fatalf("serverStatus: %v", err)
		}
		if st.Opcounters.Update > 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the sweep ended before its first window: %v\n%s", err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	time.Sleep(500*time.Millisecond + 1200*time.Millisecond)
	if err := admin.RunCommand(ctx, bson.D{{Key: "replSetStepDown", Value: 20}, {Key: "secondaryCatchUpPeriodSecs", Value: 5}}, primary).Err(); err != nil {
		t.Fatalf("replSetStepDown: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the run did not go on through the election: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("the sweep's table:\n%s", stdout.String())

	res := readRes(t, filepath.Join(out, "results.jsonl"))
	if len(res.Steps) != 2 {
		t.Fatalf("%d steps, want 2", len(res.Steps))
	}
	first, next := res.Steps[0], res.Steps[1]
	pc := first.PrimaryChange
	switch {
	case pc == nil:
		t.Fatalf("the step the primary stepped down in records no change of primary: %+v", first)
	case pc.Before == "" || pc.After == "" || pc.Before == pc.After || pc.Changes != 1:
		t.Errorf("primary change %+v: want the old primary before, another after, one change", *pc)
	case pc.NoPrimaryMS < float64(election/time.Millisecond)/2:
		t.Errorf("%.0f ms without a primary; the election takes %s", pc.NoPrimaryMS, election)
	}
	// The election shows: writes waited through it (or failed).
	if first.Latency.Max < float64(election/time.Millisecond)/2 && first.Errors.Total() == 0 {
		t.Errorf("the election step's slowest call took %.0f ms and none failed; the election took %s", first.Latency.Max, election)
	}
	if first.TargetFailed != nil {
		t.Errorf("a clean election marked the step target_failed: %+v", *first.TargetFailed)
	}
	if !strings.Contains(strings.Join(first.Warnings, "\n"), "the primary changed during the window") {
		t.Errorf("the election step's warnings do not say so: %q", first.Warnings)
	}
	roles := map[string]string{}
	for _, h := range next.Pool.Hosts {
		roles[h.Host] = h.Role
	}
	if next.PrimaryChange != nil || next.TargetFailed != nil || next.Errors.Total() > 0 || roles[pc.After] != "primary" {
		t.Errorf("the next step is not clean: primary change %+v, target failed %+v, %d errors, roles %v", next.PrimaryChange, next.TargetFailed, next.Errors.Total(), roles)
	}
	if !strings.Contains(stdout.String(), "(primary "+pc.Before+" → "+pc.After) {
		t.Errorf("the step table does not mark the election step")
	}
	if !strings.Contains(stdout.String(), "the primary changed during the window") {
		t.Errorf("the summary does not say the election step was left out")
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "(primary "+pc.Before+" → "+pc.After) {
		t.Errorf("the report's step table does not mark the election step")
	}
}
