// Package openloop is the analysis of an open-loop sweep (arrivals at a
// fixed rate, latency from each call's intended start): per pool size the
// highest offered rate carried, the smallest pool that carries each rate,
// where waiting for a connection dominates, and the recommendation in
// words. Pure functions of the records of package results, with the knee
// analysis's options (knee.Options: the SLO); analysis/render draws its
// reports.
package openloop

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Thresholds of the open-loop knee, properties of the method.
const (
	// openAchieved is the share of the offered rate a level must carry.
	openAchieved = 0.99
	// openMaxErrors is the largest share of failed operations a carried
	// level may have.
	openMaxErrors = 0.01
	// openLatencyGrowth: without an SLO, a level's p99 above this many
	// times the series' lowest p99 means latency has started to grow.
	openLatencyGrowth = 2.0
	// openTrendGrowth: a window whose last third of calls all waited
	// this many times longer than any of its first third
	// (latency_trend_ms) has a growing queue.
	openTrendGrowth = 1.5
)

// Point is one open-loop step as the analysis sees it.
type Point struct {
	Rate, MaxPoolSize, Trial  int
	OfferedPerS, AchievedPerS float64
	P50Ms, P99Ms              float64 // corrected
	UncorrectedP99Ms          *float64
	PoolWaitShare             float64
	Dropped                   int64
	ErrorShare                float64
	Growing, ClientBehind     bool
}

// Series is the open-loop steps of one target × workload × clients,
// over every pool size: one curve per pool.
type Series struct {
	Target, Workload, Topology string
	Clients, Hosts             int
	Points                     []Point
	// Warnings name the steps left out (the target failed during them).
	Warnings []string
}

// Level is one offered rate of one pool size, medians over trials.
type Level struct {
	Rate             int      `json:"rate"`
	Trials           int      `json:"trials"`
	OfferedPerS      float64  `json:"offered_per_s"`
	AchievedPerS     float64  `json:"achieved_per_s"`
	AchievedShare    float64  `json:"achieved_share"`
	P50Ms            float64  `json:"p50_ms"`
	P99Ms            float64  `json:"p99_ms"`
	UncorrectedP99Ms *float64 `json:"uncorrected_p99_ms"` // null when no call reached the server
	PoolWaitShare    float64  `json:"pool_wait_share"`
	Dropped          int64    `json:"dropped"` // over the trials
	ErrorShare       float64  `json:"error_share"`
	Growing          bool     `json:"latency_growing"`
	ClientBehind     bool     `json:"client_behind,omitempty"`
	Carried          bool     `json:"carried"`
	Why              string   `json:"why,omitempty"` // why it is not carried
}

// Pool is one pool size's levels and the highest rate it carried.
type Pool struct {
	MaxPoolSize int     `json:"max_pool_size"`
	Levels      []Level `json:"levels"`
	// CarriedRate is the highest offered rate carried; nil when none was.
	CarriedRate *int `json:"carried_rate"`
	// PoolWaitFrom is the lowest rate at which waiting for a connection
	// is more than half of the call latency; nil when it never is.
	PoolWaitFrom *int `json:"pool_wait_dominates_from"`
}

// RateChoice is the smallest pool that carried one offered rate.
type RateChoice struct {
	Rate        int  `json:"rate"`
	MaxPoolSize *int `json:"max_pool_size"` // nil: no pool measured carried it
}

// Report is the open-loop knee of one series: per pool the highest
// offered rate carried, the highest rate any pool carried and the smallest
// pool that carries it, and the recommendation in words.
type Report struct {
	Target   string `json:"target"`
	Workload string `json:"workload,omitempty"`
	Clients  int    `json:"clients"`
	// Rule says what "carried" meant here (the SLO, or latency not yet
	// growing).
	Rule     string       `json:"rule"`
	SLOP99Ms *float64     `json:"slo_p99_ms"`
	Pools    []Pool       `json:"pools"`
	ByRate   []RateChoice `json:"by_rate"`
	// CarriedRate is the highest offered rate any pool carried, and
	// MaxPoolSize the smallest pool that carried it; nil when none did.
	CarriedRate    *int     `json:"carried_rate"`
	MaxPoolSize    *int     `json:"max_pool_size"`
	Recommendation string   `json:"recommendation"`
	Warnings       []string `json:"warnings,omitempty"`
}

// FromResults gathers the open-loop steps (mode "open") of decoded
// results into series, one per target × workload × clients, in the order
// they first appear. Interrupted steps are left out, and so are steps
// during which the target failed, named in the series' warnings.
func FromResults(rs []*results.Results) []Series {
	type key struct {
		target, workload string
		clients          int
	}
	var order []key
	by := map[key]*Series{}
	for _, res := range rs {
		if res == nil {
			continue
		}
		for i := range res.Steps {
			st := &res.Steps[i]
			if st.Mode != results.ModeOpen || st.Open == nil || st.Interrupted || st.Rate < 1 {
				continue
			}
			k := key{st.Target, st.Workload, max(st.Clients, 1)}
			s, ok := by[k]
			if !ok {
				s = &Series{Target: st.Target, Workload: st.Workload, Clients: k.clients, Hosts: 1}
				for _, t := range res.Header.Targets {
					if t.Name == st.Target {
						s.Topology, s.Hosts = t.Topology, max(len(t.Hosts), 1)
					}
				}
				by[k] = s
				order = append(order, k)
			}
			if st.TargetFailed != nil {
				s.Warnings = append(s.Warnings, knee.TargetFailedNote(st))
				continue
			}
			s.Points = append(s.Points, openPoint(st))
		}
	}
	out := make([]Series, 0, len(order))
	for _, k := range order {
		out = append(out, *by[k])
	}
	return out
}

func openPoint(st *results.StepResult) Point {
	o := st.Open
	p := Point{Rate: st.Rate, MaxPoolSize: st.MaxPoolSize, Trial: st.Trial, OfferedPerS: o.OfferedPerS, AchievedPerS: o.AchievedPerS,
		P50Ms: o.Corrected.P50, P99Ms: o.Corrected.P99, PoolWaitShare: o.PoolWaitShare(), Dropped: o.Dropped,
		// The engine's own evidence, or the classifier's: a contended load
		// host labels the step client-bound without the schedule slipping.
		ClientBehind: o.ClientBehind || st.Bound == bound.BoundClient}
	if o.Uncorrected != nil {
		v := o.Uncorrected.P99
		p.UncorrectedP99Ms = &v
	}
	if st.Ops > 0 {
		p.ErrorShare = float64(st.Errors.Total()) / float64(st.Ops)
	}
	var first, last []float64
	for i, v := range o.LatencyTrend {
		if v == nil {
			continue
		}
		switch {
		case i < len(o.LatencyTrend)/3:
			first = append(first, *v)
		case i >= len(o.LatencyTrend)-len(o.LatencyTrend)/3:
			last = append(last, *v)
		}
	}
	if len(first) > 0 && len(last) > 0 {
		// Every tenth of the last third above every one of the first: a
		// queue that builds up, not one slow moment (a pause of the host
		// lifts one tenth).
		p.Growing = slices.Min(last) > openTrendGrowth*slices.Max(first)
	}
	// An auto window that ended because the target fell behind saw its
	// queue grow (a significant rise of the corrected latency), though a
	// window as short as its minimum may rise less than openTrendGrowth.
	if s := st.Steady; s != nil && (s.WindowEnd == results.WindowEndOverloaded || s.WarmupEnd == results.WindowEndOverloaded) {
		p.Growing = true
	}
	return p
}

// AnalyzeAll analyses every open-loop series with the same options.
func AnalyzeAll(series []Series, o knee.Options) []Report {
	out := make([]Report, 0, len(series))
	for _, s := range series {
		out = append(out, analyzeOpen(s, o))
	}
	return out
}

// analyzeOpen finds, for each pool size, the highest offered rate that
// was carried: achieved (at least 99% of the offered rate), with at most
// 1% of operations failed, and with p99 within knee.Options.SLOP99, or, with
// no SLO, with latency not yet growing (p99 within twice the series'
// lowest, and no rising trend over the window). Across pools it reports
// the highest rate carried and the smallest maxPoolSize that carries it,
// and where waiting for a connection dominates the latency of the pools
// below it.
func analyzeOpen(s Series, o knee.Options) Report {
	r := Report{Target: s.Target, Workload: s.Workload, Clients: max(s.Clients, 1), Pools: []Pool{}, ByRate: []RateChoice{}}
	r.Warnings = append(r.Warnings, s.Warnings...)
	if o.SLOP99 > 0 {
		v := float64(o.SLOP99.Microseconds()) / 1000
		r.SLOP99Ms = &v
		r.Rule = fmt.Sprintf("carried: achieved ≥ %.0f%% of the offered rate, ≤ %.0f%% of operations failed, corrected p99 ≤ %s ms", 100*openAchieved, 100*openMaxErrors, strconv.FormatFloat(*r.SLOP99Ms, 'g', -1, 64))
	} else {
		r.Rule = fmt.Sprintf("carried: achieved ≥ %.0f%% of the offered rate, ≤ %.0f%% of operations failed, latency not yet growing (corrected p99 ≤ %g× the series' lowest, no rising trend over the window)",
			100*openAchieved, 100*openMaxErrors, openLatencyGrowth)
	}
	pools := map[int][]Point{}
	for _, p := range s.Points {
		pools[p.MaxPoolSize] = append(pools[p.MaxPoolSize], p)
	}
	sizes := make([]int, 0, len(pools))
	for size := range pools {
		sizes = append(sizes, size)
	}
	sort.Ints(sizes)
	for _, size := range sizes {
		r.Pools = append(r.Pools, Pool{MaxPoolSize: size, Levels: openLevels(pools[size])})
	}
	lowest := math.Inf(1)
	for _, p := range r.Pools {
		for _, l := range p.Levels {
			if l.AchievedShare >= openAchieved && l.P99Ms > 0 {
				lowest = min(lowest, l.P99Ms)
			}
		}
	}
	var behind []string
	for i := range r.Pools {
		p := &r.Pools[i]
		for j := range p.Levels {
			l := &p.Levels[j]
			l.Carried, l.Why = carried(*l, r.SLOP99Ms, lowest)
			if l.Carried {
				p.CarriedRate = intPtr(l.Rate)
			}
			if l.PoolWaitShare > knee.PoolWaitShare && p.PoolWaitFrom == nil {
				p.PoolWaitFrom = intPtr(l.Rate)
			}
			if l.ClientBehind {
				behind = append(behind, fmt.Sprintf("pool %d at %s/s", p.MaxPoolSize, textfmt.Thousands(float64(l.Rate))))
			}
		}
		if p.CarriedRate != nil {
			if r.CarriedRate == nil || *p.CarriedRate > *r.CarriedRate {
				r.CarriedRate = intPtr(*p.CarriedRate)
			}
		}
	}
	r.ByRate = byRate(r.Pools)
	for _, c := range r.ByRate {
		if r.CarriedRate != nil && c.Rate == *r.CarriedRate {
			r.MaxPoolSize = c.MaxPoolSize
		}
	}
	r.Recommendation = openRecommendation(r, s)
	if len(behind) > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the load host fell behind its arrival schedule at %s: those levels' latency is partly the client's; run with --clients on more machines before trusting them",
			strings.Join(behind, ", ")))
	}
	trials := math.MaxInt
	for _, p := range r.Pools {
		for _, l := range p.Levels {
			trials = min(trials, l.Trials)
		}
	}
	if trials == 1 {
		r.Warnings = append(r.Warnings, "one trial per level: no noise estimate; the carried rates are unconfirmed (use 3 or more trials)")
	}
	return r
}

// openLevels aggregates one pool's points by offered rate.
func openLevels(ps []Point) []Level {
	by := map[int][]Point{}
	for _, p := range ps {
		by[p.Rate] = append(by[p.Rate], p)
	}
	out := make([]Level, 0, len(by))
	for _, rate := range slices.Sorted(maps.Keys(by)) {
		tr := by[rate]
		med := func(f func(Point) float64) float64 {
			v := make([]float64, len(tr))
			for i, p := range tr {
				v[i] = f(p)
			}
			return stats.Median(v)
		}
		l := Level{Rate: rate, Trials: len(tr),
			OfferedPerS:   med(func(p Point) float64 { return p.OfferedPerS }),
			AchievedPerS:  med(func(p Point) float64 { return p.AchievedPerS }),
			P50Ms:         med(func(p Point) float64 { return p.P50Ms }),
			P99Ms:         med(func(p Point) float64 { return p.P99Ms }),
			PoolWaitShare: med(func(p Point) float64 { return p.PoolWaitShare }),
			ErrorShare:    med(func(p Point) float64 { return p.ErrorShare }),
		}
		if l.OfferedPerS > 0 {
			l.AchievedShare = med(func(p Point) float64 { return p.AchievedPerS / max(p.OfferedPerS, 1e-9) })
		}
		growing, behind := 0, 0
		var unc []float64
		for _, p := range tr {
			l.Dropped += p.Dropped
			if p.Growing {
				growing++
			}
			if p.ClientBehind {
				behind++
			}
			if p.UncorrectedP99Ms != nil {
				unc = append(unc, *p.UncorrectedP99Ms)
			}
		}
		if len(unc) == len(tr) {
			v := stats.Median(unc)
			l.UncorrectedP99Ms = &v
		}
		l.Growing = 2*growing > len(tr)
		l.ClientBehind = 2*behind >= len(tr)
		out = append(out, l)
	}
	return out
}

// carried decides one level, and says why not.
func carried(l Level, sloMs *float64, lowestP99 float64) (bool, string) {
	switch {
	case l.AchievedShare < openAchieved:
		why := fmt.Sprintf("achieved %.0f%% of the offered rate", 100*l.AchievedShare)
		if l.Dropped > 0 {
			why += fmt.Sprintf(", %d arrivals dropped", l.Dropped)
		}
		return false, why
	case l.ErrorShare > openMaxErrors:
		return false, fmt.Sprintf("%.1f%% of operations failed", 100*l.ErrorShare)
	case sloMs != nil && l.P99Ms > *sloMs:
		return false, fmt.Sprintf("p99 %s ms is above the SLO", textfmt.Ms(l.P99Ms))
	case sloMs == nil && l.P99Ms > openLatencyGrowth*lowestP99:
		return false, fmt.Sprintf("p99 %s ms is over %g× the lowest (%s ms): latency grows", textfmt.Ms(l.P99Ms), openLatencyGrowth, textfmt.Ms(lowestP99))
	case sloMs == nil && l.Growing:
		return false, "latency rose over the window: the queue grows"
	}
	return true, ""
}

// byRate is, for every offered rate measured, the smallest pool that
// carried it.
func byRate(pools []Pool) []RateChoice {
	var rates []int
	for _, p := range pools {
		for _, l := range p.Levels {
			if !slices.Contains(rates, l.Rate) {
				rates = append(rates, l.Rate)
			}
		}
	}
	sort.Ints(rates)
	out := make([]RateChoice, 0, len(rates))
	for _, rate := range rates {
		c := RateChoice{Rate: rate}
		for _, p := range pools { // smallest first
			i := slices.IndexFunc(p.Levels, func(l Level) bool { return l.Rate == rate })
			if i >= 0 && p.Levels[i].Carried {
				c.MaxPoolSize = intPtr(p.MaxPoolSize)
				break
			}
		}
		out = append(out, c)
	}
	return out
}

func intPtr(v int) *int { return &v }

// openRecommendation words the report: "to carry 12,000 calls/s at p99 ≤
// 20 ms, use maxPoolSize ≥ 24 per client per host; at 16, pool wait
// dominates above 9,000 calls/s".
func openRecommendation(r Report, s Series) string {
	if len(r.Pools) == 0 {
		return "nothing to recommend without open-loop measurements."
	}
	at := "before latency grows"
	if r.SLOP99Ms != nil {
		at = "at p99 ≤ " + strconv.FormatFloat(*r.SLOP99Ms, 'g', -1, 64) + " ms"
	}
	lowest := r.ByRate[0].Rate
	if r.CarriedRate == nil || r.MaxPoolSize == nil {
		return fmt.Sprintf("No pool size measured carries even %s calls/s %s; offer lower rates, or the target cannot take this load.", textfmt.Thousands(float64(lowest)), at)
	}
	rate, pool := *r.CarriedRate, *r.MaxPoolSize
	perHost := "per client per host"
	if r.Clients > 1 {
		perHost = fmt.Sprintf("per client per host (%d clients share the rate)", r.Clients)
	}
	text := fmt.Sprintf("to carry %s calls/s %s, use maxPoolSize ≥ %d %s", textfmt.Thousands(float64(rate)), at, pool, perHost)
	i := slices.IndexFunc(r.Pools, func(p Pool) bool { return p.MaxPoolSize == pool })
	if i > 0 {
		text += "; " + smallerPool(r.Pools[i-1])
	} else {
		text += " (the smallest pool measured: a smaller one may do)"
	}
	var notes []string
	if top := r.ByRate[len(r.ByRate)-1].Rate; rate == top {
		notes = append(notes, "that is the highest rate offered: the target may carry more, so offer higher rates to find its limit")
	}
	if s.Topology == "sharded" && s.Hosts > 1 {
		notes = append(notes, fmt.Sprintf("the pool is per mongos, %d of them", s.Hosts))
	}
	text += "."
	for _, n := range notes {
		text += " " + textfmt.Capitalise(n) + "."
	}
	return textfmt.Capitalise(text)
}

// smallerPool says what the next smaller pool did: where waiting for a
// connection took over, or how far it got.
func smallerPool(p Pool) string {
	if p.PoolWaitFrom != nil {
		below := 0
		for _, l := range p.Levels {
			if l.Rate < *p.PoolWaitFrom {
				below = l.Rate
			}
		}
		if below == 0 {
			return fmt.Sprintf("at %d, pool wait dominates at every rate measured (from %s calls/s)", p.MaxPoolSize, textfmt.Thousands(float64(*p.PoolWaitFrom)))
		}
		return fmt.Sprintf("at %d, pool wait dominates above %s calls/s", p.MaxPoolSize, textfmt.Thousands(float64(below)))
	}
	if p.CarriedRate != nil {
		return fmt.Sprintf("at %d, it carries up to %s calls/s", p.MaxPoolSize, textfmt.Thousands(float64(*p.CarriedRate)))
	}
	return fmt.Sprintf("at %d, no rate measured is carried", p.MaxPoolSize)
}
