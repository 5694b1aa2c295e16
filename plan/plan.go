package plan

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/loadprofile"
	"github.com/poolsweep/poolsweep/results"
)

// Limits on what a plan may ask for. They catch typos (an extra zero) and
// ranges that would never finish, before anything connects.
const (
	MaxConcurrency = results.MaxConcurrency
	MaxPoolSize    = results.MaxPoolSize
	MaxLevels      = results.MaxLevels
	MaxClients     = results.MaxClients
	MaxTrials      = results.MaxTrials
	MaxSteps       = 100000 // steps in one plan (per target and workload)
	MaxWorkers     = 200000 // worker goroutines in one process

	MinWindow    = 100 * time.Millisecond // --duration
	MaxWindow    = 24 * time.Hour         // --duration and --warmup
	MinOpTimeout = time.Millisecond
	MaxOpTimeout = time.Hour
)

// fmtDuration prints whole hours as "24h" rather than "24h0m0s".
func fmtDuration(d time.Duration) string {
	if d%time.Hour == 0 {
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return d.String()
}

// ParseLevels parses a level list: "64,128,256", a geometric range
// "1..256x2", a linear range "100..1000+100", or a comma-separated mix of
// these. The result is sorted and de-duplicated. max bounds each value.
// A range's step must be a finite number that reaches a second level
// (a factor from above 1 up to the range's span, a whole step up to its
// width), and it may take at most maxRangeSteps steps, so that no list
// runs as one level by accident, and none loops for long.
func ParseLevels(s string, max int) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty list")
	}
	seen := map[int]bool{}
	var out []int
	add := func(v int) error {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
		if len(out) > MaxLevels {
			return fmt.Errorf("more than %d levels", MaxLevels)
		}
		return nil
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("empty element in %s", textfmt.Token(s))
		}
		from, rest, isRange := strings.Cut(part, "..")
		if !isRange {
			v, err := parsePositive(part, max)
			if err != nil {
				return nil, err
			}
			if err := add(v); err != nil {
				return nil, err
			}
			continue
		}
		levels, err := parseRange(part, from, rest, max)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", textfmt.Token(part), err)
		}
		for _, v := range levels {
			if err := add(v); err != nil {
				return nil, fmt.Errorf("%s: %w", textfmt.Token(part), err)
			}
		}
	}
	sort.Ints(out)
	return out, nil
}

// maxRangeSteps bounds the steps one range may take (its levels before
// rounding and de-duplication).
const maxRangeSteps = 10 * MaxLevels

// parseRange expands one range, lo..hi followed by xFACTOR or +STEP.
func parseRange(part, from, rest string, max int) ([]int, error) {
	lo, err := parsePositive(from, max)
	if err != nil {
		return nil, err
	}
	var (
		hiS, stepS string
		geometric  bool
	)
	if h, st, ok := strings.Cut(rest, "x"); ok {
		hiS, stepS, geometric = h, st, true
	} else if h, st, ok := strings.Cut(rest, "+"); ok {
		hiS, stepS = h, st
	} else {
		return nil, fmt.Errorf("a range needs a step: %s..%sx2 (geometric) or %s..%s+%s (linear)", textfmt.Short(from), textfmt.Short(rest), textfmt.Short(from), textfmt.Short(rest), textfmt.Short(from))
	}
	hi, err := parsePositive(hiS, max)
	if err != nil {
		return nil, err
	}
	if hi < lo {
		return nil, fmt.Errorf("the range ends (%d) below where it starts (%d)", hi, lo)
	}
	step, err := strconv.ParseFloat(strings.TrimSpace(stepS), 64)
	if err != nil || math.IsNaN(step) || math.IsInf(step, 0) {
		return nil, fmt.Errorf("step %s is not a finite number", textfmt.Token(stepS))
	}
	var out []int
	if geometric {
		span := float64(hi) / float64(lo)
		switch {
		case !(step > 1):
			return nil, fmt.Errorf("factor %s never reaches %d (it must be above 1)", textfmt.Short(stepS), hi)
		case hi > lo && step > span:
			return nil, fmt.Errorf("factor %s goes past %d at once, leaving %d alone (it must be at most %g)", textfmt.Short(stepS), hi, lo, span)
		case math.Log(span)/math.Log(step) > maxRangeSteps:
			return nil, fmt.Errorf("factor %s is too close to 1: it takes more than %d steps from %d to %d", textfmt.Short(stepS), maxRangeSteps, lo, hi)
		}
		for v := float64(lo); v+0.5 < float64(hi)+1; v *= step {
			out = append(out, int(v+0.5))
		}
		return out, nil
	}
	switch {
	case step != math.Trunc(step) || step < 1:
		return nil, fmt.Errorf("step %s never reaches %d (it must be a whole number ≥ 1)", textfmt.Short(stepS), hi)
	case hi == lo:
		// One level, whatever the step: a step past what an int holds
		// ("1..1+1e308") must not reach the loop below, where it wrapped
		// to a negative stride and never ended (found by FuzzParseLevels).
		return []int{lo}, nil
	case step > float64(hi-lo):
		return nil, fmt.Errorf("step %s goes past %d at once, leaving %d alone (it must be at most %d)", textfmt.Short(stepS), hi, lo, hi-lo)
	case float64(hi-lo)/step >= MaxLevels:
		return nil, fmt.Errorf("more than %d levels", MaxLevels)
	}
	for v := lo; v <= hi; v += int(step) {
		out = append(out, v)
	}
	return out, nil
}

func parsePositive(s string, max int) (int, error) {
	s = strings.TrimSpace(s)
	v, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s is larger than %d", textfmt.Short(s), max)
	}
	if err != nil {
		return 0, fmt.Errorf("%s is not a whole number", textfmt.Token(s))
	}
	if v <= 0 {
		return 0, fmt.Errorf("%d: must be at least 1", v)
	}
	if v > max {
		return 0, fmt.Errorf("%d is larger than %d", v, max)
	}
	return v, nil
}

// ParseSpan parses the span a search explores: the lowest and highest
// value of a level list in which a range may leave out its step
// ("1..256"), because the search places its own levels between them
// (--resolution). Every other form ParseLevels takes is accepted too; only
// its lowest and highest value count.
func ParseSpan(s string, max int) (lo, hi int, err error) {
	var parts []string
	for _, part := range strings.Split(s, ",") {
		from, to, isRange := strings.Cut(part, "..")
		if !isRange || strings.ContainsAny(to, "x+") {
			parts = append(parts, part)
			continue
		}
		a, err := parsePositive(from, max)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", textfmt.Short(strings.TrimSpace(part)), err)
		}
		b, err := parsePositive(to, max)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", textfmt.Short(strings.TrimSpace(part)), err)
		}
		if b < a {
			return 0, 0, fmt.Errorf("%s: the range ends (%d) below where it starts (%d)", textfmt.Short(strings.TrimSpace(part)), b, a)
		}
		parts = append(parts, strconv.Itoa(a), strconv.Itoa(b))
	}
	levels, err := ParseLevels(strings.Join(parts, ","), max)
	if err != nil {
		return 0, 0, err
	}
	return levels[0], levels[len(levels)-1], nil
}

// PoolPlan is the --pool flag: "match" (P = C) or explicit sizes.
type PoolPlan struct {
	Match bool
	Sizes []int
	Given string
}

// ParsePool parses --pool: "match" or a level list.
func ParsePool(s string) (PoolPlan, error) {
	if strings.TrimSpace(s) == "match" {
		return PoolPlan{Match: true, Given: "match"}, nil
	}
	sizes, err := ParseLevels(s, MaxPoolSize)
	if err != nil {
		return PoolPlan{}, err
	}
	return PoolPlan{Sizes: sizes, Given: s}, nil
}

// Order of steps across targets.
const (
	OrderSequential  = "sequential"  // all of target A, then all of B
	OrderInterleaved = "interleaved" // A B A B … step by step, so drift hits both
)

// Plan is a sweep's grid and timing.
type Plan struct {
	Concurrency []int
	Pool        PoolPlan
	// Clients is the most clients any step runs: the only level, or the
	// largest of ClientLevels. What bounds a step's workers, connections
	// and files is counted from it.
	Clients int
	// ClientLevels, when set, are the client counts each grid point is
	// measured at (--clients 100,1000,10000), rising within a trial: an
	// axis like the concurrency's, each level a series of its own. Nil:
	// every step runs Clients.
	ClientLevels []int
	Trials       int
	Warmup       time.Duration
	Duration     time.Duration
	OpTimeout    time.Duration
	Order        string

	// TargetConcurrency, when set, is each target's own level list
	// (--concurrency NAME=LIST), one for every target of the run;
	// Concurrency is then the union of them, the run's levels as a whole.
	// Nil: every target takes Concurrency.
	TargetConcurrency map[string][]int

	// Open loop (--rate, openplan.go): offered calls/s levels over all
	// clients, the arrival process, and the most calls in flight per
	// client. Empty Rate is the closed loop. An open-loop plan's
	// Concurrency is [MaxInFlight].
	Rate        []int
	Arrivals    string
	MaxInFlight int
	// Search, when set, makes the plan an adaptive search over
	// Concurrency (its grid) rather than the grid itself.
	Search *results.SearchPlan
	// Auto, when set, ends warm-ups and windows from the data (auto.go);
	// Warmup and Duration are then the minimums.
	Auto *results.AutoPlan

	// Profile, when set, makes every step a profile step (profileplan.go):
	// open-loop arrivals that follow it, on each pool size, with Arrivals
	// and MaxInFlight as the open loop has them. Warmup is then 0 and
	// Duration the profile's length.
	Profile *loadprofile.Profile
	// PoolAxes, when set, are the pool options swept beside maxPoolSize
	// (each combination a series of its own) and --cold; nil: none was
	// given, and the steps keep the steady sweep's pool settings.
	PoolAxes *PoolAxes
	// Events are fired into every profile step (events.go), in time
	// order; none without --event.
	Events []results.EventSpec
}

// SetClientLevels makes levels the client counts of the steps, and
// Clients their largest.
func (p *Plan) SetClientLevels(levels []int) {
	p.ClientLevels = nil
	if len(levels) > 1 {
		p.ClientLevels = levels
	}
	if len(levels) > 0 {
		p.Clients = slices.Max(levels)
	}
}

// clientLevels are the client counts each grid point runs at.
func (p Plan) clientLevels() []int {
	if len(p.ClientLevels) > 0 {
		return p.ClientLevels
	}
	return []int{p.Clients}
}

// SetTargetLevels gives each target its own level list (one for every
// target of the run) and makes Concurrency their union.
func (p *Plan) SetTargetLevels(lists map[string][]int) {
	p.TargetConcurrency = lists
	var all []int
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.Sort(all)
	p.Concurrency = slices.Compact(all)
}

// Levels is the level list of target t: its own, or Concurrency.
func (p Plan) Levels(t string) []int {
	if l, ok := p.TargetConcurrency[t]; ok {
		return l
	}
	return p.Concurrency
}

// MaxLevel is the largest level of any target: what the largest step
// opens and runs.
func (p Plan) MaxLevel() int {
	return slices.Max(p.Concurrency)
}

// levelLists are the plan's level lists, each with the flag value that
// names it in an error: Concurrency ("--concurrency") alone, or each
// target's ("--concurrency NAME=…") in name order.
func (p Plan) levelLists() (flags []string, lists [][]int) {
	if len(p.TargetConcurrency) == 0 {
		return []string{"--concurrency"}, [][]int{p.Concurrency}
	}
	for _, t := range slices.Sorted(maps.Keys(p.TargetConcurrency)) {
		flags = append(flags, "--concurrency "+t+"=…")
		lists = append(lists, p.TargetConcurrency[t])
	}
	return flags, lists
}

// Validate checks the combination; each error names the flag.
func (p Plan) Validate() error {
	// The clients first: the open loop's and the workers' bounds are
	// counted from them, and a count past its own bound is the error.
	switch {
	case p.Clients < 1 || p.Clients > MaxClients:
		return fmt.Errorf("--clients: %d is not between 1 and %d", p.Clients, MaxClients)
	case len(p.ClientLevels) > 0 && slices.Max(p.ClientLevels) != p.Clients:
		return fmt.Errorf("--clients: the largest level %d is not the plan's clients %d", slices.Max(p.ClientLevels), p.Clients)
	case len(p.ClientLevels) > 0 && slices.Min(p.ClientLevels) < 1:
		return fmt.Errorf("--clients: %d is not between 1 and %d", slices.Min(p.ClientLevels), MaxClients)
	}
	if err := p.validateOpen(); err != nil {
		return err
	}
	if err := p.validateAuto(); err != nil {
		return err
	}
	if err := p.validateProfile(); err != nil {
		return err
	}
	if err := p.validateEvents(); err != nil {
		return err
	}
	switch {
	case len(p.Concurrency) == 0:
		return errors.New("--concurrency: empty list")
	case !p.Pool.Match && len(p.Pool.Sizes) == 0:
		return errors.New("--pool: empty list")
	case p.Trials < 1 || p.Trials > MaxTrials:
		return fmt.Errorf("--trials: %d is not between 1 and %d", p.Trials, MaxTrials)
	case p.Warmup < 0 || p.Warmup > MaxWindow:
		return fmt.Errorf("--warmup: %s is not between 0 and %s", p.Warmup, fmtDuration(MaxWindow))
	case !p.IsProfile() && (p.Duration < MinWindow || p.Duration > MaxWindow):
		return fmt.Errorf("--duration: %s is not between %s and %s (a window shorter than that measures the clock, not the server)", p.Duration, MinWindow, fmtDuration(MaxWindow))
	case p.OpTimeout < MinOpTimeout || p.OpTimeout > MaxOpTimeout:
		return fmt.Errorf("--op-timeout: %s is not between %s and %s", p.OpTimeout, MinOpTimeout, fmtDuration(MaxOpTimeout))
	case p.Order != "" && p.Order != OrderSequential && p.Order != OrderInterleaved:
		return fmt.Errorf("--order: %q is not sequential or interleaved", p.Order)
	}
	if len(p.TargetConcurrency) > 0 && (p.IsOpen() || p.IsProfile() || p.Search != nil) {
		return errors.New("--concurrency NAME=LIST: levels per target make a grid of the closed loop (not with --rate, --profile or --search)")
	}
	flags, lists := p.levelLists()
	for i, l := range lists {
		if len(l) == 0 {
			return fmt.Errorf("%s: empty list", flags[i])
		}
		if grid := len(l) * max(len(p.Pool.Sizes), 1) * len(p.clientLevels()) * p.Trials; grid > MaxSteps {
			return fmt.Errorf("%s, --pool and --trials: %d steps per target is more than %d", flags[i], grid, MaxSteps)
		}
		if top := slices.Max(l) * p.Clients; top > MaxWorkers {
			return fmt.Errorf("%s and --clients: %d workers (concurrency × clients) is more than %d in one process", flags[i], top, MaxWorkers)
		}
		if p.Pool.Match {
			for _, c := range l {
				if c > MaxPoolSize {
					return fmt.Errorf("--pool match: concurrency %d would need a pool larger than %d", c, MaxPoolSize)
				}
			}
		}
	}
	return nil
}

// SeriesSteps is how many steps one workload series takes over targets,
// each at its own levels, counted without laying them out.
func (p Plan) SeriesSteps(targets []string) int {
	per := max(len(p.Pool.Sizes), 1) * len(p.clientLevels()) * max(p.Trials, 1)
	n := 0
	for _, t := range targets {
		levels := len(p.Levels(t))
		if p.IsOpen() {
			levels = len(p.Rate)
		}
		n += levels * per
	}
	return n
}

// StepSpec is one step to measure.
type StepSpec struct {
	Index       int // 0-based position in the plan
	Target      string
	Workload    string // series label of the workload (several with --mixes)
	Concurrency int
	MaxPoolSize int
	PoolSetting string
	Clients     int
	Trial       int // 1-based
	// Rate is an open-loop step's offered calls/s (0: closed loop), with
	// its arrival process; Concurrency is then the most calls in flight
	// per client.
	Rate     int
	Arrivals string
	// Profile, when set, makes the step a profile step: open-loop
	// arrivals that follow it (Rate is then its peak, rounded up), with
	// a timeline instead of one window.
	Profile *loadprofile.Profile
	// Search says why an adaptive search chose the step (nil in a grid).
	Search *results.SearchInfo
	// ExtraTrial says why a grid whose trials are a maximum took this
	// trial beyond the first (nil otherwise).
	ExtraTrial *results.ExtraTrial
}

// Key identifies a step across runs, for --resume: the key of the step
// record it becomes (results.StepResult.Key).
func (s StepSpec) Key() string {
	return results.StepKey(s.Target, s.Workload, s.PoolSetting, s.Concurrency, s.Clients, s.Trial, s.Rate)
}

// Steps expands the plan for the given targets and workload labels, each
// target over its own levels (Levels). Trials are the outer loop so that a
// slow drift of the machine spreads over every level instead of biasing
// the last ones; within a trial concurrency rises.
func (p Plan) Steps(targets, workloads []string) []StepSpec {
	if p.IsProfile() {
		return p.profileSteps(targets, workloads)
	}
	if len(p.Rate) > 0 {
		return p.openSteps(targets, workloads)
	}
	return p.expand(targets, workloads, func(t string) []StepSpec {
		var grid []StepSpec
		for _, c := range p.Levels(t) {
			if p.Pool.Match {
				grid = append(grid, StepSpec{Concurrency: c, MaxPoolSize: c, PoolSetting: "match"})
				continue
			}
			for _, ps := range p.Pool.Sizes {
				grid = append(grid, StepSpec{Concurrency: c, MaxPoolSize: ps, PoolSetting: strconv.Itoa(ps)})
			}
		}
		return grid
	})
}

// expand lays each target's grid points (steps with only their levels
// set) out over targets, workloads, client levels and trials in the
// plan's order, numbering them; each grid point runs at every client
// level in turn, the fewest clients first. Interleaved, the targets take turns by position in their
// grids: the i-th point of each target's grid side by side, so targets of
// different levels still alternate step by step, and one with fewer
// points ends its part of each trial earlier.
func (p Plan) expand(targets, workloads []string, gridOf func(target string) []StepSpec) []StepSpec {
	grids := make([][]StepSpec, len(targets))
	longest := 0
	for i, t := range targets {
		for _, g := range gridOf(t) {
			for _, k := range p.clientLevels() {
				g.Clients = k
				grids[i] = append(grids[i], g)
			}
		}
		longest = max(longest, len(grids[i]))
	}
	var out []StepSpec
	emit := func(t, w string, g StepSpec, trial int) {
		g.Index, g.Target, g.Workload, g.Trial = len(out), t, w, trial
		out = append(out, g)
	}
	if p.Order == OrderInterleaved {
		for trial := 1; trial <= p.Trials; trial++ {
			for _, w := range workloads {
				for i := range longest {
					for k, t := range targets {
						if i < len(grids[k]) {
							emit(t, w, grids[k][i], trial)
						}
					}
				}
			}
		}
		return out
	}
	for k, t := range targets {
		for trial := 1; trial <= p.Trials; trial++ {
			for _, w := range workloads {
				for _, g := range grids[k] {
					emit(t, w, g, trial)
				}
			}
		}
	}
	return out
}
