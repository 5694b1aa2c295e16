package main

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/sweep/failpoint"
	"github.com/poolsweep/poolsweep/workload"
)

// TestResumeSwitchesOffKilledRunsFailPoint: a run killed outright (SIGKILL)
// while a fail point it recorded may be on leaves the record unfinished;
// --resume switches it off on the recorded host before it measures
// anything, says so on stderr, and finishes the record.
func TestResumeSwitchesOffKilledRunsFailPoint(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps the simulator")
	}
	uri := testsrv.Sim(t, "slots=4,service=1ms").URI()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	args := []string{"sweep", "--uri", uri, "--concurrency", "1,2", "--trials", "1", "--warmup", "100ms", "--duration", "1s", "--records", "50", "--no-plot"}
	cmd := exec.Command(binary, append(args, "--out", out)...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "[1/2]") {
	}
	cmd.Process.Kill()
	cmd.Wait()

	res := readRes(t, filepath.Join(out, "results.jsonl"))
	host := testsrv.Host(t, uri)
	meta := testsrv.Connect(t, uri).Database("poolsweep").Collection(workload.MetaCollection)
	on, _ := bson.Marshal(bson.D{{Key: "configureFailPoint", Value: failpoint.Name}, {Key: "mode", Value: "alwaysOn"}})
	rec := failpoint.Record{ID: failpoint.Kind + ":killed", Kind: failpoint.Kind, Tool: "poolsweep", RunID: res.Header.RunID, Host: host,
		Name: failpoint.Name, On: on, SetAt: time.Now().UTC(), Process: "pid 1 on a killed host"}
	if _, err := meta.InsertOne(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	code, _, errText := runBinary(t, dir, 2*time.Minute, append(args, "--resume", out)...)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errText)
	}
	said := strings.Index(errText, "the failCommand fail point this run set on "+host)
	if said < 0 || said > strings.Index(errText, "[1/") {
		t.Errorf("the resumed run did not say, before its first step, that it switched the fail point off:\n%s", errText)
	}
	var got failpoint.Record
	if err := meta.FindOne(t.Context(), bson.D{{Key: "_id", Value: rec.ID}}).Decode(&got); err != nil || !got.Done {
		t.Errorf("record after resume: %+v %v", got, err)
	}
}
