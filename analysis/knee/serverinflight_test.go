package knee

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// inFlightSeries is a series with throughput qps[i] and server in-flight
// count sif[i] at level i (a negative value means "not reported"), with
// trials that differ by 0.1% steps.
func inFlightSeries(grid []int, qps, sif []float64, trials int) Series {
	s := Series{Target: "srv", Pool: "match", Clients: 1}
	for i, c := range grid {
		for tr := range trials {
			p := Point{Concurrency: c, QPS: qps[i] * (1 + 0.001*float64(tr)), Trial: tr + 1}
			if sif[i] >= 0 {
				p.ServerInFlight, p.HasServerInFlight = sif[i]*(1+0.001*float64(tr)), true
			}
			s.Points = append(s.Points, p)
		}
	}
	return s
}

func TestServerInFlightKnee(t *testing.T) {
	grid := []int{1, 2, 4, 8, 16, 32, 64}
	stepQPS := []float64{500, 1000, 2000, 4000, 4000, 4000, 4000} // throughput knee at 8
	tests := []struct {
		name string
		qps  []float64
		sif  []float64
		want int    // server in-flight method's answer, 0 for none
		note string // part of its note
	}{
		// The server's in-flight ops rise to 8 and stay: knee 8.
		{"rises to 8 and stays", stepQPS, []float64{1, 2, 4, 8, 8, 8, 8}, 8, "level off at 8.0"},
		// Noise around the plateau does not move it.
		{"noisy plateau", stepQPS, []float64{1, 2, 4, 7.8, 8.1, 7.9, 8.2}, 8, "level off"},
		// A server with queueing inside it: in-flight levels off later.
		{"levels off at 32", stepQPS, []float64{1, 2, 4, 8, 16, 31, 32}, 32, "level off"},
		// Still rising at the top: no answer, and why.
		{"still rising", stepQPS, []float64{1, 2, 4, 8, 16, 32, 64}, 0, "still rose 100%"},
		// The server reports no latency: the method does not run.
		{"not reported", stepQPS, []float64{-1, -1, -1, -1, -1, -1, -1}, 0, "needs server latency"},
		// Reported at some levels only: not run on a partial curve.
		{"partly reported", stepQPS, []float64{1, 2, -1, 8, 8, 8, 8}, 0, "6 of 7 levels"},
	}
	for _, tt := range tests {
		r := Analyze(inFlightSeries(grid, tt.qps, tt.sif, 3), DefaultOptions())
		m := r.Methods.ServerInFlight
		got := 0
		if m.Concurrency != nil {
			got = *m.Concurrency
		}
		if got != tt.want || !strings.Contains(m.Note, tt.note) {
			t.Errorf("%s: server in-flight knee %d (%q), want %d (%q)", tt.name, got, m.Note, tt.want, tt.note)
		}
	}
}

func TestServerInFlightJoinsConsensus(t *testing.T) {
	grid := []int{1, 2, 4, 8, 16, 32, 64}
	// Throughput methods disagree: plateau says 8, Kneedle and marginal 4
	// (the doubling 4 → 8 adds only 8%). The median of three is 4.
	qps := []float64{1000, 2000, 3700, 4000, 4000, 4000, 4000}
	r := Analyze(inFlightSeries(grid, qps, []float64{-1, -1, -1, -1, -1, -1, -1}, 3), DefaultOptions())
	if r.Knee.Concurrency != 4 || strings.Contains(r.Knee.Statement, "server in-flight") {
		t.Fatalf("without server latency: knee %d (%s)", r.Knee.Concurrency, r.Knee.Statement)
	}
	// The server's in-flight count levels off at 32: four answers (4, 4,
	// 8, 32), the higher middle one is 8, and the range reaches 32.
	r = Analyze(inFlightSeries(grid, qps, []float64{1, 2, 4, 8, 16, 31, 32}, 3), DefaultOptions())
	if r.Knee.Concurrency != 8 || r.Knee.High != 32 || !strings.Contains(r.Knee.Statement, "server in-flight 32") {
		t.Errorf("with server in-flight 32: knee %d [%d, %d] (%s)", r.Knee.Concurrency, r.Knee.Low, r.Knee.High, r.Knee.Statement)
	}
	if r.Levels[3].ServerInFlight == nil || *r.Levels[3].ServerInFlight != 8.008 {
		t.Errorf("level 8 server in-flight %v, want the median of 8, 8.008, 8.016", r.Levels[3].ServerInFlight)
	}
}

func TestServerInFlightFromResults(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	steps := []results.StepResult{
		// Server-wide total.
		{Target: "a", Concurrency: 8, OpsPerS: 100, DurationS: 1, Ops: 100, Server: &results.ServerTelemetry{Total: &results.ServerSample{InFlight: f(7.5)}}},
		// No total, one host: the host is the server.
		{Target: "a", Concurrency: 16, OpsPerS: 100, DurationS: 1, Ops: 100, Server: &results.ServerTelemetry{Hosts: map[string]*results.ServerSample{"h:1": {InFlight: f(8)}}}},
		// Reported without latency: not known.
		{Target: "a", Concurrency: 32, OpsPerS: 100, DurationS: 1, Ops: 100, Server: &results.ServerTelemetry{Total: &results.ServerSample{}}},
		// No server telemetry at all.
		{Target: "a", Concurrency: 64, OpsPerS: 100, DurationS: 1, Ops: 100},
	}
	ss := FromResults([]*results.Results{{Path: "r.jsonl", Steps: steps}})
	if len(ss) != 1 || len(ss[0].Points) != 4 {
		t.Fatalf("series %+v", ss)
	}
	want := []struct {
		v  float64
		ok bool
	}{{7.5, true}, {8, true}, {0, false}, {0, false}}
	for i, p := range ss[0].Points {
		if p.ServerInFlight != want[i].v || p.HasServerInFlight != want[i].ok {
			t.Errorf("point %d: %v %v, want %v %v", i, p.ServerInFlight, p.HasServerInFlight, want[i].v, want[i].ok)
		}
	}
}
