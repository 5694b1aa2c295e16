package failpoint

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// On the simulator started with test commands, whose failCommand fail
// point acts as a real server's does: a fail point set through the guard
// holds the measured clients' finds, and whatever way the run ends (its
// context cancelled by a signal, or the process killed and the run
// resumed), the finds are answered at once again afterwards.

// simWithTestCommands starts the simulator with test commands, skipping
// the test where this build's simulator has none.
func simWithTestCommands(t *testing.T) string {
	t.Helper()
	if _, err := sim.ParseSpec("slots=4,service=1ms,test_commands=true"); err != nil {
		t.Skipf("this simulator has no test commands: %v", err)
	}
	return testsrv.Sim(t, "slots=4,service=1ms,test_commands=true").URI()
}

// held is how long a find of the measured clients (appName poolsweep)
// takes.
func held(t *testing.T, uri string) time.Duration {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetAppName("poolsweep").SetTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	if err := c.Ping(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	c.Database("poolsweep").Collection("usertable").FindOne(t.Context(), bson.D{{Key: "_id", Value: "user1"}})
	return time.Since(began)
}

// blocking is a fail point that holds each find for 3 s: a find that
// takes less was not held.
func blocking() Command {
	return Command{FailCommands: []string{"find"}, BlockConnection: true, BlockTime: 3 * time.Second, AppName: "poolsweep"}
}

func TestFailPointOnSimulatorOffAfterSignal(t *testing.T) {
	uri := simWithTestCommands(t)
	if err := TestCommands(t.Context(), testsrv.Connect(t, uri)); err != nil {
		t.Fatalf("test commands on a simulator started with them: %v", err)
	}
	plain := testsrv.Sim(t, "slots=2,service=1ms").URI()
	if err := TestCommands(t.Context(), testsrv.Connect(t, plain)); !errors.Is(err, ErrNoTestCommands) {
		t.Errorf("test commands on a simulator started without: %v", err)
	}
	meta := metaOf(t, uri)
	g := NewGuard(meta, "run-sim", DirectTo(plainClients()))
	defer g.Close(context.Background())
	ctx, cancel := context.WithCancelCause(context.Background())
	if _, err := g.Set(ctx, testsrv.Host(t, uri), blocking()); err != nil {
		t.Fatal(err)
	}
	if d := held(t, uri); d < 3*time.Second {
		t.Fatalf("a find took %s with the fail point on; want it held 3 s", d)
	}
	cancel(errors.New("SIGINT"))
	if err := g.OffAll(ctx); err != nil {
		t.Fatalf("OffAll after the run's context ended: %v", err)
	}
	if d := held(t, uri); d >= 3*time.Second {
		t.Fatalf("a find took %s after OffAll: the fail point is still on", d)
	}
	if r := records(t, meta, "run-sim"); len(r) != 1 || !r[0].Done || r[0].Outcome != "switched off" {
		t.Fatalf("record %+v", r)
	}
}

func TestFailPointOnSimulatorKilledThenResumed(t *testing.T) {
	uri := simWithTestCommands(t)
	host := testsrv.Host(t, uri)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+uri+"|run-killed-sim|"+host)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() && !strings.HasPrefix(lines.Text(), "set returned") {
	}
	if lines.Text() != "set returned <nil>" {
		t.Fatalf("the child: %q", lines.Text())
	}
	cmd.Process.Kill()
	cmd.Wait()
	// Nothing switched it off: the server still holds the finds.
	if d := held(t, uri); d < 3*time.Second {
		t.Fatalf("a find took %s after the run was killed; the fail point should still be on", d)
	}
	g := NewGuard(metaOf(t, uri), "run-killed-sim", DirectTo(plainClients()))
	defer g.Close(context.Background())
	msgs, err := g.Recover(t.Context())
	if err != nil || len(msgs) != 1 || !strings.HasSuffix(msgs[0], "switched off") {
		t.Fatalf("Recover: %q %v", msgs, err)
	}
	if d := held(t, uri); d >= 3*time.Second {
		t.Fatalf("a find took %s after the resumed run's Recover: the fail point is still on", d)
	}
}

// A freeze performed through the fail point holds the measured clients'
// finds for its length, and its switch-off comes by itself when its
// length is over, with its record done; a slow=F holds each for
// (F−1) service times.
func TestPerformerOnSimulator(t *testing.T) {
	uri := simWithTestCommands(t)
	host := testsrv.Host(t, uri)
	if err := CheckHost(t.Context(), DirectTo(plainClients()), host); err != nil {
		t.Fatalf("CheckHost: %v", err)
	}
	meta := metaOf(t, uri)
	g := NewGuard(meta, "run-perform", DirectTo(plainClients()))
	defer g.Close(context.Background())
	ended := make(chan error, 1)
	p := &Performer{Guard: g, Host: host, AppName: MeasuredAppName(func() *options.ClientOptions { return options.Client().SetAppName("poolsweep") }),
		ServiceTime: 100 * time.Millisecond, Ended: func(_ results.EventSpec, err error) { ended <- err }}
	h, d, err := p.Perform(t.Context(), results.EventSpec{Spec: "1s=freeze=3s", AtS: 1, Action: results.EventFreeze, DurationS: 3})
	if err != nil || h != host || d != 3*time.Second {
		t.Fatalf("Perform freeze: %s %s %v", h, d, err)
	}
	if d := held(t, uri); d < 2*time.Second {
		t.Fatalf("a find took %s during a 3-s freeze", d)
	}
	if err := <-ended; err != nil {
		t.Fatalf("the freeze's switch-off: %v", err)
	}
	if d := held(t, uri); d >= 2*time.Second || g.On() != 0 {
		t.Fatalf("a find took %s after the freeze, %d fail points on", d, g.On())
	}
	if _, _, err := p.Perform(t.Context(), results.EventSpec{Spec: "1s=slow=10:2s", Action: results.EventSlow, Factor: 10, DurationS: 2}); err != nil {
		t.Fatal(err)
	}
	if d := held(t, uri); d < 900*time.Millisecond {
		t.Errorf("a find took %s during slow=10 over a 100-ms service time, want at least 900 ms", d)
	}
	if _, _, err := p.Perform(t.Context(), results.EventSpec{Spec: "1s=reset", Action: results.EventReset}); err == nil {
		t.Error("a reset was performed by a fail point")
	}
	<-ended
	for _, r := range records(t, meta, "run-perform") {
		if !r.Done {
			t.Errorf("record %s not done", r.ID)
		}
	}
}
