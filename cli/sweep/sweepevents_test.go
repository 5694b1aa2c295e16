package sweep

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/results"
	sweeplib "github.com/poolsweep/poolsweep/sweep"
)

// TestEventFlags: --event turns into the plan's events in time order,
// recorded in the header; every bad value or combination is a usage
// error (exit 2) naming --event, before anything starts.
func TestEventFlags(t *testing.T) {
	t.Parallel()
	sim := []string{"--target", "s=sim:slots=8"}
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, cfg *sweepConfig)
	}{
		{
			// Two events, given out of order, fired in order.
			name: "two events", args: []string{"--profile", "rate:100:30s", "--event", "20s=slow=10:5s", "--event", "5s=stepdown"},
			check: func(t *testing.T, cfg *sweepConfig) {
				want := []results.EventSpec{{Spec: "5s=stepdown", AtS: 5, Action: "stepdown"}, {Spec: "20s=slow=10:5s", AtS: 20, Action: "slow", Factor: 10, DurationS: 5}}
				if !slices.Equal(cfg.plan.Events, want) {
					t.Errorf("events %+v, want %+v", cfg.plan.Events, want)
				}
				if h := sweeplib.NewPlanInfo(cfg.plan, 1); !slices.Equal(h.Events, want) {
					t.Errorf("header events %+v", h.Events)
				}
			},
		},
		{name: "without a profile", args: []string{"--event", "5s=stepdown"}, wantErr: "--event: only with --profile"},
		{name: "with a rate", args: []string{"--rate", "100", "--event", "5s=stepdown"}, wantErr: "--event: only with --profile"},
		{name: "not T=ACTION", args: []string{"--profile", "rate:100:30s", "--event", "stepdown"}, wantErr: "--event"},
		{name: "unknown action", args: []string{"--profile", "rate:100:30s", "--event", "5s=explode"}, wantErr: "is not an action"},
		{name: "slow without its numbers", args: []string{"--profile", "rate:100:30s", "--event", "5s=slow"}, wantErr: "slow=F:D"},
		{name: "freeze not whole ms", args: []string{"--profile", "rate:100:30s", "--event", "5s=freeze=1500us"}, wantErr: "whole number of milliseconds"},
		{name: "past the profile's end", args: []string{"--profile", "rate:100:30s", "--event", "31s=reset"}, wantErr: "--event \"31s=reset\": 31s is not before the profile's end at 30s"},
		{name: "lasting past the end", args: []string{"--profile", "rate:100:30s", "--event", "28s=freeze=5s"}, wantErr: "past the profile's end"},
		{name: "overlapping", args: []string{"--profile", "rate:100:30s", "--event", "10s=slow=4:5s", "--event", "12s=reset"}, wantErr: "overlaps"},
		{name: "empty", args: []string{"--profile", "rate:100:30s", "--event", ""}, wantErr: "--event"},
		{name: "too long", args: []string{"--profile", "rate:100:30s", "--event", "1s=" + strings.Repeat("x", 200)}, wantErr: "more than the 128"},
		{name: "too many", args: append([]string{"--profile", "rate:100:300s"}, manyEvents(17)...), wantErr: "--event: 17 events, more than the 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{}, tt.args...), sim...)
			_, cfg, err := parseSweepOptions(args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "--event") {
					t.Fatalf("error %v, want one naming --event with %q", err, tt.wantErr)
				}
				if errext.ExitCode(err) != 2 && !strings.Contains(err.Error(), "invalid argument") {
					t.Errorf("error %v: exit %d, want 2", err, errext.ExitCode(err))
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error %q is more than one line", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, cfg)
		})
	}
}

func manyEvents(n int) []string {
	var out []string
	for i := range n {
		out = append(out, "--event", fmt.Sprintf("%ds=reset", 10+i*5))
	}
	return out
}
