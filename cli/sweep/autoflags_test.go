package sweep

import (
	"errors"
	"github.com/poolsweep/poolsweep/internal/errext"
	"strings"
	"testing"
	"time"
)

// TestAutoFlags: --warmup and --duration are auto unless given a length;
// auto's bounds apply only to auto; the open loop keeps fixed
// windows (their defaults when not asked, refused when asked for auto);
// agents take auto as one process does.
func TestAutoFlags(t *testing.T) {
	const uri = "mongodb://h:27017/"
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, cfg *sweepConfig)
	}{
		{name: "defaults are auto", args: []string{"--uri", uri}, check: func(t *testing.T, cfg *sweepConfig) {
			a := cfg.plan.Auto
			if a == nil || !a.Warmup || !a.Window || a.MinWarmupS != 1 || a.MaxWarmupS != 60 || a.MinDurationS != 2 || a.MaxDurationS != 60 || a.PrecisionPct != 2 || a.MinCalls != 1000 || a.BatchS != 0.1 || a.Confidence != 0.95 {
				t.Errorf("auto %+v", a)
			}
		}},
		{name: "fixed lengths turn auto off", args: []string{"--uri", uri, "--warmup", "10s", "--duration", "30s"}, check: func(t *testing.T, cfg *sweepConfig) {
			if p := cfg.plan; p.Auto != nil || p.Warmup != 10*time.Second || p.Duration != 30*time.Second {
				t.Errorf("plan %+v auto %+v", p, p.Auto)
			}
		}},
		{name: "auto window, fixed warm-up", args: []string{"--uri", uri, "--warmup", "5s", "--precision", "1%", "--max-duration", "20s"}, check: func(t *testing.T, cfg *sweepConfig) {
			a := cfg.plan.Auto
			if a == nil || a.Warmup || !a.Window || a.PrecisionPct != 1 || a.MaxDurationS != 20 || cfg.plan.Warmup != 5*time.Second || a.MaxWarmupS != 0 {
				t.Errorf("auto %+v warmup %s", a, cfg.plan.Warmup)
			}
		}},
		{name: "open loop follows the closed loop's defaults", args: []string{"--uri", uri, "--rate", "100", "--pool", "4"}, check: func(t *testing.T, cfg *sweepConfig) {
			a := cfg.plan.Auto
			if a == nil || !a.Warmup || !a.Window || a.MaxDurationS != 60 || a.PrecisionPct != 2 {
				t.Errorf("auto %+v", a)
			}
		}},
		{name: "open loop, fixed lengths", args: []string{"--uri", uri, "--rate", "100", "--pool", "4", "--warmup", "2s", "--duration", "5s"}, check: func(t *testing.T, cfg *sweepConfig) {
			if p := cfg.plan; p.Auto != nil || p.Warmup != 2*time.Second || p.Duration != 5*time.Second {
				t.Errorf("plan %+v auto %+v", p, p.Auto)
			}
		}},
		{name: "agents take the deployment's auto defaults", args: []string{"--uri", uri, "--agents", "2", "--agent-index", "0", "--run-id", "r"}, check: func(t *testing.T, cfg *sweepConfig) {
			if a := cfg.plan.Auto; a == nil || !a.Warmup || !a.Window || a.MaxWarmupS != 60 || a.MaxDurationS != 60 {
				t.Errorf("auto %+v", a)
			}
		}},
		{name: "agents keep a simulator's defaults", args: []string{"--target", "s=sim:slots=4", "--spawn", "2"}, check: func(t *testing.T, cfg *sweepConfig) {
			if p, a := cfg.plan, cfg.plan.Auto; a == nil || a.Warmup || !a.Window || p.Warmup != time.Second || a.MinDurationS != 3 || a.MaxDurationS != 120 || a.PrecisionPct != 10 {
				t.Errorf("plan %+v auto %+v", p, a)
			}
		}},
		{name: "agents with auto asked on a simulator", args: []string{"--target", "s=sim:slots=4", "--spawn", "2", "--warmup", "auto", "--duration", "auto", "--max-duration", "5s"}, check: func(t *testing.T, cfg *sweepConfig) {
			if a := cfg.plan.Auto; a == nil || !a.Warmup || !a.Window || a.MaxDurationS != 5 {
				t.Errorf("auto %+v", a)
			}
		}},
		{name: "bound of a fixed window", args: []string{"--uri", uri, "--duration", "5s", "--max-duration", "10s"}, wantErr: "--max-duration: only with --duration auto"},
		{name: "bound of a fixed warm-up", args: []string{"--uri", uri, "--warmup", "5s", "--min-warmup", "2s"}, wantErr: "--min-warmup: only with --warmup auto"},
		{name: "max below min", args: []string{"--uri", uri, "--min-duration", "30s", "--max-duration", "10s"}, wantErr: "--max-duration: 10s is below --min-duration 30s"},
		{name: "precision as a word", args: []string{"--uri", uri, "--precision", "tight"}, wantErr: "--precision"},
		{name: "precision 0", args: []string{"--uri", uri, "--precision", "0%"}, wantErr: "--precision"},
		{name: "duration neither auto nor a length", args: []string{"--uri", uri, "--duration", "soon"}, wantErr: "--duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseSweep(tt.args)
			if tt.wantErr != "" {
				var u errext.UsageError
				if !errors.As(err, &u) || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err %v, want one line naming %q", err, tt.wantErr)
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
