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

	"github.com/poolsweep/poolsweep/internal/testsrv"
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
