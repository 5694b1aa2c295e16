package loadprofile

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// traceOf is a TraceReader that holds the named traces in memory.
func traceOf(traces map[string][]Point) TraceReader {
	return func(path string) ([]Point, error) { return traces[path], nil }
}

var testTraces = map[string][]Point{
	"t.csv": {{0, 100}, {2 * time.Second, 0}, {5 * time.Second, 300}, {6 * time.Second, 50}, {8 * time.Second, 0}},
	// Starts late: no load before its first row.
	"late.csv": {{time.Second, 40}, {3 * time.Second, 0}},
}

func mustParse(t testing.TB, spec string) Profile {
	t.Helper()
	p, err := Parse(spec, traceOf(testTraces))
	if err != nil {
		t.Fatalf("Parse(%q): %v", spec, err)
	}
	return p
}

// TestParse: each phase kind reads to its length, peak and calls, and
// String gives back a spec that parses to the same profile.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		spec      string
		canonical string
		dur       time.Duration
		peak      float64
		calls     float64
	}{
		// the burst after a quiet spell
		{"idle:30s,rate:2000:60s", "idle:30s,rate:2000:1m0s", 90 * time.Second, 2000, 120000},
		// steps, spaces around phases, decimal rates
		{"rate:10:1s, rate:20.5:2s ,rate:0:1s", "rate:10:1s,rate:20.5:2s,rate:0:1s", 4 * time.Second, 20.5, 51},
		// a ramp up and down: the triangle's area
		{"ramp:0:100:10s,ramp:100:0:10s", "ramp:0:100:10s,ramp:100:0:10s", 20 * time.Second, 100, 1000},
		// a sine over whole periods: its mean times its length
		{"sine:100:300:10s:1m", "sine:100:300:10s:1m0s", time.Minute, 300, 12000},
		// a sine over half a period: mid·D + amp·P/π
		{"sine:0:200:2s:1s", "sine:0:200:2s:1s", time.Second, 200, 100 + 100*2/math.Pi},
		// a trace between idle spells: 100·2 + 300·1 + 50·2
		{"idle:1s,trace:t.csv,idle:500ms", "idle:1s,trace:t.csv,idle:500ms", 9500 * time.Millisecond, 300, 600},
		{"trace:late.csv", "trace:late.csv", 3 * time.Second, 40, 80},
		// sub-second durations
		{"rate:1000:500ms", "rate:1000:500ms", 500 * time.Millisecond, 1000, 500},
		// spaces inside a phase
		{" rate : 2000 : 60s , idle: 1s", "rate:2000:1m0s,idle:1s", 61 * time.Second, 2000, 120000},
	} {
		p := mustParse(t, tc.spec)
		if got := p.String(); got != tc.canonical {
			t.Errorf("%q: String %q, want %q", tc.spec, got, tc.canonical)
		}
		if p.Spec != tc.spec {
			t.Errorf("%q: Spec %q", tc.spec, p.Spec)
		}
		if p.Duration() != tc.dur || p.Peak() != tc.peak || math.Abs(p.Calls()-tc.calls) > 1e-6*tc.calls {
			t.Errorf("%q: duration %s peak %g calls %g; want %s %g %g", tc.spec, p.Duration(), p.Peak(), p.Calls(), tc.dur, tc.peak, tc.calls)
		}
		again := mustParse(t, p.String())
		if again.String() != p.String() || again.Calls() != p.Calls() || !slices.EqualFunc(again.Marks(), p.Marks(), func(a, b results.ProfilePhase) bool { return a == b }) {
			t.Errorf("%q: String does not parse back to the same profile", tc.spec)
		}
	}
}

// TestParseErrors: every bad profile is refused in one line that names
// the flag and the phase and says what is wrong.
func TestParseErrors(t *testing.T) {
	long := strings.Repeat("rate:1:1s,", MaxPhases) + "rate:1:1s"
	for _, tc := range []struct{ spec, want string }{
		{"", "--profile: empty"},
		{"  ", "--profile: empty"},
		{"idle:30s", "never loads"},                             // only idle
		{"idle:1s,rate:0:10s", "never loads"},                   // rate 0
		{"rate:0.01:10s", "fewer than one"},                     // 0.1 calls in all
		{"ramp:0:0:5s", "never loads"},                          // a flat ramp at 0
		{"rate:5:1s,,rate:5:1s", "phase 2: empty"},              // two commas
		{"rate:5:1s,", "phase 2: empty"},                        // a trailing comma
		{"burst:5:1s", "phase 1: \"burst:5:1s\" is not idle:D"}, // no such kind
		{"rate:5", "phase 1 (rate): 2 fields, not the 3 of rate:R:D"},
		{"ramp:1:2:3:4s", "phase 1 (ramp): 5 fields"},
		{"rate:abc:1s", "phase 1 (rate): R \"abc\" is not a rate"},
		{"rate:NaN:1s", "R \"NaN\" is not a rate"},
		{"rate:Inf:1s", "R \"Inf\" is not a rate"},
		{"rate:-5:1s", "R -5 is negative"},
		{"rate:20000000:1s", "R 20000000 calls/s is above 10000000"},
		{"rate:1e400:1s", "above 10000000"},
		{"idle:1s,rate:5:xyz", "phase 2 (rate): D \"xyz\" is not a duration"},
		{"rate:5:0s", "D 0s is shorter than 1ms"},
		{"rate:5:-1s", "D -1s is shorter than 1ms"},
		{"rate:5:25h", "D 25h is longer than the 24h"},
		{"rate:5:20h,rate:5:5h", "phase 2 (rate): the profile reaches 25h0m0s, longer than the 24h"},
		{"sine:300:100:10s:1m", "phase 1 (sine): LOW 300 is above HIGH 100"},
		{"sine:1:100:0s:1m", "PERIOD 0s is shorter than 100ms"},
		{"sine:1:100:-1s:1m", "PERIOD -1s is shorter than 100ms"},
		{"sine:1:100:10ms:1m", "PERIOD 10ms is shorter than 100ms"},
		{long, "65 phases, more than the 64"},
		{strings.Repeat("x", MaxSpec+1), "more than the 4096"},
		{"trace:", "phase 1 (trace): no file named"},
		{"rate:" + strings.Repeat("9", 100) + ":1s", "… (100 bytes) calls/s is above"}, // a long value cut short
	} {
		_, err := Parse(tc.spec, traceOf(testTraces))
		if err == nil {
			t.Errorf("%q: accepted", tc.spec)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "--profile: ") || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || len(msg) > 200 {
			t.Errorf("%q: error %q, want one line with %q", tc.spec, msg, tc.want)
		}
	}
	// No trace reader: a trace phase is refused, not a panic.
	if _, err := Parse("trace:t.csv", nil); err == nil || !strings.Contains(err.Error(), "phase 1 (trace)") {
		t.Errorf("no reader: %v", err)
	}
	// A reader's points are held to the trace's rules too.
	bad := map[string][]Point{
		"one.csv":      {{0, 5}},
		"unsorted.csv": {{0, 5}, {2 * time.Second, 5}, {time.Second, 0}},
		"open.csv":     {{0, 5}, {time.Second, 5}},
		"nan.csv":      {{0, math.NaN()}, {time.Second, 0}},
	}
	for name := range bad {
		if _, err := Parse("rate:1:1s,trace:"+name, traceOf(bad)); err == nil || !strings.Contains(err.Error(), "--profile: phase 2 (trace): "+name+": ") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestRateAt: the rate at points of each phase kind.
func TestRateAt(t *testing.T) {
	p := mustParse(t, "idle:1s,ramp:0:100:2s,sine:100:300:4s:4s,trace:t.csv")
	for _, tc := range []struct {
		at   time.Duration
		want float64
	}{
		{500 * time.Millisecond, 0},
		{2 * time.Second, 50},              // mid-ramp
		{3 * time.Second, 200},             // sine start: its middle
		{3*time.Second + time.Second, 300}, // a quarter period: its high
		{6 * time.Second, 100},             // three quarters: its low
		{7 * time.Second, 100},             // trace row 0
		{10 * time.Second, 0},              // trace row 1
		{12*time.Second + 500*time.Millisecond, 300},
		{14 * time.Second, 50},
		{15 * time.Second, 0}, // past the end
		{-time.Second, 0},
	} {
		if got := p.RateAt(tc.at); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("RateAt(%s) = %g, want %g", tc.at, got, tc.want)
		}
	}
}

// TestIdleSpellsAndRises: the quiet spells (merged across phases, inside
// a trace) and the steps up a profile holds.
func TestIdleSpellsAndRises(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		spec  string
		gaps  []Gap
		rises []Rise
	}{
		{"idle:30s,rate:2000:60s", []Gap{{0, 30 * s}}, []Rise{{30 * s, 0, 2000}}},
		// idle and rate 0 are one spell; a ramp from 0 has no spell but its
		// start is no step either
		{"rate:100:10s,idle:5s,rate:0:5s,ramp:0:100:10s,rate:50:1s", []Gap{{10 * s, 10 * s}}, []Rise{{0, 0, 100}}},
		// steps up and down: only the ups
		{"rate:10:1s,rate:100:1s,rate:20:1s,rate:200:1s", nil, []Rise{{0, 0, 10}, {s, 10, 100}, {3 * s, 20, 200}}},
		// a trace's zero rows, and its late start, merged with the idle before it
		{"idle:1s,trace:late.csv,idle:2s,trace:t.csv", []Gap{{0, 2 * s}, {4 * s, 2 * s}, {8 * s, 3 * s}},
			[]Rise{{2 * s, 0, 40}, {6 * s, 0, 100}, {11 * s, 0, 300}}},
		// a sine starts at its middle: a step when it follows idle
		{"idle:1s,sine:0:100:1s:2s,idle:1s", []Gap{{0, s}, {3 * s, s}}, []Rise{{s, 0, 50}}},
	} {
		p := mustParse(t, tc.spec)
		if got := p.IdleSpells(); !slices.Equal(got, tc.gaps) {
			t.Errorf("%q: IdleSpells %v, want %v", tc.spec, got, tc.gaps)
		}
		if got := p.Rises(); !slices.Equal(got, tc.rises) {
			t.Errorf("%q: Rises %v, want %v", tc.spec, got, tc.rises)
		}
	}
}

// TestMarks: each phase on the profile's clock; a trace in parts, its
// quiet spells idle and each loaded run between them with its lowest and
// highest rate.
func TestMarks(t *testing.T) {
	p := mustParse(t, "idle:1s,trace:t.csv,sine:10:20:1s:2s")
	want := []results.ProfilePhase{
		{Kind: "idle", StartS: 0, EndS: 1},
		{Kind: "trace", StartS: 1, EndS: 3, From: 100, To: 100},
		{Kind: "idle", StartS: 3, EndS: 6},
		{Kind: "trace", StartS: 6, EndS: 9, From: 50, To: 300},
		{Kind: "sine", StartS: 9, EndS: 11, From: 10, To: 20},
	}
	if got := p.Marks(); !slices.Equal(got, want) {
		t.Errorf("Marks %+v, want %+v", got, want)
	}
}
