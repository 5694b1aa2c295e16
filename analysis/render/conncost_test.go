package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/conncost"
	"github.com/poolsweep/poolsweep/results"
)

func costFixture() *conncost.Cost {
	f := func(v float64) *float64 { return &v }
	return &conncost.Cost{
		MemoryBytes:       &results.Interval{Value: 1071234.5678, Low: 1040000.123, High: 1102000.9},
		MonitorsPerClient: &results.Interval{Value: 2.0004, Low: 1.99, High: 2.01},
		Limit:             f(400),
		Refused:           &conncost.Refusal{Clients: 200, Connections: 400, Reason: "connection closed during the handshake\x1b[2J"},
		Levels: []conncost.Level{{Clients: 10, Connections: 37.25, ResidentBytes: f(92_000_000.4), CPUPct: f(4.666), Trials: 2},
			{Clients: 100, Connections: 307, ResidentBytes: f(387_000_000), CPUPct: f(5.3), HelloPerS: f(10.04), Trials: 2}},
		Server: "127.0.0.1:1", Target: "s", Workload: "read", Pool: "2", Rate: 200, Confidence: 0.95,
		Notes: []string{"CPU per connection: the server reported none of what it needs"},
	}
}

// TestConnectionCostText: analyze's view of a connection sweep names the
// fits with their intervals in binary units, the limit, where the server
// refused (escaped: the words come from the network), the notes and the
// levels; a fit that is missing says so rather than showing a number.
func TestConnectionCostText(t *testing.T) {
	var b bytes.Buffer
	ConnectionCost(&b, costFixture())
	out := b.String()
	for _, want := range []string{
		"connection cost: s on 127.0.0.1:1, read pool 2 at 200 calls/s over all clients (95% intervals)",
		"memory per connection:  1.02 MiB [0.99 MiB, 1.05 MiB]",
		"CPU per connection:     not fitted (see the notes)",
		"monitors per client:    2.00 [1.99, 2.01]",
		"connection limit:       400",
		`refused at 200 clients (400 connections): connection closed during the handshake\x1b[2J`,
		"note: CPU per connection: the server reported none",
		"      10           37     87.7 MiB      4.7         -       2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Error("an escape sequence reached the terminal")
	}
}

// TestConnectionCostJSON: analyze --format json carries connection_cost
// with memory_bytes and cpu_us_per_s as {value, low, high} (null when not
// fitted), rounded to three significant figures.
func TestConnectionCostJSON(t *testing.T) {
	a := &analysis.Analysis{ConnectionCosts: []*conncost.Cost{costFixture()}}
	var b bytes.Buffer
	if err := JSON(&b, a); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ConnectionCost struct {
			MemoryBytes *results.Interval `json:"memory_bytes"`
			CPU         *results.Interval `json:"cpu_us_per_s"`
			Limit       float64           `json:"limit"`
			Levels      []conncost.Level  `json:"levels"`
		} `json:"connection_cost"`
		ConnectionCosts []any `json:"connection_costs"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.ConnectionCost
	if c.MemoryBytes == nil || c.MemoryBytes.Value != 1070000 || c.MemoryBytes.Low != 1040000 || c.MemoryBytes.High != 1100000 {
		t.Errorf("memory_bytes %+v", c.MemoryBytes)
	}
	if c.CPU != nil || !strings.Contains(b.String(), `"cpu_us_per_s": null`) {
		t.Errorf("cpu_us_per_s not null: %+v", c.CPU)
	}
	if c.Limit != 400 || len(c.Levels) != 2 || c.Levels[0].Connections != 37.3 || doc.ConnectionCosts != nil {
		t.Errorf("limit %v levels %+v costs %v", c.Limit, c.Levels, doc.ConnectionCosts)
	}
}
