package results

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func stormHeader() RunHeader {
	return RunHeader{Kind: KindRun, Schema: SchemaVersion, Targets: []TargetHeader{{Name: "sim", Hosts: []string{"h:1"}}},
		Plan: PlanInfo{Concurrency: []int{}, Storm: &StormPlan{Clients: []int{10}, Pool: 20, MaxConnecting: []int{2}, TimeoutS: 60, ProbeIntervalMs: 10}}}
}

func goodStorm() StormResult {
	fill := 0.42
	return StormResult{Kind: KindStorm, Target: "sim", Clients: 10, Pool: 20, PoolsPerClient: 1, MaxConnecting: 2, Trial: 1,
		StartedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Wanted: 200, Ready: 200, FillS: &fill, DurationS: 0.42,
		PoolFillMs: Quantiles{Mean: 400, P50: 400, P99: 420, Max: 420}, Probe: Probe{IntervalMs: 10, Ops: 40}}
}

func TestValidateStorm(t *testing.T) {
	h := stormHeader()
	for _, tc := range []struct {
		name  string
		edit  func(*StormResult, *RunHeader)
		field string // "" when valid
	}{
		{"valid", func(*StormResult, *RunHeader) {}, ""},
		{"wanted is K·P·pools", func(s *StormResult, _ *RunHeader) { s.Wanted = 199 }, "storm.connections_wanted"},
		{"ready within wanted", func(s *StormResult, _ *RunHeader) { s.Ready = 201 }, "storm.connections_ready"},
		{"a fill time needs every connection", func(s *StormResult, _ *RunHeader) { s.Ready = 150 }, "storm.fill_s"},
		{"K in range", func(s *StormResult, _ *RunHeader) { s.Clients, s.Wanted = 0, 0 }, "storm.clients"},
		{"a target the header names", func(s *StormResult, _ *RunHeader) { s.Target = "other" }, "storm.target"},
		{"a window", func(s *StormResult, _ *RunHeader) { s.DurationS = 0 }, "storm.duration_s"},
		{"pool fill in order", func(s *StormResult, _ *RunHeader) { s.PoolFillMs.P50 = 500 }, "storm.pool_fill_ms"},
		{"counts", func(s *StormResult, _ *RunHeader) { s.ConnectErrors = -1 }, "storm.connect_errors"},
		{"a storm needs a storm plan", func(_ *StormResult, h *RunHeader) { h.Plan.Storm = nil }, "storm"},
	} {
		s, hh := goodStorm(), h
		tc.edit(&s, &hh)
		err := ValidateStorm(&s, &hh)
		var fe *FieldError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.field != "" && (err == nil || !asFieldError(err, &fe) || fe.Field != tc.field):
			t.Errorf("%s: %v, want a problem with %s", tc.name, err, tc.field)
		}
	}
	bad := stormHeader()
	bad.Plan.Storm.Pool = 0
	if err := ValidateHeader(&bad); err == nil || !strings.Contains(err.Error(), "run.plan.storm.pool") {
		t.Errorf("header with pool 0: %v", err)
	}
}

func asFieldError(err error, fe **FieldError) bool {
	f, ok := err.(*FieldError)
	*fe = f
	return ok
}

// TestStormRoundTrip: a storm file written as the command writes it reads
// back, its storms validated, and a broken storm record is refused with
// its line and field.
func TestStormRoundTrip(t *testing.T) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, rec := range []any{stormHeader(), goodStorm(), EndRecord{Kind: KindEnd, Status: "complete", Steps: 1}} {
		if err := enc.Encode(rec); err != nil {
			t.Fatal(err)
		}
	}
	res, err := ReadResultsWith(bytes.NewReader(b.Bytes()), "storm.jsonl", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Storms) != 1 || res.Storms[0].Wanted != 200 || len(res.Steps) != 0 {
		t.Fatalf("read %d storms %+v", len(res.Storms), res.Storms)
	}
	broken := strings.Replace(b.String(), `"connections_wanted":200`, `"connections_wanted":7`, 1)
	_, err = ReadResultsWith(strings.NewReader(broken), "storm.jsonl", ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "storm.jsonl:2: storm.connections_wanted") {
		t.Errorf("broken storm: %v", err)
	}
}
