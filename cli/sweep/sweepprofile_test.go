package sweep

import (
	"errors"
	"github.com/poolsweep/poolsweep/plan"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/results"
)

// TestProfileFlags table-tests what --profile and the pool options turn
// into (argv → plan and series through the runF seam, nothing connects),
// and that every combination that contradicts itself is a usage error
// naming its flag.
func TestProfileFlags(t *testing.T) {
	t.Parallel()
	sim := []string{"--target", "s=sim:slots=8"}
	labels := func(cfg *sweepConfig) []string {
		var out []string
		for _, w := range cfg.workloads {
			out = append(out, w.Label)
		}
		return out
	}
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, cfg *sweepConfig)
	}{
		{
			// The help's example: a burst after a quiet spell on cold
			// pools, maxConnecting × minPoolSize, each pair a series.
			name: "cold burst over two axes",
			args: []string{"--profile", "idle:5s,rate:2000:10s", "--cold", "--max-connecting", "2,16", "--min-pool", "0,64", "--pool", "64", "--trials", "3"},
			check: func(t *testing.T, cfg *sweepConfig) {
				p := cfg.plan
				if p.Profile == nil || p.Profile.Spec != "idle:5s,rate:2000:10s" || p.Warmup != 0 || p.Duration != 15*time.Second || p.Auto != nil ||
					!slices.Equal(p.Concurrency, []int{p.MaxInFlight}) || !slices.Equal(p.Pool.Sizes, []int{64}) {
					t.Errorf("plan %+v", p)
				}
				want := []string{"read minPool=0 maxConnecting=2 cold", "read minPool=0 maxConnecting=16 cold",
					"read minPool=64 maxConnecting=2 cold", "read minPool=64 maxConnecting=16 cold"}
				if got := labels(cfg); !slices.Equal(got, want) {
					t.Errorf("series %q, want %q", got, want)
				}
				for _, w := range cfg.workloads {
					if w.PoolOptions == nil || !w.PoolOptions.Cold || !w.PoolSwept.MinPool || !w.PoolSwept.MaxConnecting || w.PoolSwept.MaxIdle {
						t.Errorf("%s: options %+v swept %+v", w.Label, w.PoolOptions, w.PoolSwept)
					}
				}
				steps := p.Steps([]string{"s"}, labels(cfg))
				if len(steps) != 4*3 || steps[0].Profile == nil || steps[0].Rate != 2000 || steps[0].Concurrency != p.MaxInFlight {
					t.Errorf("%d steps, first %+v", len(steps), steps[0])
				}
			},
		},
		{
			// A profile alone: one series, its label unchanged, and
			// options recorded (the pool pre-warmed as a steady step's).
			name: "profile alone", args: append([]string{"--profile", "ramp:0:500:10s"}, sim...),
			check: func(t *testing.T, cfg *sweepConfig) {
				if got := labels(cfg); !slices.Equal(got, []string{"read"}) {
					t.Errorf("series %q", got)
				}
				if w := cfg.workloads[0]; w.PoolOptions == nil || *w.PoolOptions != (results.PoolOptions{}) || w.PoolSwept != (results.PoolAxes{}) {
					t.Errorf("options %+v swept %+v", w.PoolOptions, w.PoolSwept)
				}
				// Without --trials, enough trials a side for the settings'
				// comparison to conclude.
				if p := cfg.plan; p.Trials != plan.ProfileTrials || p.Trials < 3 {
					t.Errorf("trials %d, want %d", p.Trials, plan.ProfileTrials)
				}
				if p := cfg.plan; !slices.Equal(p.Pool.Sizes, []int{100}) || p.ProfileRate() != 500 || p.PoolAxes == nil || p.PoolAxes.Cold {
					t.Errorf("plan %+v", p)
				}
			},
		},
		{
			// Durations in the label as a user writes them; sorted.
			name: "idle and timeout lists",
			args: append([]string{"--profile", "rate:100:2s", "--max-idle", "10s,0,500ms", "--timeout", "50ms,1s"}, sim...),
			check: func(t *testing.T, cfg *sweepConfig) {
				want := []string{"read maxIdle=0 timeout=50ms", "read maxIdle=0 timeout=1s", "read maxIdle=500ms timeout=50ms",
					"read maxIdle=500ms timeout=1s", "read maxIdle=10s timeout=50ms", "read maxIdle=10s timeout=1s"}
				if got := labels(cfg); !slices.Equal(got, want) {
					t.Errorf("series %q, want %q", got, want)
				}
				if po := cfg.workloads[5].PoolOptions; po.MaxIdleMS != 10000 || po.TimeoutMS != 1000 {
					t.Errorf("last series %+v", po)
				}
			},
		},
		{
			// The driver's options as axes: retry outermost of them, the
			// heartbeat innermost, each series' options set as swept.
			name: "retry, server selection and heartbeat lists",
			args: append([]string{"--profile", "rate:100:2s", "--retry", "off,on", "--server-selection-timeout", "2s,500ms", "--heartbeat", "500ms"}, sim...),
			check: func(t *testing.T, cfg *sweepConfig) {
				want := []string{"read retry=on serverSelection=500ms heartbeat=500ms", "read retry=on serverSelection=2s heartbeat=500ms",
					"read retry=off serverSelection=500ms heartbeat=500ms", "read retry=off serverSelection=2s heartbeat=500ms"}
				if got := labels(cfg); !slices.Equal(got, want) {
					t.Errorf("series %q, want %q", got, want)
				}
				po := cfg.workloads[3].PoolOptions
				if po.RetryReads != "off" || po.RetryWrites != "off" || po.ServerSelectionTimeoutMS != 2000 || po.HeartbeatMS != 500 {
					t.Errorf("last series %+v", po)
				}
				if sw := cfg.workloads[0].PoolSwept; !sw.Retry || !sw.ServerSelectionTimeout || !sw.Heartbeat || sw.Timeout {
					t.Errorf("swept %+v", sw)
				}
			},
		},
		{
			// A steady sweep takes the axes too (the pools pre-warmed).
			name: "steady with max-connecting", args: append([]string{"--max-connecting", "4", "--concurrency", "8"}, sim...),
			check: func(t *testing.T, cfg *sweepConfig) {
				if got := labels(cfg); !slices.Equal(got, []string{"read maxConnecting=4"}) || cfg.plan.Profile != nil {
					t.Errorf("series %q, plan %+v", got, cfg.plan)
				}
			},
		},
		{
			// Agents share a profile: each agent's clients offer their
			// share of its arrivals, and the leader fires its events.
			name: "profile with agents", args: []string{"--profile", "rate:100:2s", "--event", "1s=reset", "--spawn", "2", "--clients", "2"},
			check: func(t *testing.T, cfg *sweepConfig) {
				if cfg.plan.Profile == nil || len(cfg.plan.Events) != 1 || cfg.plan.Clients != 2 {
					t.Errorf("plan %+v", cfg.plan)
				}
			},
		},
		{
			name: "no pool option", args: sim,
			check: func(t *testing.T, cfg *sweepConfig) {
				if cfg.plan.PoolAxes != nil || cfg.workloads[0].PoolOptions != nil {
					t.Errorf("axes %+v options %+v", cfg.plan.PoolAxes, cfg.workloads[0].PoolOptions)
				}
			},
		},
		{name: "profile never loads", args: []string{"--profile", "idle:5s"}, wantErr: "--profile: the profile never loads"},
		{name: "profile not a phase", args: []string{"--profile", "burst:5s"}, wantErr: "--profile: phase 1"},
		{name: "profile too long for a step", args: []string{"--profile", "rate:100:5h"}, wantErr: "--profile: it lasts 5h0m0s, longer than the 4h"},
		{name: "profile over the run bound", args: []string{"--profile", "rate:100:3h", "--pool", "1..10+1", "--trials", "10"},
			wantErr: "--profile, --pool and --trials: 100 steps take up to"},
		{name: "peak above what one process issues", args: []string{"--profile", "rate:20000000:1s"}, wantErr: "--profile: phase 1 (rate): R 20000000 calls/s is above 10000000"},
		{name: "peak below a call a second per client", args: []string{"--profile", "rate:3:10s", "--clients", "4"}, wantErr: "--profile: its peak: 3 calls/s over 4 clients"},
		{name: "profile and rate", args: []string{"--profile", "rate:100:1s", "--rate", "100"}, wantErr: "--profile and --rate"},
		{name: "profile and search", args: []string{"--profile", "rate:100:1s", "--search", "knee"}, wantErr: "--profile and --search"},
		{name: "profile and concurrency", args: []string{"--profile", "rate:100:1s", "--concurrency", "8,16"}, wantErr: "--profile and --concurrency"},
		{name: "profile and duration", args: []string{"--profile", "rate:100:1s", "--duration", "5s"}, wantErr: "--duration: not with --profile"},
		{name: "profile and max-warmup", args: []string{"--profile", "rate:100:1s", "--max-warmup", "5s"}, wantErr: "--max-warmup"},
		{name: "profile and pool match", args: []string{"--profile", "rate:100:1s", "--pool", "match"}, wantErr: "--pool: match"},
		{name: "profile below a call a second per agent's client", args: []string{"--profile", "rate:7:10s", "--clients", "4", "--spawn", "2"},
			wantErr: "--profile: its peak: 7 calls/s over 8 clients of 2 agents"},
		{name: "profile text too long", args: []string{"--profile", strings.Repeat("rate:1:1s,", 500)}, wantErr: "--profile: 5000 bytes, more than"},
		{name: "cold without profile", args: []string{"--cold"}, wantErr: "--cold: only with --profile"},
		{name: "cold with min-pool above the pool", args: []string{"--profile", "rate:100:1s", "--cold", "--min-pool", "0,64", "--pool", "16,128"},
			wantErr: "--cold and --min-pool: 64 is above --pool 16"},
		{name: "cold keeps a URI's minPoolSize above the pool", args: []string{"--uri", "mongodb://h/?minPoolSize=200", "--profile", "rate:100:1s", "--cold", "--pool", "16"},
			wantErr: "--cold: the URI of target h sets minPoolSize=200, above --pool 16"},
		{name: "cold, a URI's minPoolSize given way to --min-pool", args: []string{"--uri", "mongodb://h/?minPoolSize=200", "--profile", "rate:100:1s", "--cold", "--pool", "16", "--min-pool", "0"},
			check: func(t *testing.T, cfg *sweepConfig) {}},
		{name: "min-pool above the pool", args: []string{"--min-pool", "64", "--pool", "16", "--concurrency", "8"}, wantErr: "--min-pool: 64 is above --pool 16"},
		{name: "min-pool above pool match", args: []string{"--min-pool", "10", "--concurrency", "8,16"}, wantErr: "--min-pool: 10 is above --pool match"},
		{name: "min-pool negative", args: []string{"--min-pool", "-1"}, wantErr: "--min-pool"},
		{name: "min-pool twice", args: []string{"--min-pool", "0,0"}, wantErr: "--min-pool"},
		{name: "min-pool not a number", args: []string{"--min-pool", "many"}, wantErr: "--min-pool"},
		{name: "max-connecting 0", args: []string{"--max-connecting", "0"}, wantErr: "--max-connecting"},
		{name: "max-connecting 0 in a list", args: []string{"--max-connecting", "2,0"}, wantErr: "--max-connecting"},
		{name: "max-connecting negative", args: []string{"--max-connecting", "-2"}, wantErr: "--max-connecting"},
		{name: "max-connecting not a number", args: []string{"--max-connecting", "two"}, wantErr: "--max-connecting"},
		{name: "max-connecting too many values", args: []string{"--max-connecting", "1..40+1"}, wantErr: "--max-connecting: 40 values, more than 32"},
		{name: "timeout 0", args: []string{"--timeout", "0"}, wantErr: "--timeout"},
		{name: "timeout negative", args: []string{"--timeout", "-5ms"}, wantErr: "--timeout"},
		{name: "timeout below a ms", args: []string{"--timeout", "500us"}, wantErr: "--timeout"},
		{name: "timeout above op-timeout", args: []string{"--timeout", "10s", "--op-timeout", "5s"}, wantErr: "--timeout: 10s is above --op-timeout 5s"},
		{name: "max-idle negative", args: []string{"--max-idle", "-1s"}, wantErr: "--max-idle"},
		{name: "max-idle not whole ms", args: []string{"--max-idle", "1500us"}, wantErr: "--max-idle"},
		{name: "max-idle past a day", args: []string{"--max-idle", "25h"}, wantErr: "--max-idle"},
		{name: "retry neither on nor off", args: []string{"--retry", "yes"}, wantErr: `--retry: "yes" is not on or off`},
		{name: "retry twice", args: []string{"--retry", "on,on"}, wantErr: "--retry: on is given twice"},
		{name: "server selection 0", args: []string{"--server-selection-timeout", "0"}, wantErr: "--server-selection-timeout"},
		{name: "server selection not whole ms", args: []string{"--server-selection-timeout", "1500us"}, wantErr: "--server-selection-timeout"},
		{name: "server selection above op-timeout", args: []string{"--server-selection-timeout", "10s", "--op-timeout", "5s"},
			wantErr: "--server-selection-timeout: 10s is above --op-timeout 5s"},
		{name: "heartbeat below the drivers' least", args: []string{"--heartbeat", "499ms"}, wantErr: "--heartbeat: 499ms is not between 500ms and 1h"},
		{name: "heartbeat past an hour", args: []string{"--heartbeat", "2h"}, wantErr: "--heartbeat"},
		{name: "arrivals without rate or profile", args: []string{"--arrivals", "poisson"}, wantErr: "--arrivals: only with --rate or --profile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if !slices.Contains(args, "--target") && !slices.Contains(args, "--uri") && !slices.Contains(args, "--spawn") {
				args = append(append([]string{}, args...), sim...)
			}
			_, cfg, err := parseSweepOptions(args)
			if tt.wantErr != "" {
				var usage errext.UsageError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one naming %q", err, tt.wantErr)
				}
				if !errors.As(err, &usage) && !strings.Contains(err.Error(), "invalid argument") {
					t.Errorf("error %v is not a usage error", err)
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

// TestProfileHelpExamples: the help's examples of --profile and the pool
// options are command lines the sweep takes.
func TestProfileHelpExamples(t *testing.T) {
	t.Parallel()
	e := &cmdutil.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}
	example := NewCmdSweep(e, nil).Example
	tried := 0
	for _, line := range strings.Split(strings.ReplaceAll(example, "\\\n", " "), "\n") {
		if !strings.Contains(line, "--profile") {
			continue
		}
		line, _, _ = strings.Cut(line, "#")
		args := strings.Fields(line)[2:] // "poolsweep sweep"
		if _, _, err := parseSweepOptions(args); err != nil {
			t.Errorf("%s: %v", line, err)
		}
		tried++
	}
	if tried < 3 {
		t.Errorf("%d examples of --profile in the help, want 3", tried)
	}
}
