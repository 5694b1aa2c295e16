package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testkit/loopback"
)

// TestFaultReplicaSetRestartSamePorts is the failover test a user writes:
// a simulated replica set on fixed ports (serve --sim rs=3 --listen
// 127.0.0.1:PORT, a child process) is swept, killed, and started again
// on the same ports. A driver made before the kill finds the same set
// (the same members in hello, the same name) and writes to it again, and
// a sweep of the same URI runs against the restarted set.
// A replica-set simulator could not be started on fixed ports.
func TestFaultReplicaSetRestartSamePorts(t *testing.T) {
	t.Parallel()
	base := loopback.FreeBlock(t, 3)
	listen := fmt.Sprintf("127.0.0.1:%d", base)
	serveArgs := []string{"--sim", "rs=3,slots=4,service=1ms", "--listen", listen}
	want := fmt.Sprintf("mongodb://127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d/?replicaSet=rs0", base, base+1, base+2)
	cmd, uri := startServeCmd(t, serveArgs...)
	if uri != want {
		t.Fatalf("serve %v printed %s, want %s", serveArgs, uri, want)
	}
	sweepHosts := func(label string) []string {
		t.Helper()
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		code, stdout, stderr := runBinary(t, dir, 2*time.Minute, "sweep", "--target", "rs="+uri, "--workload", "mixed", "--mix", "read=50,update=50",
			"--concurrency", "2", "--warmup", "200ms", "--duration", "500ms", "--op-timeout", "2s", "--records", "100", "--no-plot", "--out", out)
		if code != 0 {
			t.Fatalf("%s: sweep exit %d\n%s\n%s", label, code, stdout, stderr)
		}
		res := readRes(t, filepath.Join(out, "results.jsonl"))
		if len(res.Header.Targets) != 1 || len(res.Steps) != 1 || res.Steps[0].TargetFailed != nil || res.Steps[0].OpsPerS <= 0 {
			t.Fatalf("%s: want one clean step against one target, got %d targets, %d steps", label, len(res.Header.Targets), len(res.Steps))
		}
		h := res.Header.Targets[0]
		if h.Topology != "replset" || h.SetName != "rs0" {
			t.Errorf("%s: target detected as %s %q, want replset rs0", label, h.Topology, h.SetName)
		}
		return slices.Sorted(slices.Values(h.Hosts))
	}
	before := sweepHosts("before the kill")

	// A driver that knows the set, as a user's application would.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	coll := client.Database("failover").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "before"}}); err != nil {
		t.Fatalf("insert before the kill: %v", err)
	}
	helloBefore := listenHelloOf(ctx, t, client)

	cmd.Process.Kill()
	cmd.Wait()
	short, cancelShort := context.WithTimeout(ctx, time.Second)
	err = client.Ping(short, nil)
	cancelShort()
	if err == nil {
		t.Fatal("the set still answers after its process was killed")
	}

	_, uri2 := startServeCmd(t, serveArgs...)
	if uri2 != uri {
		t.Fatalf("restarted on %s, first on %s", uri2, uri)
	}
	// The same client, not a new one: it must find the set again. Its
	// first write may meet a dead connection; a retryable write retries
	// once, and the loop gives the driver's monitors time to see the set.
	deadline := time.Now().Add(30 * time.Second)
	for {
		wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
		_, err = coll.InsertOne(wctx, bson.D{{Key: "_id", Value: "after"}})
		wcancel()
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("the driver made before the kill did not write to the restarted set: %v", err)
	}
	helloAfter := listenHelloOf(ctx, t, client)
	if !slices.Equal(helloAfter.Hosts, helloBefore.Hosts) || helloAfter.SetName != helloBefore.SetName || helloAfter.Primary != helloBefore.Primary {
		t.Errorf("hello before the kill %+v, after the restart %+v: not the same set", helloBefore, helloAfter)
	}
	if !slices.Equal(slices.Sorted(slices.Values(helloBefore.Hosts)), before) {
		t.Errorf("the sweep recorded hosts %v, hello says %v", before, helloBefore.Hosts)
	}
	// The restarted set holds what was written since, not what was
	// written before: the simulator keeps its documents in memory.
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "before"}}).Err(); err != mongo.ErrNoDocuments {
		t.Errorf("the document written before the kill: %v, want none (a restart starts empty)", err)
	}
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "after"}}).Err(); err != nil {
		t.Errorf("the document written after the restart: %v", err)
	}

	if after := sweepHosts("after the restart"); !slices.Equal(after, before) {
		t.Errorf("the sweep after the restart saw hosts %v, before %v", after, before)
	}
	if !strings.Contains(uri, "replicaSet=rs0") {
		t.Errorf("URI %s does not name the set", uri)
	}
}

// listenHello is the part of hello that says which set a member is in.
type listenHello struct {
	Hosts   []string `bson:"hosts"`
	SetName string   `bson:"setName"`
	Primary string   `bson:"primary"`
}

func listenHelloOf(ctx context.Context, t *testing.T, c *mongo.Client) listenHello {
	t.Helper()
	var h listenHello
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&h); err != nil {
		t.Fatalf("hello: %v", err)
	}
	return h
}
