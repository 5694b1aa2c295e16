package plan

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestAutoMinimums: an auto warm-up may not end before MSER-5 can answer
// (3 s) nor an auto window before it has an interval (1 s); their
// maximums below that are refused naming the flag and the minimum.
func TestAutoMinimums(t *testing.T) {
	for _, tc := range []struct {
		maxWarmup, maxWindow time.Duration
		want                 string // "" valid
	}{
		{3 * time.Second, time.Second, ""},
		{2999 * time.Millisecond, time.Minute, "--max-warmup: 2.999s is below the 3s an auto warm-up needs"},
		{time.Second, time.Minute, "give at least 3s"},
		{time.Minute, 999 * time.Millisecond, "--max-duration: 0.999s is below the 1s an auto window needs"},
	} {
		p := Plan{Concurrency: []int{1}, Pool: PoolPlan{Match: true}, Clients: 1, Trials: 1, Warmup: 0, Duration: MinWindow, OpTimeout: time.Second,
			Auto: NewAutoPlan(true, true, 0, tc.maxWarmup, MinWindow, tc.maxWindow, 2, 0)}
		err := p.Validate()
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("max warm-up %s, max window %s: %v, want %q", tc.maxWarmup, tc.maxWindow, err, tc.want)
		}
	}
}

// TestCheckRunTime: the whole at the bound passes, a second past it is
// refused with the count, the total and the bound; LongestS adds each
// step's longest warm-up and window and its overhead.
func TestCheckRunTime(t *testing.T) {
	if err := CheckRunTime("--x", 7, "storms", MaxRunTime.Seconds()); err != nil {
		t.Errorf("at the bound: %v", err)
	}
	err := CheckRunTime("--x and --y", 10000, "storms", MaxRunTime.Seconds()+1)
	if err == nil || err.Error() != "--x and --y: 10000 storms take up to 168h (7.0 days) at their longest, more than the 168h (7.0 days) a run may be planned for" {
		t.Errorf("past the bound: %v", err)
	}
	p := Plan{Concurrency: []int{10, 1000}, Pool: PoolPlan{Match: true}, Clients: 2, Trials: 1, Warmup: time.Second, Duration: 2 * time.Second,
		Auto: NewAutoPlan(true, false, time.Second, time.Minute, 0, 0, 0, 0)}
	// Each step: the warm-up at its longest (1m) + the 2s window + 0.5s +
	// 1 ms a connection (20, then 2000, over 2 clients).
	want := (60 + 2 + 0.5 + 0.02) + (60 + 2 + 0.5 + 2)
	if got := p.LongestS(p.Steps([]string{"t"}, []string{"w"})); math.Abs(got-want) > 1e-9 {
		t.Errorf("LongestS = %g, want %g", got, want)
	}
}
