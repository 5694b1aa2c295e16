package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// TestWall: a duration is printed to the precision a person reads it at.
func TestWall(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{1234 * time.Millisecond, "1.23s"},                         // under 10 s: to 10 ms
		{12345 * time.Millisecond, "12.3s"},                        // under a minute: to 100 ms
		{90*time.Second + 400*time.Millisecond, "1m30s"},           // under an hour: to the second
		{2*time.Hour + 20*time.Minute + 40*time.Second, "2h21m0s"}, // to the minute
	} {
		if got := Wall(tc.d); got != tc.want {
			t.Errorf("Wall(%s) = %s, want %s", tc.d, got, tc.want)
		}
	}
}

// TestPrefixWriter: whole lines go out one at a time, each after the
// prefix, however the writes split them; a last line without its newline
// waits for Flush.
func TestPrefixWriter(t *testing.T) {
	var out bytes.Buffer
	w := PrefixWriter(&out, "agent 0: ")
	for _, chunk := range []string{"first", " line\nsec", "ond\n\nthird"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	if got := out.String(); got != "agent 0: first line\nagent 0: second\nagent 0: \n" {
		t.Errorf("before Flush: %q", got)
	}
	w.Flush()
	if !strings.HasSuffix(out.String(), "agent 0: third\n") {
		t.Errorf("after Flush: %q", out.String())
	}
}

// TestProfileStepLine: a profile step's line gives its peak, what it
// offered and carried, the worst interval's p99 where the summary has it,
// and the connections its pools opened, instead of averages over a
// profile that idles part of the time.
func TestProfileStepLine(t *testing.T) {
	s := results.StepResult{Target: "sim", Workload: "read", PoolSetting: "20", Clients: 2, Trial: 1, Rate: 400, Mode: results.ModeProfile,
		Calls: 598, OpsPerS: 260, CallsPerS: 260, Latency: results.LatencySummary{P99: 14}, Connections: 0,
		Pool:    results.PoolStats{ConnectionsMax: 12},
		Open:    &results.OpenLoopStats{Offered: 600, Dropped: 2},
		Profile: &results.ProfileStats{Summary: results.ProfileSummary{WorstP99MS: new(38.9), ConnectionsCreated: 12, ConnectionsClosed: 1}}}
	var b bytes.Buffer
	NewText(&b, 4).step(3, s)
	got := b.String()
	for _, want := range []string{"[3/4] sim read profile peak=400/s P=20 K=2 trial 1:", "598 calls of 600 offered, dropped 2", "worst interval p99 38.9ms",
		"connections 0 at the start, up to 12 (12 created, 1 closed)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the line %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "ops/s") || strings.Contains(got, "rate=400/s") {
		t.Errorf("the line %q gives a profile's averages or a constant rate", got)
	}
	s.Profile.Summary.WorstP99MS = nil
	b.Reset()
	NewText(&b, 4).step(3, s)
	if strings.Contains(b.String(), "worst") {
		t.Errorf("the line %q gives a worst p99 the summary does not have", b.String())
	}
}
