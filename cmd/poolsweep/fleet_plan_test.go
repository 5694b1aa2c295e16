package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestFleetPlanBadInput: a run without a connection sweep given as
// --costs, an unknown tier, a trace with a bad row, and flags that say one
// thing twice or describe a fleet not asked for: each is exit 2 with one
// line naming the flag (or the file, line and field), before any output.
func TestFleetPlanBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace := writeFile(t, dir, "pods.csv", "t_s,instances\n0,10\n60,200\n")
	badRow := writeFile(t, dir, "bad.csv", "t_s,instances\n0,10\n60,lots\n")
	backwards := writeFile(t, dir, "back.csv", "0,10\n60,20\n30,40\n")
	rates := writeFile(t, dir, "rates.csv", "t_s,rate\n0,100\n60,2000\n120,0\n")
	badRates := writeFile(t, dir, "badrates.csv", "t_s,rate\n0,100\n60,-5\n120,0\n")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"fleet", recordedRun, "--instances", "4", "--costs", recordedRun}, "--costs: " + recordedRun + ": the run holds no connection sweep"},
		{[]string{"fleet", "--instances", "400", "--limit", "atlas:M30", "--costs", recordedRun}, "--costs: " + recordedRun + ": the run holds no connection sweep"},
		{[]string{"fleet", recordedRun, "--instances", "4", "--costs", filepath.Join(dir, "none.jsonl")}, "--costs"},
		{[]string{"fleet", recordedRun, "--instances", "4", "--limit", "atlas:M31"}, `--limit: atlas tier "M31" is not one of`},
		{[]string{"fleet", recordedRun, "--instances", "4", "--limit", "3000"}, "--limit"},
		{[]string{"fleet", recordedRun, "--instances", "4", "--limit", "atlas:" + strings.Repeat("M", 5000)}, "(5000 bytes)"},
		{[]string{"fleet", recordedRun, "--instances-trace", badRow}, "--instances-trace: " + badRow + ":3: instances: not a whole number"},
		{[]string{"fleet", recordedRun, "--instances-trace", backwards}, backwards + ":3: t_s: 30 is not after the row before"},
		{[]string{"fleet", recordedRun, "--instances-trace", filepath.Join(dir, "none.csv")}, "--instances-trace"},
		{[]string{"fleet", recordedRun, "--instances-trace", dir}, "--instances-trace"},
		{[]string{"fleet", recordedRun, "--rate-trace", badRates, "--rate-per-instance", "10"}, "--rate-trace: " + badRates + ":3"},
		{[]string{"fleet", recordedRun, "--rate-trace", rates, "--rate-per-instance", "0.001"}, "--rate-trace"},
		{[]string{"fleet", recordedRun, "--instances", "4", "--instances-trace", trace}, "--instances: the trace gives the fleet's size"},
		{[]string{"fleet", recordedRun, "--instances-trace", trace, "--rate-trace", rates}, "--rate-trace"},
		{[]string{"fleet", recordedRun, "--rate-trace", rates}, "--rate-per-instance: required"},
		{[]string{"fleet", recordedRun, "--instances", "4", "--rate-per-instance", "5"}, "--rate-per-instance"},
		{[]string{"fleet", recordedRun, "--instances", "4", "--min-pool", "2,4"}, "--min-pool"},
		{[]string{"fleet", recordedRun, "--instances", "4", "--max-idle", "1500us"}, "--max-idle"},
		{[]string{"fleet", recordedRun, "--instances-trace", trace, "--max-idle", "-1s"}, "--max-idle"},
		{[]string{"fleet", recordedRun, "--instances", "4", "--costs", recordedRun, "--conn-memory", "2"}, "--conn-memory"},
		{[]string{"fleet", recordedRun, "--instances", "4", "--limit", "atlas:M30", "--max-connections", "100"}, "--limit"},
		{[]string{"fleet", recordedRun, "--instances-trace", trace, "-o", trace}, "-o"},
		{[]string{"fleet", recordedRun}, "--instances: required"},
	} {
		code, stdout, stderr := runCLI(t, tt.args...)
		wantUsageLine(t, tt.args, code, stdout, stderr, tt.want)
	}
}

// TestFleetAutoscalingTrace plans the fleet of an instance trace from 10
// to 200 instances on the recorded simulator run with accept_cost=2ms,
// beside its recorded storm: the plan is made for the peak, the peak's
// connections per host are 200 × (P + 2), and the largest scale-out's
// pools warm at the storm's rate, which the construction puts at the
// acceptor's 500 connections/s (2 ms each), within 10 %. A traffic trace
// and an instances-per-rate rule give the same fleet.
func TestFleetAutoscalingTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pods := writeFile(t, dir, "pods.csv", "t_s,instances\n0,10\n300,40\n600,200\n1800,200\n2400,10\n")
	traffic := writeFile(t, dir, "traffic.csv", "t_s,rate\n0,1000\n300,4000\n600,20000\n2400,1000\n3000,0\n")
	type plan struct {
		Instances int `json:"instances"`
		Series    []struct {
			Monitors int `json:"monitors_per_instance"`
			Rec      struct {
				MaxPoolSize int `json:"max_pool_size"`
			} `json:"recommendation"`
			Scaling struct {
				PeakInstances   int `json:"peak_instances"`
				PeakConnections int `json:"peak_connections_per_host"`
				LowInstances    int `json:"low_instances"`
				RestConnections int `json:"rest_connections_per_host"`
				ScaleOuts       []struct {
					From      int `json:"from"`
					To        int `json:"to"`
					FullConns int `json:"full_connections_per_host"`
					Warm      struct {
						AcceptPerS float64 `json:"accept_per_s"`
						FullS      float64 `json:"full_s"`
					} `json:"warm"`
				} `json:"scale_outs"`
			} `json:"scaling"`
		} `json:"series"`
	}
	for _, args := range [][]string{
		{"--instances-trace", pods},
		{"--rate-trace", traffic, "--rate-per-instance", "100"},
	} {
		argv := append([]string{"fleet", acceptRun, "--storm", acceptStorm, "--min-pool", "1", "--max-idle", "30s", "--limit", "atlas:M30", "--format", "json"}, args...)
		code, stdout, stderr := runCLI(t, argv...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var p plan
		if err := json.Unmarshal([]byte(stdout), &p); err != nil || len(p.Series) != 1 {
			t.Fatalf("%v: %v\n%s", args, err, stdout)
		}
		s := p.Series[0]
		sc, pool, m := s.Scaling, s.Rec.MaxPoolSize, s.Monitors
		if p.Instances != 200 || sc.PeakInstances != 200 || sc.LowInstances != 10 || sc.PeakConnections != 200*(pool+m) || sc.RestConnections != 10*(1+m) {
			t.Errorf("%v: %+v at maxPoolSize %d", args, sc, pool)
		}
		if len(sc.ScaleOuts) != 2 || sc.ScaleOuts[0].From != 40 || sc.ScaleOuts[0].To != 200 {
			t.Fatalf("%v: scale-outs %+v", args, sc.ScaleOuts)
		}
		big := sc.ScaleOuts[0]
		construction := float64(big.FullConns) * 0.002 // accept_cost=2ms per connection
		if big.FullConns != 160*(pool+m) || math.Abs(big.Warm.FullS-construction) > 0.1*construction {
			t.Errorf("%v: %d connections warm in %.3f s at %.0f/s; the construction's %.3f s", args, big.FullConns, big.Warm.FullS, big.Warm.AcceptPerS, construction)
		}
		t.Logf("%v: peak %d connections per host at maxPoolSize %d; 40 → 200 opens %d, warm in %.3f s at %.0f/s (construction %.3f s)",
			args, sc.PeakConnections, pool, big.FullConns, big.Warm.FullS, big.Warm.AcceptPerS, construction)
	}
}
