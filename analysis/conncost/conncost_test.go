package conncost

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

func ptr(v float64) *float64 { return &v }

// sweepStep is one open-loop step of a connection sweep against host h:
// k clients, each with pool connections open and monitors more, on a
// server whose memory is base + perConn·connections (MiB, as mem.resident
// reports it) and CPU base + cpuPerConn·connections.
func sweepStep(k, trial, pool int, monitors, other, perConnMiB, cpuPerConnPct, noise float64) results.StepResult {
	conns := float64(k)*(float64(pool)+monitors) + other
	res := 100 + perConnMiB*conns + noise
	cpu := 5 + cpuPerConnPct*conns + noise/100
	return results.StepResult{Target: "s", Workload: "read", PoolSetting: "2", Concurrency: 2, Clients: k, Trial: trial,
		Mode: results.ModeOpen, Rate: 500,
		Pool: results.PoolStats{ConnectionsOpen: k * pool, HeartbeatsPerS: ptr(float64(k) / 10)},
		Server: &results.ServerTelemetry{Hosts: map[string]*results.ServerSample{
			"h:1": {Connections: &results.ConnCounts{Current: ptr(conns), Peak: ptr(conns), Limit: ptr(5000)}, ResidentMB: ptr(res), RSSMB: ptr(res + 7), CPUPct: ptr(cpu)},
		}}}
}

// TestEstimateRecoversTheConstruction: steps built from a known cost per
// connection (1 MiB, 0.01 % of a core = 1 µs/s), 2 monitors per client
// and 5 other connections, with noise, give back each within its
// interval; the levels are the medians, the limit the server's.
func TestEstimateRecoversTheConstruction(t *testing.T) {
	var r results.Results
	noise := []float64{0.4, -0.3, 0.1, -0.2, 0.3, -0.1}
	i := 0
	for trial := 1; trial <= 2; trial++ {
		for _, k := range []int{10, 100, 1000} {
			r.Steps = append(r.Steps, sweepStep(k, trial, 2, 2, 5, 1, 0.0001, noise[i]))
			i++
		}
	}
	// A closed-loop step and another series are not the sweep.
	other := sweepStep(50, 1, 4, 2, 5, 1, 0.0001, 0)
	other.PoolSetting = "4"
	closed := sweepStep(20, 1, 2, 2, 5, 1, 0.0001, 0)
	closed.Mode, closed.Rate = "", 0
	r.Steps = append(r.Steps, other, closed)

	c, err := Estimate(&r)
	if err != nil {
		t.Fatal(err)
	}
	within := func(what string, iv *results.Interval, want, tol float64) {
		t.Helper()
		switch {
		case iv == nil:
			t.Errorf("%s: not fitted", what)
		case math.Abs(iv.Value-want) > tol*want:
			t.Errorf("%s: %g, want %g within %g%%", what, iv.Value, want, tol*100)
		case !(iv.Low <= want && want <= iv.High) || iv.Low > iv.High:
			t.Errorf("%s: interval [%g, %g] does not hold %g", what, iv.Low, iv.High, want)
		}
	}
	within("memory", c.MemoryBytes, 1<<20, 0.01)
	within("cpu", c.CPUusPerS, 1, 0.05)
	within("monitors", c.MonitorsPerClient, 2, 0.01)
	if c.Server != "h:1" || c.Pool != "2" || c.Rate != 500 || c.Limit == nil || *c.Limit != 5000 || c.Refused != nil {
		t.Errorf("server %q pool %q rate %d limit %v refused %+v", c.Server, c.Pool, c.Rate, c.Limit, c.Refused)
	}
	if len(c.Levels) != 3 || c.Levels[0].Clients != 10 || c.Levels[2].Trials != 2 || c.Levels[2].Connections != 4005 {
		t.Errorf("levels %+v", c.Levels)
	}
	if h := c.Levels[1].HelloPerS; h == nil || *h != 10 {
		t.Errorf("hello/s at 100 clients: %v, want 10", h)
	}
	// The server's own mem.resident, not the process's rss_mb, is the
	// level's: the median of 145.4 and 144.8 MiB.
	if b := c.Levels[0].ResidentBytes; b == nil || math.Abs(*b-145.1*(1<<20)) > 1 {
		t.Errorf("resident at 10 clients: %v", b)
	}
}

// TestEstimateRefusal: the first client count whose step failed, or whose
// connections failed or reached the limit, is where the server refused,
// with what was said.
func TestEstimateRefusal(t *testing.T) {
	base := func() results.Results {
		var r results.Results
		for _, k := range []int{10, 20, 40} {
			r.Steps = append(r.Steps, sweepStep(k, 1, 2, 2, 5, 1, 0.0001, 0))
		}
		return r
	}
	r := base()
	r.End = &results.EndRecord{FailedSteps: []results.FailedStep{{Target: "s", Workload: "read", PoolSetting: "2", Concurrency: 2, Clients: 80, Trial: 1, Rate: 500,
		Error: "pre-warm: connection(127.0.0.1:1) incomplete read of message header: EOF\x1b[2J"}}}
	c, err := Estimate(&r)
	if err != nil {
		t.Fatal(err)
	}
	if c.Refused == nil || c.Refused.Clients != 80 || !strings.Contains(c.Refused.Reason, "incomplete read") || strings.Contains(c.Refused.Reason, "\x1b") {
		t.Errorf("a failed step: %+v", c.Refused)
	}

	r = base()
	r.Steps[1].Errors.Network, r.Steps[1].ErrorSample = 3, "connection reset by peer"
	if c, _ := Estimate(&r); c.Refused == nil || c.Refused.Clients != 20 || c.Refused.Reason != "connection reset by peer" {
		t.Errorf("network errors: %+v", c.Refused)
	}

	// Past a server's limit the handshake is closed, and the sweep marks
	// the step a failure of the target: not fitted, still the refusal.
	r = base()
	r.Steps[2].TargetFailed = &results.TargetFailed{Failed: true, Reason: "no operation succeeded"}
	r.Steps[2].Errors.Network, r.Steps[2].ErrorSample = 2, "connection() error occurred during connection handshake: EOF"
	r.Steps[2].Server.Hosts["h:1"].Connections.Peak = ptr(150)
	if c, _ := Estimate(&r); c.Refused == nil || c.Refused.Clients != 40 || c.Refused.Connections != 150 || !strings.Contains(c.Refused.Reason, "handshake") {
		t.Errorf("a step marked as the target failing: %+v", c.Refused)
	}

	r = base()
	r.Steps[2].Server.Hosts["h:1"].Connections.Limit = ptr(100)
	c, _ = Estimate(&r)
	if c.Refused == nil || c.Refused.Clients != 40 || !strings.Contains(c.Refused.Reason, "limit, 100") {
		t.Errorf("at the limit: %+v", c.Refused)
	}
	// The refused level measured the limit, not a cost: not fitted, not a
	// level.
	if len(c.Levels) != 2 || c.Levels[1].Clients != 20 {
		t.Errorf("levels past the refusal: %+v", c.Levels)
	}
}

// TestEstimateNoSweep: a run without two client counts at one rate has
// no connection sweep; with two levels of one trial each there is one,
// but no interval, and the notes say why.
func TestEstimateNoSweep(t *testing.T) {
	var r results.Results
	if _, err := Estimate(&r); !errors.Is(err, ErrNoConnectionSweep) {
		t.Errorf("empty run: %v", err)
	}
	r.Steps = []results.StepResult{sweepStep(10, 1, 2, 2, 5, 1, 0, 0), sweepStep(10, 2, 2, 2, 5, 1, 0, 0)}
	if _, err := Estimate(&r); !errors.Is(err, ErrNoConnectionSweep) {
		t.Errorf("one client count: %v", err)
	}
	s := sweepStep(20, 1, 2, 2, 5, 1, 0, 0)
	s.Rate = 600
	r.Steps = append(r.Steps, s)
	if _, err := Estimate(&r); !errors.Is(err, ErrNoConnectionSweep) {
		t.Errorf("two client counts at two rates: %v", err)
	}
	r.Steps = []results.StepResult{sweepStep(10, 1, 2, 2, 5, 1, 0, 0), sweepStep(20, 1, 2, 2, 5, 1, 0, 0)}
	c, err := Estimate(&r)
	if err != nil {
		t.Fatal(err)
	}
	if c.MemoryBytes != nil || len(c.Notes) != 3 || !strings.Contains(c.Notes[0], "an interval needs 3") {
		t.Errorf("two points: memory %v, notes %q", c.MemoryBytes, c.Notes)
	}
}

// TestEstimateWithoutConnections: a server that reports no
// connections.current (FerretDB) gets its memory per client, pool and
// monitors together, fitted against the clients, and notes saying why
// there is nothing per connection.
func TestEstimateWithoutConnections(t *testing.T) {
	var r results.Results
	for trial := 1; trial <= 2; trial++ {
		for _, k := range []int{5, 20, 80} {
			st := sweepStep(k, trial, 1, 2, 5, 0, 0, 0)
			h := st.Server.Hosts["h:1"]
			h.Connections, h.ResidentMB = nil, nil
			h.RSSMB = ptr(60 + 0.5*float64(k) + float64(trial)) // 512 KiB a client
			st.Pool.HeartbeatsPerS = nil
			r.Steps = append(r.Steps, st)
		}
	}
	c, err := Estimate(&r)
	if err != nil {
		t.Fatal(err)
	}
	if c.Server != "h:1" || c.MemoryBytes != nil || c.MemoryBytesPerClient == nil || math.Abs(c.MemoryBytesPerClient.Value-(512<<10)) > 1 {
		t.Errorf("server %q, per connection %v, per client %+v", c.Server, c.MemoryBytes, c.MemoryBytesPerClient)
	}
	if len(c.Notes) == 0 || !strings.Contains(c.Notes[0], "no connections.current; per client") {
		t.Errorf("notes %q", c.Notes)
	}
}
