package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/sweep/failpoint"
	"github.com/poolsweep/poolsweep/workload"
)

// The simulator's read tickets are its read slots: with service 4 ms a
// standalone of 2 carries 500 reads/s, of 8 carries 2,000 (capacity =
// slots / service time), so sweeping the parameter within one run has a
// known answer, at rates a busy 2-core load host still offers.
const ticketParam = "wiredTigerConcurrentReadTransactions"

// readTickets is the parameter as getParameter answers it on uri.
func readTickets(t *testing.T, c *mongo.Client) int32 {
	t.Helper()
	return readParam(t, c, ticketParam)
}

// readParam is the int parameter name as getParameter answers it on c's
// server.
func readParam(t *testing.T, c *mongo.Client, name string) int32 {
	t.Helper()
	raw, err := c.Database("admin").RunCommand(t.Context(), bson.D{{Key: "getParameter", Value: 1}, {Key: name, Value: 1}}).Raw()
	if err != nil {
		t.Fatalf("getParameter %s: %v", name, err)
	}
	return raw.Lookup(name).Int32()
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
	uri := testsrv.Sim(t, "slots=2,service=20ms").URI()
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
	// Each side stays within its construction (slots / 20 ms: 100 and
	// 400 ops/s, low enough that a busy load host is not the bound), and 8 tickets carry more than 2 do (4× by
	// construction; a busy host holds the faster side back the more, so
	// the medians are compared only loosely).
	for i := range rate["2"] {
		if lo, hi := rate["2"][i], rate["8"][i]; lo > 100*1.1 || hi > 400*1.1 {
			t.Errorf("trial %d: 8 tickets carried %.0f ops/s, 2 tickets %.0f: above the construction's 400 and 100", i+1, hi, lo)
		}
	}
	if lo, hi := median(rate["2"]), median(rate["8"]); hi < 1.5*lo {
		t.Errorf("median ops/s: 8 tickets %.0f, 2 tickets %.0f: not the gain the construction gives (4×)", hi, lo)
	}
	m, stdout := compareOpsWithinRun(t, dir, filepath.Join(out, "results.jsonl"), ticketParam+"=2", ticketParam+"=8")
	// Concluded, and at least the 1.5× the medians are held to above: a
	// busy host holds the faster side back, so not the construction's 4×.
	if !m.Significant || m.DeltaPct == nil || *m.DeltaPct < 50 {
		t.Errorf("compare did not conclude the gain of 8 tickets over 2 within the run:\n%s", stdout)
	}
}

// TestServerParamRefusals: what a server refuses is bad input, refused
// before any load in one line naming the flag with the server's reason:
// a name it lacks, a startup-only parameter, a value of the wrong type, a
// value out of its range (after another value was tried: it is set back),
// routers asked of a standalone; and the flag's own text. Nothing is
// written, and the parameter keeps its original.
func TestServerParamRefusals(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=2,service=1ms").URI()
	c := testsrv.Connect(t, uri)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--server-param", "noSuchParameter=1"}, "--server-param noSuchParameter: " + testsrv.Host(t, uri) + " has no such parameter (getParameter: no option found to get)"},
		{[]string{"--server-param", "enableTestCommands=true,false"}, "--server-param enableTestCommands=true: " + testsrv.Host(t, uri) + " cannot change it while it runs (not allowed to change [enableTestCommands] at runtime)"},
		{[]string{"--server-param", ticketParam + "=4,many"}, "--server-param " + ticketParam + "=many: the server reads this parameter as a 32-bit whole number"},
		{[]string{"--server-param", ticketParam + "=4,0"}, "--server-param " + ticketParam + "=0: " + testsrv.Host(t, uri) + " refused the value (Invalid value for " + ticketParam},
		{[]string{"--server-param", ticketParam + "=4", "--server-param-hosts", "routers"}, "--server-param-hosts routers: target " + testsrv.Host(t, uri) + " is a standalone, which has no routers"},
		{[]string{"--server-param", ticketParam + "=4", "--server-param", ticketParam + "=8"}, "--server-param: " + ticketParam + " is given twice"},
		{[]string{"--server-param", ticketParam}, "--server-param"},
		{[]string{"--server-param", ticketParam + "=4,4"}, "4 is given twice"},
		{[]string{"--server-param", "bad name=4"}, "is not a parameter name"},
		{[]string{"--server-param-hosts", "shards"}, "--server-param-hosts: only with --server-param"},
		{[]string{"--server-param", ticketParam + "=4", "--spawn", "2"}, "--server-param: server parameters are set by one process"},
	} {
		out := filepath.Join(dir, "out")
		args := append([]string{"sweep", "--uri", uri, "--concurrency", "1", "--trials", "1", "--warmup", "100ms", "--duration", "200ms", "--records", "20", "--no-plot", "--out", out}, tc.args...)
		code, stdout, stderr := runBinary(t, dir, time.Minute, args...)
		if server := strings.Contains(tc.want, testsrv.Host(t, uri)) || strings.Contains(tc.want, "the server reads"); server {
			// Refused once the target answered: the line that says it
			// answered, then the refusal, the run's last word.
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != 2 || len(lines) != 2 || !strings.HasPrefix(lines[0], "target ") || !strings.Contains(lines[1], tc.want) || stdout != "" {
				t.Errorf("%v: exit %d, stdout %q stderr %q (want exit 2, the target's line and one line naming %q)", tc.args, code, stdout, stderr, tc.want)
			}
		} else {
			wantUsageLine(t, tc.args, code, stdout, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: the refused run made %s", tc.args, out)
		}
		if got := readTickets(t, c); got != 2 {
			t.Errorf("%v: %s = %d after the refusal, want the original 2", tc.args, ticketParam, got)
		}
	}
	if p := pendingParams(t, c); len(p) != 0 {
		t.Errorf("records left not done: %+v", p)
	}
	// Nothing was loaded either: the refusals came before the load.
	if n, err := c.Database("poolsweep").Collection("usertable").CountDocuments(t.Context(), bson.D{}); err != nil || n != 0 {
		t.Errorf("documents loaded by refused runs: %d (%v)", n, err)
	}
}

// startSweep starts a sweep of args and returns it with a scanner of its
// stderr; it is killed if it outlives the test's patience.
func startSweep(t *testing.T, args []string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	t.Cleanup(func() { timer.Stop(); cmd.Process.Kill() })
	return cmd, bufio.NewScanner(stderr)
}

// waitLine reads sc until a line holding want, then drains it in the
// background (a full pipe would stop the run).
func waitLine(t *testing.T, sc *bufio.Scanner, want string) {
	t.Helper()
	for sc.Scan() {
		if strings.Contains(sc.Text(), want) {
			go func() {
				for sc.Scan() {
				}
			}()
			return
		}
	}
	t.Fatalf("the run ended before a line with %q", want)
}

// waitTickets waits until the parameter reads want on c: the run has
// set the series' value.
func waitTickets(t *testing.T, c *mongo.Client, want int32) {
	t.Helper()
	waitParam(t, c, ticketParam, want)
}

// waitParam waits until the int parameter name reads want on c's server.
func waitParam(t *testing.T, c *mongo.Client, name string, want int32) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for readParam(t, c, name) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s never read %d", name, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServerParamRestoredOnSignalAndResume: a run stopped by SIGINT while
// a value is set sets the original back before it exits (130); a run
// killed outright leaves the value and its record, and --resume sets the
// original back before it measures anything, says so, and at its own end
// leaves the original too; inspect shows the restore pending between.
func TestServerParamRestoredOnSignalAndResume(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=2,service=1ms").URI()
	c := testsrv.Connect(t, uri)
	dir := t.TempDir()
	base := []string{"sweep", "--uri", uri, "--concurrency", "4", "--trials", "2", "--warmup", "100ms", "--duration", "2s",
		"--records", "50", "--no-plot", "--server-param", ticketParam + "=6,8"}

	// SIGINT while 6 is set.
	// The values are tried before the load: the steps' own setting comes
	// after the load's line.
	cmd, sc := startSweep(t, append(base, "--out", filepath.Join(dir, "int")))
	waitLine(t, sc, "loading")
	waitTickets(t, c, 6)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("after SIGINT: %v, want exit 130", err)
	}
	if got := readTickets(t, c); got != 2 {
		t.Errorf("after SIGINT %s = %d, want the original 2", ticketParam, got)
	}

	// SIGKILL while 8 is set: the value outlives the process, with its
	// record.
	out := filepath.Join(dir, "kill")
	cmd, sc = startSweep(t, append(base, "--out", out))
	waitLine(t, sc, "[1/")
	waitTickets(t, c, 8)
	cmd.Process.Kill()
	cmd.Wait()
	if got := readTickets(t, c); got != 8 {
		t.Fatalf("after SIGKILL %s = %d: the test needs the killed run's value left", ticketParam, got)
	}
	if p := pendingParams(t, c); len(p) != 1 || p[0].Name != ticketParam {
		t.Fatalf("after SIGKILL the records not done are %+v, want the one of %s", p, ticketParam)
	}
	// inspect shows the restore pending.
	code, stdout, errText := runBinary(t, dir, time.Minute, "inspect", "--uri", uri)
	if want := "pending restore: " + ticketParam + " on " + testsrv.Host(t, uri) + " was changed by run "; code != 0 || !strings.Contains(stdout, want) || !strings.Contains(stdout, `its original is {"$numberInt":"2"}`) {
		t.Errorf("inspect after the kill: exit %d, stdout %q stderr %q; want a line with %q and the original", code, stdout, errText, want)
	}
	code, _, errText = runBinary(t, dir, 2*time.Minute, append(base, "--resume", out)...)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errText)
	}
	said := strings.Index(errText, ticketParam+" on "+testsrv.Host(t, uri)+", changed by this run at ")
	if said < 0 || said > strings.Index(errText, "[1/") {
		t.Errorf("the resumed run did not say, before its first step, that it set the original back:\n%s", errText)
	}
	if got := readTickets(t, c); got != 2 {
		t.Errorf("after the resumed run %s = %d, want the original 2", ticketParam, got)
	}
	if p := pendingParams(t, c); len(p) != 0 {
		t.Errorf("records left not done after --resume: %+v", p)
	}
}

// setFailCommand sets the simulator's failCommand fail point on c's
// server for setParameter sent by poolsweep's own setting client.
func setFailCommand(t *testing.T, c *mongo.Client, mode any, code int32) {
	t.Helper()
	err := c.Database("admin").RunCommand(t.Context(), bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: mode},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"setParameter"}}, {Key: "appName", Value: "poolsweep-failpoint"},
			{Key: "errorCode", Value: code}}}}).Err()
	if err != nil {
		t.Fatal(err)
	}
}

// TestServerParamNoPrivilege: a user the server does not let run
// setParameter (Unauthorized, as a real server answers one without the
// privilege; here a fail point answers it) is refused before any load,
// in one line naming the flag and the privilege.
func TestServerParamNoPrivilege(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=2,service=1ms,test_commands=true").URI()
	c := testsrv.Connect(t, uri)
	setFailCommand(t, c, "alwaysOn", 13)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runBinary(t, dir, time.Minute, "sweep", "--uri", uri, "--concurrency", "1", "--trials", "1", "--warmup", "100ms",
		"--duration", "200ms", "--records", "20", "--no-plot", "--out", out, "--server-param", ticketParam+"=4")
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	want := "--server-param " + ticketParam + "=4: the user may not run setParameter on " + testsrv.Host(t, uri)
	if code != 2 || !strings.Contains(lines[len(lines)-1], want) || !strings.Contains(stderr, "privilege") || stdout != "" {
		t.Errorf("exit %d, stdout %q stderr %q; want exit 2 and a last line with %q", code, stdout, stderr, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the refused run made %s", out)
	}
	if p := pendingParams(t, c); len(p) != 0 {
		t.Errorf("a refused change left records: %+v", p)
	}
}

// TestServerParamRestoreFailureSaid: a restore the server refuses at the
// run's end is said with the value left and its original, the run ends
// failed (exit 1, its end record too), the record stays for --resume,
// and --resume sets the original back.
func TestServerParamRestoreFailureSaid(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=2,service=1ms,test_commands=true").URI()
	c := testsrv.Connect(t, uri)
	// setParameter calls: the check sets 4, 8 and the original back (3),
	// the steps set 4 and 8 (2); the sixth is the restore at the end.
	setFailCommand(t, c, bson.D{{Key: "skip", Value: int32(5)}}, 1)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	args := []string{"sweep", "--uri", uri, "--concurrency", "2", "--trials", "1", "--warmup", "100ms", "--duration", "300ms",
		"--records", "20", "--no-plot", "--server-param", ticketParam + "=4,8"}
	code, _, stderr := runBinary(t, dir, time.Minute, append(args, "--out", out)...)
	want := ticketParam + ` on ` + testsrv.Host(t, uri) + ` may still differ from its original {"$numberInt":"2"}`
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr, want)
	}
	if got := readTickets(t, c); got != 8 {
		t.Errorf("%s = %d: the test needs the failed restore to leave 8", ticketParam, got)
	}
	if res := readRes(t, filepath.Join(out, "results.jsonl")); res.End == nil || res.End.Status != "failed" || !strings.Contains(res.End.Reason, want) {
		t.Errorf("end record %+v; want failed, naming the value left", res.End)
	}
	if err := c.Database("admin").RunCommand(t.Context(), bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}}).Err(); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runBinary(t, dir, time.Minute, append(args, "--resume", out)...); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if got := readTickets(t, c); got != 2 {
		t.Errorf("after --resume %s = %d, want the original 2", ticketParam, got)
	}
	if p := pendingParams(t, c); len(p) != 0 {
		t.Errorf("records left not done after --resume: %+v", p)
	}
}

// TestServerParamShardedHosts: on a cluster whose routers lack the
// parameter (a mongos has no tickets) it is set on every shard's server
// by default, read back from each, and set back on each; asked of the
// routers, the router's own refusal is relayed.
func TestServerParamShardedHosts(t *testing.T) {
	t.Parallel()
	d := testsrv.Sim(t, "shards=2,slots=2,service=1ms")
	uri := d.URI()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, _, errText := runBinary(t, dir, 2*time.Minute, "sweep", "--uri", uri, "--concurrency", "4", "--trials", "1", "--warmup", "100ms",
		"--duration", "300ms", "--records", "20", "--no-plot", "--out", out, "--server-param", ticketParam+"=4,8")
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s", code, errText)
	}
	res := readRes(t, filepath.Join(out, "results.jsonl"))
	var shards []string
	for _, s := range res.Steps {
		if len(s.ServerParams) != 1 || len(s.ServerParams[0].Read) != 2 {
			t.Fatalf("step %q read back %+v, want both shards' servers", s.Workload, s.ServerParams)
		}
		shards = nil
		for _, r := range s.ServerParams[0].Read {
			if r.Value != `{"$numberInt":"`+s.ServerParams[0].Value+`"}` {
				t.Errorf("step %q: %s read %s", s.Workload, r.Host, r.Value)
			}
			shards = append(shards, r.Host)
		}
	}
	for _, h := range shards {
		if h == testsrv.Host(t, uri) {
			t.Errorf("set on the router %s, which has no tickets", h)
		}
		if got := readTickets(t, testsrv.Connect(t, "mongodb://"+h+"/?directConnection=true")); got != 2 {
			t.Errorf("after the run %s on %s = %d, want the original 2", ticketParam, h, got)
		}
	}
	code, stdout, stderr := runBinary(t, dir, time.Minute, "sweep", "--uri", uri, "--concurrency", "4", "--trials", "1", "--no-plot",
		"--out", filepath.Join(dir, "routers"), "--server-param", ticketParam+"=4", "--server-param-hosts", "routers")
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	want := "--server-param " + ticketParam + ": " + testsrv.Host(t, uri) + " has no such parameter (getParameter: no option found to get)"
	if code != 2 || !strings.Contains(lines[len(lines)-1], want) || stdout != "" {
		t.Errorf("routers: exit %d, stdout %q stderr %q; want exit 2 and a last line with %q", code, stdout, stderr, want)
	}
}

// compareOpsWithinRun runs compare between two series of one results
// file and returns its one paired step's ops/s comparison, with the
// JSON to show when it does not conclude; it fails the test unless the
// pairing is within the run.
func compareOpsWithinRun(t *testing.T, dir, results, baseline, candidate string) (opsDelta, string) {
	t.Helper()
	code, stdout, errText := runBinary(t, dir, time.Minute, "compare", results, "--baseline", baseline, "--candidate", candidate, "--format", "json")
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, errText)
	}
	var cmp struct {
		WithinRun bool `json:"within_run"`
		Steps     []struct {
			Metrics map[string]opsDelta `json:"metrics"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(stdout), &cmp); err != nil {
		t.Fatalf("compare json: %v\n%s", err, stdout)
	}
	if !cmp.WithinRun || len(cmp.Steps) != 1 {
		t.Fatalf("compare: within_run %v, %d steps paired:\n%s", cmp.WithinRun, len(cmp.Steps), stdout)
	}
	return cmp.Steps[0].Metrics["ops_per_s"], stdout
}

// opsDelta is what compare's JSON says of one metric.
type opsDelta struct {
	Significant bool     `json:"significant"`
	DeltaPct    *float64 `json:"delta_pct"`
}
