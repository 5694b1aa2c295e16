package sweep

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plan"
)

// Auto warm-ups and windows: --warmup and --duration take
// "auto" or a fixed length, and the bounds and precision of auto.

// autoOptions are the auto flags; warmup and duration themselves live in
// Options (their fixed lengths) with the two auto switches here.
type autoOptions struct {
	warmupAuto, durationAuto bool
	minWarmup, maxWarmup     time.Duration
	minDuration, maxDuration time.Duration
	precisionPct             float64
	minCalls                 int
}

// autoDurationValue is "auto" or a duration within [lo, hi].
type autoDurationValue struct {
	p      *time.Duration
	auto   *bool
	lo, hi time.Duration
}

func (v *autoDurationValue) Set(s string) error {
	if s == "auto" {
		*v.auto = true
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%s is not auto or a duration (say auto, 500ms, 30s, 2h)", textfmt.Token(s))
	}
	if d < v.lo || d > v.hi {
		return fmt.Errorf("%s is not auto or a duration between %s and %s", textfmt.Short(s), fmtHours(v.lo), fmtHours(v.hi))
	}
	*v.p, *v.auto = d, false
	return nil
}

func (v *autoDurationValue) String() string {
	if v.auto == nil || *v.auto {
		return "auto"
	}
	return v.p.String()
}

func (v *autoDurationValue) Type() string { return "auto|duration" }
func (v *autoDurationValue) Accepts() string {
	return fmt.Sprintf("auto or a duration between %s and %s", fmtHours(v.lo), fmtHours(v.hi))
}

// addFlags registers --warmup, --duration and the auto flags.
func (a *autoOptions) addFlags(f *pflag.FlagSet, warmup, duration *time.Duration) {
	a.warmupAuto, a.durationAuto = true, true
	f.Var(&autoDurationValue{p: warmup, auto: &a.warmupAuto, lo: 0, hi: plan.MaxWindow}, "warmup",
		"warm-up before each measured window: auto ends it where MSER-5 (White 1997) finds the end of the transient in the rate, taken in 100-ms batches (at least 3s, --min-warmup to --max-warmup; the default, but on simulator targets; with --rate, MSER-5 over both the achieved rate and the corrected latency, and a target that falls behind the offered rate ends it at once; with --agents or --spawn the leader ends every agent's warm-up at once, from all their batches); or a fixed length up to 24h (10s is the usual; simulator targets 1s by default)")
	f.Var(&autoDurationValue{p: duration, auto: &a.durationAuto, lo: plan.MinWindow, hi: plan.MaxWindow}, "duration",
		"measured window of each step: auto ends it once the 95% confidence half-width of its throughput (batch means, 10 or more, Student t; batches widened until their lag-1 autocorrelation is small) is within --precision, after --min-duration and --min-calls (with --rate: the achieved rate's and the mean corrected latency's half-widths), at --max-duration at the latest, or sooner when even at --max-duration the half-width would stay over twice --precision (window_end precision-out-of-reach), or, with --rate, when the target does not keep up (the default, but on simulator targets; with --agents or --spawn the leader ends every agent's window at once, from all their batches); or a fixed length, 100ms to 24h (30s is the usual; simulator targets 3s by default)")
	cmdutil.DurationVar(f, &a.minWarmup, "min-warmup", plan.DefaultMinWarmup, 0, time.Hour, "with --warmup auto: the shortest warm-up, up to 1h (MSER-5 needs 3s of batches in any case)")
	cmdutil.DurationVar(f, &a.maxWarmup, "max-warmup", plan.DefaultMaxWarmup, plan.MinWindow, plan.MaxWindow, "with --warmup auto: the longest warm-up, at least 3s (what MSER-5 needs) and --min-warmup (default 1m; embedded server 10s); a step whose rate never settles by then says so and gets low confidence")
	cmdutil.DurationVar(f, &a.minDuration, "min-duration", plan.DefaultMinDuration, plan.MinWindow, plan.MaxWindow, "with --duration auto: the shortest window")
	cmdutil.DurationVar(f, &a.maxDuration, "max-duration", plan.DefaultMaxDuration, time.Second, plan.MaxWindow, "with --duration auto: the longest window, whatever its precision, at least 1s (10 batches for an interval) and --min-duration (default 1m; embedded server 15s)")
	cmdutil.PercentVar(f, &a.precisionPct, "precision", plan.DefaultPrecision, plan.MinPrecisionPct, plan.MaxPrecisionPct,
		"with --duration auto: the 95% confidence half-width of a window's throughput it ends at, relative to it, 0.1% to 50%")
	cmdutil.IntVar(f, &a.minCalls, "min-calls", plan.DefaultMinCalls, 0, plan.MaxMinCalls,
		"with --duration auto: the fewest calls a window may end with, so that its p99 rests on enough of them (1000: the p99 rests on the 10 slowest); a slow step's window runs longer for it")
	travel(f, travelResolved, append([]string{"warmup", "duration"}, autoFlagNames...)...) // the plan's lengths (lengthArgs)
}

// plan sets p's warm-up, window and auto settings from the flags: auto
// unless a fixed length is given, or the target kind's defaults (d) are
// fixed and auto was not asked for, in the closed loop and the open loop
// (--rate) alike, for one process and for agents (their leader decides
// for all). Unless given, the auto bounds are the target kind's.
func (a *autoOptions) plan(p *plan.Plan, changed func(string) bool, d planDefaults) error {
	defWarmup, defDuration := d.warmup, d.duration
	warm, win := a.warmupAuto, a.durationAuto
	if !d.auto {
		warm = warm && changed("warmup")
		win = win && (d.autoWindow || changed("duration"))
		if !warm && !changed("warmup") {
			p.Warmup = defWarmup
		}
		if !win && !changed("duration") {
			p.Duration = defDuration
		}
	}
	if d.auto && d.maxWarmup > 0 && !changed("max-warmup") {
		a.maxWarmup = d.maxWarmup
	}
	if (d.auto || d.autoWindow) && d.maxDuration > 0 && !changed("max-duration") {
		a.maxDuration = d.maxDuration
	}
	if d.autoWindow && d.minDuration > 0 && !changed("min-duration") {
		a.minDuration = d.minDuration
	}
	if d.autoWindow && d.precisionPct > 0 && !changed("precision") {
		a.precisionPct = d.precisionPct
	}
	for _, f := range []struct {
		names []string
		auto  bool
		mode  string
	}{{[]string{"min-warmup", "max-warmup"}, warm, "--warmup auto"}, {[]string{"min-duration", "max-duration", "precision", "min-calls"}, win, "--duration auto"}} {
		for _, n := range f.names {
			if changed(n) && !f.auto {
				return errext.Usagef("--%s: only with %s", n, f.mode)
			}
		}
	}
	for _, b := range []struct {
		lo, hi     string
		short, top time.Duration
		auto       bool
	}{{"min-warmup", "max-warmup", a.minWarmup, a.maxWarmup, warm}, {"min-duration", "max-duration", a.minDuration, a.maxDuration, win}} {
		switch {
		case !b.auto || b.short <= b.top:
		case changed(b.hi):
			return errext.Usagef("--%s: %s is below --%s %s", b.hi, fmtHours(b.top), b.lo, fmtHours(b.short))
		default:
			// The maximum is a default the user may not know of: say so.
			return errext.Usagef("--%s: %s is above --%s, %s by default here; give --%s too", b.lo, fmtHours(b.short), b.hi, fmtHours(b.top), b.hi)
		}
	}
	if warm {
		p.Warmup = a.minWarmup
	}
	if win {
		p.Duration = a.minDuration
	}
	p.Auto = plan.NewAutoPlan(warm, win, a.minWarmup, a.maxWarmup, a.minDuration, a.maxDuration, a.precisionPct, int64(a.minCalls))
	return nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// autoFlagNames are the flags of auto lengths besides --warmup and
// --duration.
var autoFlagNames = []string{"min-warmup", "max-warmup", "min-duration", "max-duration", "precision", "min-calls"}

// lengthArgs are the flags that give another process (an agent of
// --spawn, which sees only URIs and would pick other defaults) p's
// warm-up and window: fixed lengths, or auto with every bound.
func lengthArgs(p plan.Plan) []string {
	warm, win := []string{"--warmup", p.Warmup.String()}, []string{"--duration", p.Duration.String()}
	if a := p.Auto; a != nil && a.Warmup {
		warm = []string{"--warmup", "auto", "--min-warmup", seconds(a.MinWarmupS).String(), "--max-warmup", seconds(a.MaxWarmupS).String()}
	}
	if a := p.Auto; a != nil && a.Window {
		win = []string{"--duration", "auto", "--min-duration", seconds(a.MinDurationS).String(), "--max-duration", seconds(a.MaxDurationS).String(),
			"--precision", strconv.FormatFloat(a.PrecisionPct, 'g', -1, 64) + "%", "--min-calls", strconv.FormatInt(a.MinCalls, 10)}
	}
	return append(warm, win...)
}
