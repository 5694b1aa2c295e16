package loadprofile

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// all is every arrival of a schedule.
func all(t testing.TB, s Schedule) []time.Duration {
	t.Helper()
	var out []time.Duration
	for {
		at, ok := s.Next()
		if !ok {
			return out
		}
		if len(out) > 0 && at < out[len(out)-1] {
			t.Fatalf("arrival %d at %s is before the one before, %s", len(out), at, out[len(out)-1])
		}
		out = append(out, at)
		if len(out) > 10_000_000 {
			t.Fatal("the schedule does not end")
		}
	}
}

// phaseBounds is each phase's [start, end) on the profile's clock.
func phaseBounds(p Profile) [][2]time.Duration {
	var out [][2]time.Duration
	var at time.Duration
	for _, ph := range p.Phases {
		out = append(out, [2]time.Duration{at, at + ph.Duration})
		at += ph.Duration
	}
	return out
}

// countIn is how many arrivals fall in [from, to); the profile's end
// counts in its last phase.
func countIn(ts []time.Duration, from, to, end time.Duration) int {
	n := 0
	for _, t := range ts {
		if t >= from && (t < to || (to == end && t == end)) {
			n++
		}
	}
	return n
}

var arrivalProfiles = []string{
	"idle:30s,rate:2000:60s",
	"rate:10:1s,rate:100:1s,rate:20.5:2s,idle:1s,rate:7:3s",
	"ramp:0:500:10s,ramp:500:0:10s",
	"ramp:300:10:7s",
	"sine:0:400:3s:10s",
	"sine:100:300:700ms:5s,idle:2s,sine:50:60:1s:2500ms",
	"idle:1s,trace:t.csv,idle:500ms,trace:late.csv",
	"rate:0.5:30s",
}

// TestUniformArrivals: uniform arrivals follow the cumulative rate. In
// each phase, each of n clients gets ∫rate/n within one; the n clients
// together are exactly the one client's arrivals (so the sum is the
// single-client count); none falls in an idle spell; and each arrival j
// of client k sits where Λ reaches n·j + k + 1.
func TestUniformArrivals(t *testing.T) {
	for _, spec := range arrivalProfiles {
		p := mustParse(t, spec)
		end := p.Duration()
		one := all(t, p.Arrivals(results.ArrivalsUniform, 0, 1, 0))
		if want := int(math.Floor(p.Calls() + 1e-9)); len(one) != want {
			t.Errorf("%q: %d arrivals, want %d", spec, len(one), want)
		}
		for _, n := range []int{1, 3, 8} {
			var union []time.Duration
			for k := range n {
				ts := all(t, p.Arrivals(results.ArrivalsUniform, k, n, 0))
				for j, at := range ts {
					if want := float64(n*j + k + 1); math.Abs(p.cumAt(at)-want) > 1e-6*want+1e-6 {
						t.Fatalf("%q n=%d k=%d: arrival %d at %s has Λ %g, want %g", spec, n, k, j, at, p.cumAt(at), want)
					}
					// Not late: a microsecond before it, Λ had not reached it.
					if at > 0 && p.cumAt(at-time.Microsecond) >= float64(n*j+k+1) {
						t.Fatalf("%q n=%d k=%d: arrival %d at %s is later than where Λ reaches it", spec, n, k, j, at)
					}
				}
				for i, b := range phaseBounds(p) {
					want := p.CallsBetween(b[0], b[1]) / float64(n)
					if got := countIn(ts, b[0], b[1], end); math.Abs(float64(got)-want) > 1+1e-9 {
						t.Errorf("%q n=%d k=%d phase %d: %d arrivals, want %.2f ± 1", spec, n, k, i+1, got, want)
					}
				}
				for _, g := range p.IdleSpells() {
					// An arrival may sit on a spell's start (where the load
					// before it reached a whole call), never inside it.
					if c := countIn(ts, g.Start+time.Nanosecond, g.Start+g.Length, -1); c > 0 {
						t.Errorf("%q n=%d k=%d: %d arrivals inside the idle spell at %s", spec, n, k, c, g.Start)
					}
				}
				union = append(union, ts...)
			}
			slices.Sort(union)
			if !slices.Equal(union, one) {
				t.Errorf("%q: %d clients' arrivals (%d) are not the one client's (%d)", spec, n, len(union), len(one))
			}
		}
	}
}

// TestUniformExact: arrivals where the closed forms put them.
func TestUniformExact(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		spec string
		want []time.Duration
	}{
		{"rate:2:2s", []time.Duration{500 * ms, 1000 * ms, 1500 * ms, 2000 * ms}},
		{"idle:1s,rate:1:2s", []time.Duration{2 * time.Second, 3 * time.Second}},
		// Λ = t²/2: t = √(2j)
		{"ramp:0:2:2s", []time.Duration{1414213562, 2 * time.Second}},
		// Λ = 4t − t²/2 from 4 down to 2 over 2 s: t = 4 − √(16 − 2j)
		{"ramp:4:2:2s", []time.Duration{258342613, 535898385, 837722340, 1171572875, 1550510257, 2 * time.Second}},
		// rate 0 then 2 per second from row to row
		{"trace:late.csv", []time.Duration{1025 * ms, 1050 * ms}},
	} {
		p := mustParse(t, tc.spec)
		got := all(t, p.Arrivals(results.ArrivalsUniform, 0, 1, 0))
		if len(tc.want) < len(got) {
			got = got[:len(tc.want)]
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: arrivals %v, want %v", tc.spec, got, tc.want)
		}
	}
}

// TestPoissonArrivals: poisson arrivals are a non-homogeneous Poisson
// process of the profile's rate. With fixed seeds, the count in each
// phase is within 4.5 standard deviations (√expected) of ∫rate, per
// client and summed; idle spells hold none; the gaps at a constant rate
// have the exponential's mean and standard deviation; a seed repeats
// its stream and another seed or client does not.
func TestPoissonArrivals(t *testing.T) {
	for _, spec := range arrivalProfiles {
		p := mustParse(t, spec)
		end := p.Duration()
		const n = 4
		sum := make([]int, len(p.Phases))
		for k := range n {
			ts := all(t, p.Arrivals(results.ArrivalsPoisson, k, n, 42))
			for i, b := range phaseBounds(p) {
				c := countIn(ts, b[0], b[1], end)
				sum[i] += c
				want := p.CallsBetween(b[0], b[1]) / n
				if math.Abs(float64(c)-want) > 4.5*math.Sqrt(want)+1 {
					t.Errorf("%q k=%d phase %d: %d arrivals, want %.1f ± %.1f", spec, k, i+1, c, want, 4.5*math.Sqrt(want)+1)
				}
			}
			for _, g := range p.IdleSpells() {
				if c := countIn(ts, g.Start+time.Nanosecond, g.Start+g.Length, -1); c > 0 {
					t.Errorf("%q k=%d: %d arrivals inside the idle spell at %s", spec, k, c, g.Start)
				}
			}
		}
		for i, b := range phaseBounds(p) {
			want := p.CallsBetween(b[0], b[1])
			if math.Abs(float64(sum[i])-want) > 4.5*math.Sqrt(want)+1 {
				t.Errorf("%q phase %d: %d arrivals over %d clients, want %.1f", spec, i+1, sum[i], n, want)
			}
		}
	}
	// Gaps at 2000/s over 60 s (120,000 arrivals): mean and standard
	// deviation both 0.5 ms, within 2 %.
	p := mustParse(t, "rate:2000:60s")
	ts := all(t, p.Arrivals(results.ArrivalsPoisson, 0, 1, 7))
	var s, s2 float64
	for i := 1; i < len(ts); i++ {
		g := (ts[i] - ts[i-1]).Seconds()
		s += g
		s2 += g * g
	}
	m := s / float64(len(ts)-1)
	sd := math.Sqrt(s2/float64(len(ts)-1) - m*m)
	if math.Abs(m-0.0005) > 0.00001 || math.Abs(sd-0.0005) > 0.00001 {
		t.Errorf("gaps: mean %g s, sd %g s; want 0.0005 both", m, sd)
	}
	a := all(t, p.Arrivals(results.ArrivalsPoisson, 0, 2, 7))
	if b := all(t, p.Arrivals(results.ArrivalsPoisson, 0, 2, 7)); !slices.Equal(a, b) {
		t.Error("one seed gave two streams")
	}
	if b := all(t, p.Arrivals(results.ArrivalsPoisson, 0, 2, 8)); slices.Equal(a[:10], b[:10]) {
		t.Error("two seeds gave one stream")
	}
	if b := all(t, p.Arrivals(results.ArrivalsPoisson, 1, 2, 7)); slices.Equal(a[:10], b[:10]) {
		t.Error("two clients of one seed drew one stream")
	}
}

// BenchmarkNext: the cost of one arrival, per kind and shape (a sine
// inverts by bisection, the others in closed form).
func BenchmarkNext(b *testing.B) {
	for _, spec := range []string{"rate:1000000:24h", "ramp:1:1000000:24h", "sine:0:1000000:1s:24h", "trace:t.csv"} {
		p := mustParse(b, spec)
		for _, kind := range []string{results.ArrivalsUniform, results.ArrivalsPoisson} {
			b.Run(spec[:4]+"/"+kind, func(b *testing.B) {
				s := p.Arrivals(kind, 0, 1, 1)
				for b.Loop() {
					if _, ok := s.Next(); !ok {
						s = p.Arrivals(kind, 0, 1, 1)
					}
				}
			})
		}
	}
}

// TestArrivalsConcurrent: the clients' schedules of one profile, built
// by hand rather than by Parse, run on goroutines of their own and give
// what they give one at a time (go test -race checks they share nothing
// they write).
func TestArrivalsConcurrent(t *testing.T) {
	byHand := func() Profile {
		return Profile{Phases: []Phase{{Kind: KindTrace, Duration: 8 * time.Second, Trace: testTraces["t.csv"]}, {Kind: KindRate, From: 50, To: 50, Duration: time.Second}}}
	}
	const n = 4
	want := make([][]time.Duration, n)
	for k := range n {
		want[k] = all(t, byHand().Arrivals(results.ArrivalsUniform, k, n, 0))
	}
	p := byHand()
	got := make([][]time.Duration, n)
	done := make(chan int)
	for k := range n {
		go func() { got[k] = all(t, p.Arrivals(results.ArrivalsUniform, k, n, 0)); done <- k }()
	}
	for range n {
		<-done
	}
	for k := range n {
		if !slices.Equal(got[k], want[k]) || len(got[k]) != 650/n && len(got[k]) != 650/n+1 {
			t.Errorf("client %d: %d arrivals concurrently, %d alone", k, len(got[k]), len(want[k]))
		}
	}
}
