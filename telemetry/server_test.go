package telemetry

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testkit/loopback"
	"github.com/poolsweep/poolsweep/internal/testkit/testferret"
	"github.com/poolsweep/poolsweep/internal/testkit/testpar"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
)

// TestMain runs the parallel tests (an unreachable host or shard,
// FerretDB's null fields, an idle child: they wait on timeouts and
// servers, and measure no speed) all at once. The samplers of this
// process's and a busy child's CPU stay serial.
// A child of this test binary may be asked to serve a simulator
// (testsrv.Main): a server alone in its process reports its own
// extra_info, as a real one does.
func TestMain(m *testing.M) {
	testpar.Default(8)
	testsrv.Main(m)
}

// TestServerSamplerFerretDB samples a real FerretDB while a little load
// runs: FerretDB answers serverStatus (no sampler errors) but reports none
// of the fields, and each must come out null, not zero.
func TestServerSamplerFerretDB(t *testing.T) {
	t.Parallel()
	host := testsrv.Host(t, testferret.Start(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	s, err := NewServerSampler([]string{host}, SamplerOptions{Interval: 100 * time.Millisecond, Base: options.Client()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(ctx); err != nil {
			t.Error(err)
		}
	}()

	// A little load from another client, so the window is not empty.
	coll := testsrv.Connect(t, "mongodb://"+host+"/").Database("tel").Collection("c")

	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err == nil {
		t.Error("second Start while running: want an error")
	}
	deadline := time.Now().Add(500 * time.Millisecond)
	for i := 0; time.Now().Before(deadline) && i < 1000; i++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "i", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	tel := s.Stop()
	if tel == nil {
		t.Fatal("Stop returned nil")
	}
	if tel.SamplerErrors != 0 {
		t.Errorf("sampler errors = %d (%s), want 0: FerretDB answers serverStatus", tel.SamplerErrors, tel.SamplerError)
	}
	h := tel.Hosts[host]
	if h == nil {
		t.Fatalf("no entry for %s in %v", host, tel.Hosts)
	}
	// Start, ~5 ticks, Stop; a loaded machine may skip ticks.
	if h.Samples < 3 {
		t.Errorf("samples = %d, want ≥ 3", h.Samples)
	}
	// Every field but the sample count, the cores and the version
	// FerretDB claims (a MongoDB version, in serverStatus) comes out null,
	// not zero, in the results file; the total likewise.
	for what, v := range map[string]any{"host": h, "total": tel.Total} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		if err := json.Unmarshal(b, &fields); err != nil {
			t.Fatal(err)
		}
		for k, v := range fields {
			if v != nil && k != "samples" && k != "cores" && k != "version" {
				t.Errorf("%s %s = %v on FerretDB, which does not report it; want null", what, k, v)
			}
		}
	}
	// FerretDB 1.24 answers hostInfo with its GOMAXPROCS (it runs in this
	// test's process), asked once when the sampler first connected.
	if h.Cores == nil || *h.Cores != runtime.GOMAXPROCS(0) {
		t.Errorf("cores = %v, want FerretDB's hostInfo numCores %d", h.Cores, runtime.GOMAXPROCS(0))
	}
	if tel.Total.Cores != nil {
		t.Errorf("total cores = %d, want null (cores are per host)", *tel.Total.Cores)
	}

	// The sampler is reusable: a second window works the same.
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if tel2 := s.Stop(); tel2 == nil || tel2.SamplerErrors != 0 || tel2.Hosts[host].Samples < 2 {
		t.Errorf("second window = %+v", tel2)
	}
	if s.Stop() != nil {
		t.Error("Stop without a running window: want nil")
	}
}

// TestServerSamplerUnreachable: a host that refuses connections yields
// counted errors and null fields, within the time bound, and never fails.
func TestServerSamplerUnreachable(t *testing.T) {
	t.Parallel()
	host := loopback.ClosedAddr(t)

	s, err := NewServerSampler([]string{host}, SamplerOptions{Interval: 100 * time.Millisecond, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	defer func() { _ = s.Close(ctx) }()
	begin := time.Now()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	tel := s.Stop()
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("window took %v with a dead host, want it bounded by the timeouts", took)
	}
	if tel.SamplerErrors < 2 || !strings.Contains(tel.SamplerError, host) {
		t.Errorf("sampler errors = %d, first %q; want ≥ 2 naming %s", tel.SamplerErrors, tel.SamplerError, host)
	}
	h := tel.Hosts[host]
	if h == nil || h.Samples != 0 || h.Connections != nil || h.OpcountersPerS != nil {
		t.Errorf("dead host entry = %+v, want no samples and null fields", h)
	}
}

// TestServerSamplerCancelledContext: ending Start's context stops the
// ticks without counting errors, and Stop still closes the window.
func TestServerSamplerCancelledContext(t *testing.T) {
	t.Parallel()
	host := testsrv.Host(t, testferret.Start(t))
	s, err := NewServerSampler([]string{host}, SamplerOptions{Interval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close(context.Background()) }()
	ctx, cancel := context.WithCancel(context.Background())
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	tel := s.Stop()
	if tel.SamplerErrors != 0 || tel.Hosts[host].Samples < 2 {
		t.Errorf("after cancel: errors %d (%s), samples %d; want 0 errors and the start and stop samples",
			tel.SamplerErrors, tel.SamplerError, tel.Hosts[host].Samples)
	}
}

func TestNewServerSamplerNoHosts(t *testing.T) {
	if _, err := NewServerSampler(nil, SamplerOptions{}); err == nil {
		t.Error("no hosts: want an error")
	}
}
