package plan

import (
	"errors"
	"fmt"
	"github.com/poolsweep/poolsweep/internal/stats/twosample"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Load that changes (sweep --profile) and the pool options beside
// maxPoolSize (--min-pool, --max-connecting, --max-idle, --timeout,
// --retry, --server-selection-timeout, --heartbeat, --cold): a profile step offers the profile's open-loop arrivals on one
// pool size, and every combination of the pool options swept is a series
// of its own (workload.WithPoolOptions), so that the settings of one
// trial run side by side.

// Bounds of the profile and of the pool-option axes.
const (
	// MaxProfileSpec bounds --profile's text: a profile of a few dozen
	// phases fits in far less, and a trace is a file, named once.
	MaxProfileSpec = 4096
	// MaxProfileLength bounds one profile step. Its timeline holds an
	// interval per 100 ms, each a few hundred bytes in its record: 4 hours
	// are 144,000 intervals, within the 64 MiB a results line may hold
	// (results' reader) with room for the rest of the step.
	MaxProfileLength = 4 * time.Hour
	// MaxAxisValues bounds each pool-option list; their product is bounded
	// by the series a run may hold (results.MaxWorkloads).
	MaxAxisValues = 32
	// MaxIdle bounds --max-idle.
	MaxIdle = 24 * time.Hour
	// MinHeartbeat and MaxHeartbeat bound --heartbeat: the drivers take
	// no heartbeatFrequencyMS below 500 ms; an hour between checks is
	// already no monitoring within a profile step.
	MinHeartbeat = results.MinHeartbeatMS * time.Millisecond
	MaxHeartbeat = time.Hour
)

// PoolAxes are the pool options a sweep varies beside maxPoolSize, each
// list an axis of series (empty: not swept, the URI's or the driver's
// value is in effect), and Cold: the profile steps' pools start empty.
type PoolAxes struct {
	MinPool       []int
	MaxConnecting []int
	MaxIdle       []time.Duration
	Timeout       []time.Duration
	// Retry is retryReads and retryWrites together (--retry on,off);
	// ServerSelectionTimeout the driver's serverSelectionTimeoutMS;
	// Heartbeat its heartbeatFrequencyMS.
	Retry                  []bool
	ServerSelectionTimeout []time.Duration
	Heartbeat              []time.Duration
	Cold                   bool
}

// Swept says which options the axes sweep (the series label names them).
func (a PoolAxes) Swept() results.PoolAxes {
	return results.PoolAxes{MinPool: len(a.MinPool) > 0, MaxConnecting: len(a.MaxConnecting) > 0,
		MaxIdle: len(a.MaxIdle) > 0, Timeout: len(a.Timeout) > 0, Retry: len(a.Retry) > 0,
		ServerSelectionTimeout: len(a.ServerSelectionTimeout) > 0, Heartbeat: len(a.Heartbeat) > 0}
}

// Settings are the combinations of the axes' values, minPoolSize
// outermost and the heartbeat innermost, each with Cold. An option not
// swept is 0 (or absent) here: the step fills in what is in effect
// (sweep's stepClientOptions).
func (a PoolAxes) Settings() []results.PoolOptions {
	minPool, connecting := orZero(a.MinPool), orZero(a.MaxConnecting)
	idle, timeout := orZero(a.MaxIdle), orZero(a.Timeout)
	var out []results.PoolOptions
	for _, mp := range minPool {
		for _, mc := range connecting {
			for _, mi := range idle {
				for _, to := range timeout {
					o := results.PoolOptions{MinPoolSize: mp, MaxConnecting: mc,
						MaxIdleMS: mi.Milliseconds(), TimeoutMS: to.Milliseconds(), Cold: a.Cold}
					out = append(out, a.driverSettings(o)...)
				}
			}
		}
	}
	return out
}

// driverSettings are o with each combination of the driver's options
// swept (retry, then the server selection timeout, then the heartbeat).
func (a PoolAxes) driverSettings(o results.PoolOptions) []results.PoolOptions {
	var out []results.PoolOptions
	for _, r := range optional(a.Retry) {
		for _, sst := range optional(a.ServerSelectionTimeout) {
			for _, hb := range optional(a.Heartbeat) {
				v := o
				if r != nil {
					v.RetryReads, v.RetryWrites = results.OnOff(*r), results.OnOff(*r)
				}
				if sst != nil {
					v.ServerSelectionTimeoutMS = sst.Milliseconds()
				}
				if hb != nil {
					v.HeartbeatMS = hb.Milliseconds()
				}
				out = append(out, v)
			}
		}
	}
	return out
}

// optional is each of vs by pointer, or one nil when vs is empty (the
// option not swept).
func optional[T any](vs []T) []*T {
	if len(vs) == 0 {
		return []*T{nil}
	}
	out := make([]*T, len(vs))
	for i := range vs {
		out[i] = &vs[i]
	}
	return out
}

func orZero[T any](vs []T) []T {
	if len(vs) == 0 {
		return make([]T, 1)
	}
	return vs
}

// ParseMinPool reads --min-pool: whole numbers from 0 (the driver's
// default: no connection kept open) to MaxPoolSize, comma-separated,
// each once, sorted.
func ParseMinPool(s string) ([]int, error) {
	return parseAxis(s, func(v string) (int, error) {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange):
			return 0, fmt.Errorf("%s is larger than %d", textfmt.Short(v), MaxPoolSize)
		case err != nil:
			return 0, fmt.Errorf("%s is not a whole number", textfmt.Token(v))
		case n < 0 || n > MaxPoolSize:
			return 0, fmt.Errorf("%d is not between 0 and %d", n, MaxPoolSize)
		}
		return n, nil
	}, func(a, b int) int { return a - b })
}

// ParseLengths reads a list of durations (--max-idle, --timeout): each a
// whole number of milliseconds (the drivers' options are in ms) from lo
// to hi, where 0 is taken only when zero says what it means ("" refuses
// it); each once, sorted.
func ParseLengths(s string, lo, hi time.Duration, zero string) ([]time.Duration, error) {
	return parseAxis(s, func(v string) (time.Duration, error) {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			return 0, fmt.Errorf("%s is not a duration (say 0, 500ms, 10s)", textfmt.Token(v))
		case d == 0 && zero != "":
			return 0, nil
		case d < lo || d > hi:
			return 0, fmt.Errorf("%s is not between %s and %s%s", textfmt.Short(v), lo, fmtDuration(hi), zeroText(zero))
		case d%time.Millisecond != 0:
			return 0, fmt.Errorf("%s is not a whole number of milliseconds (the drivers take these options in ms)", textfmt.Short(v))
		}
		return d, nil
	}, func(a, b time.Duration) int { return int(a - b) })
}

func zeroText(zero string) string {
	if zero == "" {
		return ""
	}
	return ", or 0 (" + zero + ")"
}

// parseAxis splits a comma-separated list, reads each element with one,
// and refuses an empty element, a value given twice (two series of one
// name) and more than MaxAxisValues.
func parseAxis[T comparable](s string, one func(string) (T, error), cmp func(a, b T) int) ([]T, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty list")
	}
	var out []T
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("empty element in %s", textfmt.Token(s))
		}
		v, err := one(part)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("%s is given twice", textfmt.Short(part))
		}
		if out = append(out, v); len(out) > MaxAxisValues {
			return nil, fmt.Errorf("more than %d values", MaxAxisValues)
		}
	}
	slices.SortFunc(out, cmp)
	return out, nil
}

// IsProfile says whether the plan's steps follow a load profile
// (--profile).
func (p Plan) IsProfile() bool { return p.Profile != nil }

// ProfileRate is a profile step's rate: the profile's peak, rounded up,
// the most calls/s it offers at any moment.
func (p Plan) ProfileRate() int {
	return int(math.Ceil(p.Profile.Peak()))
}

// profileDrain is what a profile step lasts past its profile's end: the
// calls still running are waited for up to 1.25 op timeouts and a second,
// as every step's drain does (sweep's drain).
func (p Plan) profileDrain() time.Duration {
	return p.OpTimeout*5/4 + time.Second
}

// validateProfile checks what a profile plan and the pool axes have;
// each error names the flag.
func (p Plan) validateProfile() error {
	a := p.PoolAxes
	if p.Profile != nil {
		d := p.Profile.Duration()
		switch {
		case len(p.Rate) > 0:
			return errors.New("--profile and --rate: the profile gives the rate at every moment; give one")
		case p.Search != nil:
			return errors.New("--profile and --search: a search measures steady steps; a profile step runs each setting through the load given")
		case d > MaxProfileLength:
			return fmt.Errorf("--profile: it lasts %s, longer than the %s one step may (its timeline holds an interval per 100 ms)", d, fmtDuration(MaxProfileLength))
		case d > MaxRunTime:
			return fmt.Errorf("--profile: it lasts %s, longer than the %s a run may be planned for", d, fmtLong(MaxRunTime.Seconds()))
		}
		if err := p.checkRate("--profile: its peak", p.ProfileRate()); err != nil {
			return err
		}
	}
	if a == nil {
		return nil
	}
	if a.Cold && p.Profile == nil {
		return errors.New("--cold: only with --profile (a steady step's warm-up fills the pool before its window, whatever it started with)")
	}
	if len(a.MinPool) > 0 {
		pools, which := p.Pool.Sizes, "--pool"
		if p.Pool.Match {
			// Pool match: the pool is each level's concurrency.
			pools, which = p.Concurrency, "--pool match (= --concurrency)"
		}
		if top, least := slices.Max(a.MinPool), slices.Min(pools); len(pools) > 0 && top > least {
			flag := "--min-pool"
			if a.Cold {
				flag = "--cold and --min-pool"
			}
			return fmt.Errorf("%s: %d is above %s %d: a pool never holds more than its maxPoolSize (give --min-pool at most the smallest pool)", flag, top, which, least)
		}
	}
	for _, t := range a.Timeout {
		if t > p.OpTimeout {
			return fmt.Errorf("--timeout: %s is above --op-timeout %s, which ends every operation first; give --op-timeout above it", t, p.OpTimeout)
		}
	}
	for _, t := range a.ServerSelectionTimeout {
		if t > p.OpTimeout {
			return fmt.Errorf("--server-selection-timeout: %s is above --op-timeout %s, which ends every operation's wait for a server first; give --op-timeout above it", t, p.OpTimeout)
		}
	}
	return nil
}

// profileSteps expands a profile plan: one step per pool size for every
// target, workload (each pool-option setting is a workload series) and
// trial, trials outermost (expand), so that within a trial every setting
// runs once before the next trial starts.
func (p Plan) profileSteps(targets, workloads []string) []StepSpec {
	var grid []StepSpec
	for _, ps := range p.Pool.Sizes {
		grid = append(grid, StepSpec{Concurrency: p.MaxInFlight, MaxPoolSize: ps, PoolSetting: strconv.Itoa(ps),
			Rate: p.ProfileRate(), Arrivals: p.Arrivals, Profile: p.Profile})
	}
	return p.expand(targets, workloads, func(string) []StepSpec { return grid })
}

// ParseRetry reads --retry: on, off or both (retryReads and retryWrites
// together), comma-separated, each once; on first.
func ParseRetry(s string) ([]bool, error) {
	return parseAxis(s, func(v string) (bool, error) {
		switch v {
		case "on":
			return true, nil
		case "off":
			return false, nil
		}
		return false, fmt.Errorf("%s is not on or off", textfmt.Token(v))
	}, func(a, b bool) int {
		switch {
		case a == b:
			return 0
		case a:
			return -1
		}
		return 1
	})
}

// ProfileTrials is a profile sweep's trials when --trials is not given:
// the fewest a side with which the settings' comparison can conclude
// (compare's two-sample test), each setting's trials interleaved with
// the others'.
const ProfileTrials = twosample.MinTrials
