package sweep

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

func TestScheduleUniform(t *testing.T) {
	tests := []struct {
		name      string
		perSecond float64
		phase     time.Duration
		want      []time.Duration
	}{
		// One arrival every 1/rate, the first at the phase.
		{"1000/s", 1000, 0, []time.Duration{0, time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}},
		// The phase shifts every arrival, the gaps stay.
		{"phase", 1000, 250 * time.Microsecond, []time.Duration{250 * time.Microsecond, 1250 * time.Microsecond, 2250 * time.Microsecond}},
		// A rate that does not divide a second: offsets are rounded down
		// from n/rate, never accumulated, so they never drift.
		{"3/s", 3, 0, []time.Duration{0, 333333333, 666666666, time.Second}},
		// Below one a second: gaps longer than a second.
		{"0.5/s", 0.5, 0, []time.Duration{0, 2 * time.Second, 4 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := newSchedule(results.ArrivalsUniform, tt.perSecond, tt.phase, 1)
			if err != nil {
				t.Fatal(err)
			}
			var got []time.Duration
			for range tt.want {
				got = append(got, s.Next())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("arrivals %v, want %v", got, tt.want)
			}
		})
	}
}

// A long uniform schedule holds its rate exactly: the millionth arrival
// at 7,000/s is where n/rate says, to the nanosecond's rounding.
func TestScheduleUniformNoDrift(t *testing.T) {
	s, _ := newSchedule(results.ArrivalsUniform, 7000, 0, 1)
	var last time.Duration
	for range 1_000_000 {
		last = s.Next()
	}
	want := time.Duration(999_999 * (1e9 / 7000.0))
	if d := last - want; d < -1 || d > 1 {
		t.Errorf("arrival 1e6 at %s, want %s", last, want)
	}
}

// Poisson arrivals: reproducible from the seed, never decreasing, with the
// mean rate asked and exponential gaps (coefficient of variation 1, about
// 37% of gaps longer than the mean).
func TestSchedulePoisson(t *testing.T) {
	const rate, n = 5000.0, 200_000
	a, _ := newSchedule(results.ArrivalsPoisson, rate, 0, 42)
	b, _ := newSchedule(results.ArrivalsPoisson, rate, 0, 42)
	c, _ := newSchedule(results.ArrivalsPoisson, rate, 0, 43)
	var prev time.Duration
	var sum, sum2 float64
	long, same, differ := 0, true, false
	mean := 1e9 / rate
	for range n {
		x, y, z := a.Next(), b.Next(), c.Next()
		if x < prev {
			t.Fatalf("arrival %s before %s", x, prev)
		}
		gap := float64(x - prev)
		sum += gap
		sum2 += gap * gap
		if gap > mean {
			long++
		}
		same = same && x == y
		differ = differ || x != z
		prev = x
	}
	if !same || !differ {
		t.Errorf("seeded streams: same seed equal %v, other seed differs %v", same, differ)
	}
	m := sum / n
	cv := math.Sqrt(sum2/n-m*m) / m
	if math.Abs(m/mean-1) > 0.01 || math.Abs(cv-1) > 0.02 {
		t.Errorf("mean gap %.1f ns (want %.1f), coefficient of variation %.3f (want 1)", m, mean, cv)
	}
	if f := float64(long) / n; math.Abs(f-math.Exp(-1)) > 0.01 {
		t.Errorf("%.3f of gaps above the mean, want e⁻¹ = 0.368", f)
	}
}

func TestScheduleBadInput(t *testing.T) {
	for _, tt := range []struct {
		kind  string
		rate  float64
		phase time.Duration
		want  string
	}{
		{results.ArrivalsUniform, 0, 0, "positive"},
		{results.ArrivalsUniform, math.NaN(), 0, "positive"},
		{results.ArrivalsPoisson, math.Inf(1), 0, "positive"},
		{results.ArrivalsUniform, 10, -time.Second, "negative"},
		{"bursty", 10, 0, `"bursty" is not uniform or poisson`},
	} {
		if _, err := newSchedule(tt.kind, tt.rate, tt.phase, 1); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %g %s: err %v, want %q", tt.kind, tt.rate, tt.phase, err, tt.want)
		}
	}
}

// K uniform streams of rate/K, offset by Phases, are one stream of the
// total rate: merged, every gap is 1/rate.
func TestPhasesInterleave(t *testing.T) {
	const total, k = 3000.0, 3
	ph := arrivalPhases(results.ArrivalsUniform, total, k)
	var all []time.Duration
	for i := range k {
		s, _ := newSchedule(results.ArrivalsUniform, total/k, ph[i], 1)
		for range 100 {
			all = append(all, s.Next())
		}
	}
	slices.Sort(all)
	for i := 1; i < len(all); i++ {
		if gap := all[i] - all[i-1]; gap < 333*time.Microsecond || gap > 334*time.Microsecond {
			t.Fatalf("gap %s between arrivals %d and %d, want 1/3000 s", gap, i-1, i)
		}
	}
	// Poisson streams need no offset.
	if p := arrivalPhases(results.ArrivalsPoisson, total, k); !slices.Equal(p, make([]time.Duration, k)) {
		t.Errorf("poisson phases %v", p)
	}
}
