package failpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testkit/testferret"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
)

// The fail point's meta records are tested against embedded FerretDB,
// which, like a real server started without test commands, has no
// configureFailPoint: it refuses the command (CommandNotFound), so what
// is tested here is that every fail point is recorded before it is sent
// and that its record is finished only once a server has answered the
// switch-off. Where the server's answer is held back (a gate in front of
// it), a set whose answer never came stays on the guard's list and in
// the meta collection, as a fail point a real server may have applied.

const childEnv = "POOLSWEEP_TEST_FAILPOINT_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		childSet(spec)
		return
	}
	os.Exit(m.Run())
}

// childSet is a run that records a fail point and is killed while the
// server's answer is held: spec is "metaURI|runID|host".
func childSet(spec string) {
	parts := strings.Split(spec, "|")
	client, err := mongo.Connect(options.Client().ApplyURI(parts[0]))
	if err != nil {
		os.Exit(3)
	}
	g := NewGuard(client.Database("poolsweep").Collection("poolsweep_meta"), parts[1], DirectTo(func() *options.ClientOptions { return options.Client() }))
	fmt.Println("setting")
	_, err = g.Set(context.Background(), parts[2], blocking())
	fmt.Printf("set returned %v\n", err)
	time.Sleep(time.Minute)
	os.Exit(4)
}

func slowCommand() Command {
	return Command{FailCommands: []string{"find", "insert"}, BlockConnection: true, BlockTime: 50 * time.Millisecond, AppName: "poolsweep"}
}

// gate is a loopback proxy to a server that holds every connection until
// it is opened: a server that does not answer, then does.
type gate struct {
	ln     net.Listener
	to     string
	open   chan struct{}
	once   sync.Once
	closed sync.WaitGroup
}

func newGate(t *testing.T, to string) *gate {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{ln: ln, to: to, open: make(chan struct{})}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go g.serve(c)
		}
	}()
	t.Cleanup(func() { g.Open(); ln.Close() })
	return g
}

func (g *gate) Host() string { return g.ln.Addr().String() }
func (g *gate) Open()        { g.once.Do(func() { close(g.open) }) }

func (g *gate) serve(c net.Conn) {
	defer c.Close()
	<-g.open
	s, err := net.Dial("tcp", g.to)
	if err != nil {
		return
	}
	defer s.Close()
	go io.Copy(s, c)
	io.Copy(c, s)
}

func metaOf(t *testing.T, uri string) *mongo.Collection {
	return testsrv.Connect(t, uri).Database("poolsweep").Collection("poolsweep_meta")
}

func records(t *testing.T, meta *mongo.Collection, runID string) []Record {
	t.Helper()
	cur, err := meta.Find(context.Background(), bson.D{{Key: "kind", Value: Kind}, {Key: "run_id", Value: runID}})
	if err != nil {
		t.Fatal(err)
	}
	var out []Record
	if err := cur.All(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func plainClients() func() *options.ClientOptions {
	return func() *options.ClientOptions { return options.Client() }
}

// A server that refuses configureFailPoint (test commands off) has
// nothing on: the record written before it is finished at once, saying
// so, and nothing is left for the end to switch off.
func TestSetRefusedIsRecordedAndDone(t *testing.T) {
	uri := testferret.Start(t)
	meta := metaOf(t, uri)
	g := NewGuard(meta, "run-refused", DirectTo(plainClients()))
	defer g.Close(context.Background())
	_, err := g.Set(t.Context(), testsrv.Host(t, uri), slowCommand())
	if err == nil || !strings.Contains(err.Error(), "CommandNotFound") {
		t.Fatalf("Set on a server without test commands: %v, want its CommandNotFound", err)
	}
	if g.On() != 0 {
		t.Errorf("%d fail points on after a refusal", g.On())
	}
	recs := records(t, meta, "run-refused")
	if len(recs) != 1 || !recs[0].Done || !strings.HasPrefix(recs[0].Outcome, "refused") {
		t.Fatalf("records %+v, want one, done, refused", recs)
	}
	var sent bson.D
	if err := bson.Unmarshal(recs[0].On, &sent); err != nil || sent[0].Key != "configureFailPoint" {
		t.Errorf("the record keeps the command as sent: %v %v", sent, err)
	}
}

// A signal cancels the run's context while a set is waiting for the
// server: the set may have been applied, so it stays on the list, and
// OffAll, called with that cancelled context, switches it off on a
// context of its own once the server answers, and finishes the record.
func TestOffAllAfterCancelSwitchesOff(t *testing.T) {
	uri := testferret.Start(t)
	meta := metaOf(t, uri)
	gt := newGate(t, testsrv.Host(t, uri))
	g := NewGuard(meta, "run-signal", DirectTo(plainClients()))
	defer g.Close(context.Background())
	ctx, cancel := context.WithCancelCause(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := g.Set(ctx, gt.Host(), slowCommand())
		errc <- err
	}()
	waitFor(t, func() bool { return len(records(t, meta, "run-signal")) == 1 })
	cancel(errors.New("SIGINT"))
	if err := <-errc; err == nil {
		t.Fatal("Set returned no error when its context was cancelled")
	}
	if g.On() != 1 {
		t.Fatalf("%d fail points on after a set that got no answer; want 1 (it may have been applied)", g.On())
	}
	if r := records(t, meta, "run-signal"); r[0].Done {
		t.Fatal("the record was finished before any switch-off")
	}
	gt.Open()
	if err := g.OffAll(ctx); err != nil {
		t.Fatalf("OffAll with the run's cancelled context: %v", err)
	}
	r := records(t, meta, "run-signal")
	if g.On() != 0 || !r[0].Done || !strings.Contains(r[0].Outcome, "nothing was on") {
		t.Fatalf("after OffAll: %d on, record %+v", g.On(), r[0])
	}
}

// A run killed while it sets a fail point leaves its record unfinished;
// resuming the run (a new guard under the same run id) switches it off
// first and finishes the record, and a resumed run of another id leaves
// it alone.
func TestKilledRunRecoveredAtResume(t *testing.T) {
	uri := testferret.Start(t)
	meta := metaOf(t, uri)
	gt := newGate(t, testsrv.Host(t, uri)) // never opened for the child
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+uri+"|run-killed|"+gt.Host())
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	waitFor(t, func() bool { return len(records(t, meta, "run-killed")) == 1 })
	cmd.Process.Kill()
	cmd.Wait()
	if r := records(t, meta, "run-killed"); r[0].Done {
		t.Fatalf("a killed run's record is done: %+v", r[0])
	}

	other := NewGuard(meta, "run-other", DirectTo(plainClients()))
	defer other.Close(context.Background())
	if msgs, err := other.Recover(t.Context()); err != nil || len(msgs) != 0 {
		t.Fatalf("another run's Recover: %v %v, want nothing", msgs, err)
	}
	// The resumed run reaches the recorded host, the gate, once it answers.
	gt.Open()
	g := NewGuard(meta, "run-killed", DirectTo(plainClients()))
	defer g.Close(context.Background())
	msgs, err := g.Recover(t.Context())
	if err != nil || len(msgs) != 1 || !strings.Contains(msgs[0], gt.Host()) {
		t.Fatalf("Recover: %q %v, want one line naming %s", msgs, err, gt.Host())
	}
	if r := records(t, meta, "run-killed"); !r[0].Done || !strings.HasPrefix(r[0].Outcome, "at --resume") {
		t.Fatalf("after Recover: %+v", r[0])
	}
	if msgs, err := g.Recover(t.Context()); err != nil || len(msgs) != 0 {
		t.Fatalf("a second Recover: %q %v, want nothing left", msgs, err)
	}
}

// A recorded host that does not answer at resume is an error naming the
// fail point that may still be on, and its record stays unfinished.
func TestRecoverUnreachableKeepsRecord(t *testing.T) {
	uri := testferret.Start(t)
	meta := metaOf(t, uri)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	on, _ := bson.Marshal(slowCommand().On())
	rec := Record{ID: recordID(), Kind: Kind, Tool: "poolsweep", RunID: "run-dead", Host: dead, Name: Name, On: on, SetAt: time.Now().UTC(), Process: "pid 1 on x"}
	if _, err := meta.InsertOne(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	g := NewGuard(meta, "run-dead", func(host string) *options.ClientOptions {
		return DirectTo(plainClients())(host).SetServerSelectionTimeout(500 * time.Millisecond)
	})
	defer g.Close(context.Background())
	_, err := g.Recover(t.Context())
	if err == nil || !strings.Contains(err.Error(), "may still be on") {
		t.Fatalf("Recover of an unreachable host: %v", err)
	}
	if r := records(t, meta, "run-dead"); r[0].Done {
		t.Fatal("the record of a fail point not switched off was finished")
	}
}

func TestCommandChecked(t *testing.T) {
	for _, c := range []Command{
		{},                               // nothing to act on
		{FailCommands: []string{"find"}}, // no appName: would hold every client
		{FailCommands: []string{"find"}, AppName: "a"},                                            // does nothing
		{FailCommands: []string{"find"}, AppName: "a", BlockConnection: true},                     // no block time
		{FailCommands: []string{"find"}, AppName: "a", BlockConnection: true, BlockTime: 1 << 62}, // past int32 ms
	} {
		if err := c.check(); err == nil {
			t.Errorf("%+v passed the check", c)
		}
	}
	on := slowCommand().On()
	want := `{"configureFailPoint": "failCommand","mode": "alwaysOn","data": {"failCommands": ["find","insert"],"appName": "poolsweep","blockConnection": true,"blockTimeMS": {"$numberInt":"50"}}}`
	raw, _ := bson.Marshal(on)
	if got := bson.Raw(raw).String(); got != want {
		t.Errorf("On:\n got %s\nwant %s", got, want)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
