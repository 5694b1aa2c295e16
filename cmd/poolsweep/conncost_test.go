package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConnectionSweepOnSimulator is the connection cost's ground truth:
// light clients at one total rate against a simulator whose connections
// cost conn_mem=1MiB each, with max_conns=500. Each client holds its pool
// of 2 and the driver's monitor (the simulator offers no streaming hello,
// so one), so 160 clients hold about 480 connections and 200 clients
// would need 600: analyze measures about 1 MiB per connection, within
// 10 % and with an interval (the simulator's own memory per connection
// adds a little), one monitor per client, the limit of 500, and the
// server refusing at 200 clients.
func TestConnectionSweepOnSimulator(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, _, stderr := runBinary(t, dir, 4*time.Minute, "sweep", "--target", "s=sim:service=1ms,conn_mem=1MiB,max_conns=500",
		"--rate", "100", "--clients", "10,40,80,160,200", "--pool", "2", "--max-in-flight", "2",
		"--warmup", "500ms", "--duration", "1s", "--trials", "2", "--prewarm-timeout", "5s", "--out", out, "--no-plot")
	if code != 0 && code != 3 { // 3: the steps past the limit failed
		t.Fatalf("sweep: exit %d, stderr %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "analyze", filepath.Join(out, "results.jsonl"), "--format", "json")
	if code != 0 && code != 3 {
		t.Fatalf("analyze: exit %d, stderr %s", code, stderr)
	}
	var doc struct {
		Cost *struct {
			Memory   *struct{ Value, Low, High float64 } `json:"memory_bytes"`
			Monitors *struct{ Value, Low, High float64 } `json:"monitors_per_client"`
			Limit    *float64                            `json:"limit"`
			Refused  *struct {
				Clients     int     `json:"clients"`
				Connections float64 `json:"connections"`
				Reason      string  `json:"reason"`
			} `json:"refused"`
			Levels []struct {
				Clients     int     `json:"clients"`
				Connections float64 `json:"connections"`
			} `json:"levels"`
		} `json:"connection_cost"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("analyze --format json: %v\n%s", err, stdout)
	}
	c := doc.Cost
	if c == nil {
		t.Fatalf("no connection_cost in %s", stdout)
	}
	const mib = 1 << 20
	// The estimate within 10 %, and its interval holding the truth: how
	// wide the interval is depends on how busy this host was.
	if m := c.Memory; m == nil || math.Abs(m.Value-mib) > 0.1*mib || !(m.Low <= mib && mib <= m.High) {
		t.Errorf("memory per connection %+v, want 1 MiB within 10 %%, inside its interval", m)
	} else {
		t.Logf("memory per connection %.0f B [%.0f, %.0f] (conn_mem 1048576)", m.Value, m.Low, m.High)
	}
	if m := c.Monitors; m == nil || math.Abs(m.Value-1) > 0.05 {
		t.Errorf("monitors per client %+v, want 1 (the driver polls the simulator)", m)
	}
	if c.Limit == nil || *c.Limit != 500 {
		t.Errorf("limit %v, want max_conns 500", c.Limit)
	}
	// What was said: the driver's words for the handshake the server
	// closed, or, where no operation failed, the server's own count at
	// its limit.
	if r := c.Refused; r == nil || r.Clients != 200 || r.Connections != 500 || !strings.Contains(r.Reason, "handshake") && !strings.Contains(r.Reason, "limit, 500") {
		t.Errorf("refused %+v, want at 200 clients, 500 connections, the handshake closed or the limit reached", r)
	} else {
		t.Logf("refused at %d clients, %.0f connections: %s", r.Clients, r.Connections, r.Reason)
	}
	if len(c.Levels) != 4 || c.Levels[3].Clients != 160 || math.Abs(c.Levels[3].Connections-(160*3+float64(int(c.Levels[0].Connections)-30))) > 2 {
		t.Errorf("levels %+v, want 10 to 160 clients, 3 connections each beside the same others", c.Levels)
	}
}
