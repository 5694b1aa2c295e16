package analysis

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// PoolRecommendation is the whole pool configuration recommended for one
// target: maxPoolSize from the knee (or the profile steps), and the
// options only a profile sweep measures.
type PoolRecommendation struct {
	Target      string         `json:"target"`
	PoolOptions PoolOptionsRec `json:"pool_options"`
}

// PoolOptionsRec is each option's choice.
type PoolOptionsRec struct {
	MaxPoolSize   Choice `json:"max_pool_size"`
	MinPoolSize   Choice `json:"min_pool_size"`
	MaxConnecting Choice `json:"max_connecting"`
	MaxIdleMS     Choice `json:"max_idle_ms"`
	TimeoutMS     Choice `json:"timeout_ms"`
}

// Choice is one option's recommended value, where it came from and why.
// Value is nil when the results give no evidence for one (Why says what
// is missing) or when the driver's default is the answer (KeepDefault).
type Choice struct {
	Value       *int64 `json:"value"`
	KeepDefault bool   `json:"keep_default,omitempty"`
	// From names the evidence: knee, profile, scenarios, storm, phases.
	From string `json:"from,omitempty"`
	Why  string `json:"why"`
}

// Capacity shortfall: a setting whose steady throughput is below this
// share of the offered rate did not carry the rate; its spike is the
// deployment's, which no pool option removes.
const capacityShare = 0.95

// timeoutMargin is how far above the worst p99 the recommended setting
// saw the recommended timeout lies: a p99 leaves 1 % of calls slower, and
// a timeout those calls reach closes their connection, which the pool
// then opens again (churn).
const timeoutMargin = 2.0

// PoolRecommendations recommends the pool options for each target whose
// profile steps the scenarios hold, in their order. evs are the events
// under those settings (they decide maxConnecting, and can raise
// minPoolSize: eventChoice). series are the knee reports (maxPoolSize from the knee where the target has one), storms
// the connection storms of the same files, slo the p99 bound (0: none,
// then each setting's bound is twice its steady p99).
func PoolRecommendations(scs []Scenario, evs []EventResult, series []knee.Report, storms []results.StormResult, slo time.Duration) []PoolRecommendation {
	var out []PoolRecommendation
	var targets []string
	for _, sc := range scs {
		if !slices.Contains(targets, sc.Target) {
			targets = append(targets, sc.Target)
		}
	}
	sloMS := float64(slo) / float64(time.Millisecond)
	for _, t := range targets {
		var mine []*Scenario
		for i := range scs {
			if scs[i].Target == t {
				mine = append(mine, &scs[i])
			}
		}
		r := PoolRecommendation{Target: t}
		p := &r.PoolOptions
		p.MaxPoolSize = maxPool(t, mine, series, sloMS)
		p.MinPoolSize = minPool(mine, sloMS)
		p.MaxConnecting = maxConnecting(t, mine, storms, sloMS)
		if len(evs) > 0 {
			byEvents(p, t, evs, storms)
		}
		p.MaxIdleMS = maxIdle(mine)
		p.TimeoutMS = timeout(mine, p.MinPoolSize, p.MaxConnecting, sloMS)
		out = append(out, r)
	}
	return out
}

// bound is the p99 a setting's bursts are held to: the SLO, else twice
// its steady p99; ok false when neither is known.
func (sc *Scenario) bound(sloMS float64) (float64, string, bool) {
	if sloMS > 0 {
		return sloMS, fmt.Sprintf("the SLO of %s ms", textfmt.Ms(sloMS)), true
	}
	if v, ok := sc.SteadyP99MS.Get(); ok {
		return 2 * v, fmt.Sprintf("2× its steady p99 (%s ms)", textfmt.Ms(v)), true
	}
	return 0, "", false
}

// within says the setting's burst worst p99 stays within its bound.
func (sc *Scenario) within(sloMS float64) bool {
	b, _, ok := sc.bound(sloMS)
	w, wok := sc.WorstP99MS.Get()
	// A setting whose operations failed is not within anything: failing
	// fast (a short timeout) makes a low p99 of the calls that failed.
	e, _ := sc.Errors.Get()
	return ok && wok && w <= b && e == 0
}

// shortOfRate says the setting's steady throughput fell short of the
// offered rate: the rate is above what the deployment carries.
func (sc *Scenario) shortOfRate() bool {
	v, ok := sc.SteadyPerS.Get()
	return ok && sc.OfferedPerS > 0 && v < capacityShare*sc.OfferedPerS
}

func maxPool(target string, scs []*Scenario, series []knee.Report, sloMS float64) Choice {
	for _, r := range series {
		if r.Target == target && r.Recommendation.MaxPoolSize > 0 {
			return Choice{Value: i64(int64(r.Recommendation.MaxPoolSize)), From: "knee", Why: r.Recommendation.Why}
		}
	}
	var best *Scenario
	for _, sc := range scs {
		if sc.within(sloMS) && sc.InUsePeak > 0 && (best == nil || sc.OfferedPerS > best.OfferedPerS ||
			sc.OfferedPerS == best.OfferedPerS && sc.InUsePeak > best.InUsePeak) {
			best = sc
		}
	}
	if best == nil {
		return Choice{Why: "no closed-loop knee, and no profile setting kept its bursts' p99 within its bound: no evidence for a maxPoolSize"}
	}
	return Choice{Value: i64(int64(best.InUsePeak)), From: "profile",
		Why: fmt.Sprintf("no closed-loop knee in the results: the most connections in use (%d) at the highest rate that met its bound (%s calls/s, setting %s)",
			best.InUsePeak, num(best.OfferedPerS), best.Label())}
}

func minPool(scs []*Scenario, sloMS float64) Choice {
	var judged []*Scenario
	for _, sc := range scs {
		if _, _, ok := sc.bound(sloMS); ok && sc.WorstP99MS.Value != nil {
			judged = append(judged, sc)
		}
	}
	if len(judged) == 0 {
		return Choice{Why: "no setting has both a worst p99 and a bound (an SLO, or a steady p99): no evidence for a minPoolSize"}
	}
	slices.SortStableFunc(judged, func(a, b *Scenario) int { return a.PoolOptions.MinPoolSize - b.PoolOptions.MinPoolSize })
	for _, sc := range judged {
		if sc.within(sloMS) {
			b, bw, _ := sc.bound(sloMS)
			w, _ := sc.WorstP99MS.Get()
			return Choice{Value: i64(int64(sc.PoolOptions.MinPoolSize)), From: "scenarios",
				Why: fmt.Sprintf("the smallest minPoolSize tried whose bursts' worst p99 (%s ms, setting %s) stays within %s = %s ms",
					textfmt.Ms(w), sc.Label(), bw, textfmt.Ms(b))}
		}
	}
	best := judged[0]
	for _, sc := range judged {
		if *sc.WorstP99MS.Value < *best.WorstP99MS.Value {
			best = sc
		}
	}
	b, bw, _ := best.bound(sloMS)
	w, _ := best.WorstP99MS.Get()
	c := Choice{From: "scenarios"}
	if best.shortOfRate() {
		s, _ := best.SteadyPerS.Get()
		c.Why = fmt.Sprintf("no setting tried keeps the bursts' worst p99 within its bound, and minPoolSize cannot: at %s calls/s the deployment carried only %s/s (setting %s, worst p99 %s ms against %s = %s ms), a rate above its capacity; the spike is the server's, not the pool's",
			num(best.OfferedPerS), num(s), best.Label(), textfmt.Ms(w), bw, textfmt.Ms(b))
		return c
	}
	if gap := longestGap(best.phases); best.PoolOptions.MaxIdleMS > 0 && gap*1000 > float64(best.PoolOptions.MaxIdleMS) {
		// The driver closes a connection idle longer than maxIdleTimeMS
		// whatever minPoolSize says, and opens the minimum again only
		// from its background pass: a burst after a longer idle spell
		// pays the fill again, and a larger minimum cannot help.
		c.Why = fmt.Sprintf("no setting tried keeps the bursts' worst p99 within its bound: the lowest was %s ms (setting %s) against %s = %s ms; the profile idles %s s between bursts, longer than maxIdleTimeMS (%d ms), so the pool's connections, minPoolSize's among them, are closed as idle and the next burst pays the fill again: raise maxIdleTimeMS above the spell (below) before minPoolSize",
			textfmt.Ms(w), best.Label(), bw, textfmt.Ms(b), num(gap), best.PoolOptions.MaxIdleMS)
		return c
	}
	c.Why = fmt.Sprintf("no setting tried keeps the bursts' worst p99 within its bound: the lowest was %s ms (setting %s) against %s = %s ms; try a larger --min-pool (the load held up to %d connections in use)",
		textfmt.Ms(w), best.Label(), bw, textfmt.Ms(b), inUsePeak(scs))
	return c
}

func inUsePeak(scs []*Scenario) int {
	n := 0
	for _, sc := range scs {
		n = max(n, sc.InUsePeak)
	}
	return n
}

func maxConnecting(target string, scs []*Scenario, storms []results.StormResult, sloMS float64) Choice {
	best := -1
	var which *Scenario
	for _, sc := range scs {
		if sc.ConnErrors == 0 && sc.within(sloMS) && sc.PoolOptions.MaxConnecting > best {
			best, which = sc.PoolOptions.MaxConnecting, sc
		}
	}
	if which == nil {
		return Choice{Why: "no setting tried stayed healthy (no connection errors, bursts' worst p99 within its bound): no evidence for a maxConnecting"}
	}
	c := Choice{Value: i64(int64(best)), From: "scenarios",
		Why: fmt.Sprintf("the largest maxConnecting tried that stayed healthy: no connection errors, bursts' worst p99 within its bound (setting %s)", which.Label())}
	if cap, why, ok := stormCap(target, storms); ok && cap < best {
		c.Value, c.From = i64(int64(cap)), "storm"
		c.Why += "; capped at " + why
	}
	return c
}

// stormCap is the largest maxConnecting the target's storms show worth
// having: the smallest one whose server accept rate came within 90 % of
// the highest measured (more connections set up at once only queue at
// the server's acceptor), and below the smallest one with connect errors.
func stormCap(target string, storms []results.StormResult) (int, string, bool) {
	type agg struct {
		sum    float64
		n      int
		errors int64
	}
	by := map[int]*agg{}
	var ms []int
	for _, s := range storms {
		if s.Target != target {
			continue
		}
		a, ok := by[s.MaxConnecting]
		if !ok {
			a = &agg{}
			by[s.MaxConnecting] = a
			ms = append(ms, s.MaxConnecting)
		}
		a.errors += s.ConnectErrors
		if s.AcceptPerS != nil {
			a.sum += *s.AcceptPerS
			a.n++
		}
	}
	slices.Sort(ms)
	top := 0.0
	for _, m := range ms {
		if a := by[m]; a.n > 0 {
			top = max(top, a.sum/float64(a.n))
		}
	}
	for i, m := range ms {
		a := by[m]
		if a.errors > 0 {
			if i == 0 {
				return 0, "", false
			}
			return ms[i-1], fmt.Sprintf("%d: the storms at maxConnecting %d had connect errors", ms[i-1], m), true
		}
		if top > 0 && a.n > 0 && a.sum/float64(a.n) >= 0.9*top {
			return m, fmt.Sprintf("%d: the storms' server accept rate reached %s/s there, within 90 %% of the highest measured (%s/s); more at once only queue at the acceptor",
				m, num(a.sum/float64(a.n)), num(top)), true
		}
	}
	return 0, "", false
}

// eventPick is the setting that recovered fastest from a target's events.
type eventPick struct {
	label           string
	opts            results.PoolOptions
	slowest         Figure // its slowest event's time to recover
	slowestEvent    string
	overLimit       []string // the settings left out for reaching a server's limit
	notRecovered    []string // those left out for not recovering in every trial
	limitsKnown     bool
	settings, event int
}

// eventChoice is the setting of target's that recovers fastest from its
// events without its connections reaching a server's limit: of the
// settings that ran every event of the target, recovered in every trial,
// and kept every host's peak (the server's own count where it reported
// one) below the server's limit (connections.current + available), the
// one whose slowest event's mean time to recover is the lowest; on a tie,
// the smaller maxConnecting, then the smaller minPoolSize (the gentler on
// the server). ok false when no setting qualifies (pick still says which
// were left out and why).
func eventChoice(target string, evs []EventResult) (eventPick, bool) {
	type setting struct {
		label   string
		opts    results.PoolOptions
		results []*EventResult
	}
	var specs []string
	var sets []*setting
	for i := range evs {
		er := &evs[i]
		if er.Target != target {
			continue
		}
		if !slices.Contains(specs, er.Event) {
			specs = append(specs, er.Event)
		}
		k := slices.IndexFunc(sets, func(s *setting) bool { return s.label == er.Label() })
		if k < 0 {
			sets = append(sets, &setting{label: er.Label(), opts: er.PoolOptions})
			k = len(sets) - 1
		}
		sets[k].results = append(sets[k].results, er)
	}
	pick := eventPick{settings: len(sets), event: len(specs)}
	var best *setting
	bestScore := 0.0
	for _, st := range sets {
		if len(st.results) < len(specs) {
			continue
		}
		ok := true
		var slowest Figure
		slowestEvent := ""
		for _, er := range st.results {
			for _, p := range er.PeakConnections {
				if p.Limit != nil {
					pick.limitsKnown = true
				}
				if OverLimit(p) && ok {
					pick.overLimit = append(pick.overLimit, st.label)
					ok = false
				}
			}
			if ok && (er.Trials == 0 || er.TimeToRecoverS.N < er.Trials) {
				pick.notRecovered = append(pick.notRecovered, st.label)
				ok = false
			}
			if v, got := er.TimeToRecoverS.Get(); ok && got && (slowest.Value == nil || v > *slowest.Value) {
				slowest, slowestEvent = er.TimeToRecoverS, er.Event
			}
		}
		if !ok || slowest.Value == nil {
			continue
		}
		score := *slowest.Value
		better := best == nil || score < bestScore ||
			score == bestScore && (st.opts.MaxConnecting < best.opts.MaxConnecting ||
				st.opts.MaxConnecting == best.opts.MaxConnecting && st.opts.MinPoolSize < best.opts.MinPoolSize)
		if better {
			best, bestScore = st, score
			pick.label, pick.opts, pick.slowest, pick.slowestEvent = st.label, st.opts, slowest, slowestEvent
		}
	}
	return pick, best != nil
}

// byEvents lets a target's events decide maxConnecting and raise
// minPoolSize: a pool is chosen for the incidents it must come through,
// not only for the bursts.
func byEvents(p *PoolOptionsRec, target string, evs []EventResult, storms []results.StormResult) {
	pick, ok := eventChoice(target, evs)
	if pick.settings == 0 {
		return
	}
	var left []string
	if len(pick.overLimit) > 0 {
		left = append(left, "reached a server's connection limit: "+strings.Join(pick.overLimit, ", "))
	}
	if len(pick.notRecovered) > 0 {
		left = append(left, "did not recover in every trial: "+strings.Join(pick.notRecovered, ", "))
	}
	if !ok {
		why := "no setting ran every event and recovered in every trial below the servers' connection limits"
		if len(left) > 0 {
			why += " (" + strings.Join(left, "; ") + ")"
		}
		p.MaxConnecting.Why += "; the events give no choice: " + why
		return
	}
	recov := fmt.Sprintf("the setting that recovers fastest from the events (%s: its slowest, %s, in %s)", pick.label, textfmt.Escape(pick.slowestEvent), figureWords(pick.slowest, "s"))
	limits := "below every server's connection limit"
	if !pick.limitsKnown {
		limits = "the servers reported no connection limit, so none was checked"
	}
	why := fmt.Sprintf("maxConnecting of %s, %s", recov, limits)
	if len(left) > 0 {
		why += "; left out, those that " + strings.Join(left, "; ")
	}
	if cap, capWhy, capped := stormCap(target, storms); capped && cap < pick.opts.MaxConnecting {
		why += "; the storms alone would cap it at " + capWhy
	}
	p.MaxConnecting = Choice{Value: i64(int64(pick.opts.MaxConnecting)), From: "events", Why: why}
	if mp := int64(pick.opts.MinPoolSize); p.MinPoolSize.Value == nil || mp > *p.MinPoolSize.Value {
		was := "no choice from the bursts"
		if p.MinPoolSize.Value != nil {
			was = fmt.Sprintf("the bursts alone ask for %d", *p.MinPoolSize.Value)
		}
		p.MinPoolSize = Choice{Value: i64(mp), From: "events",
			Why: fmt.Sprintf("the minPoolSize of %s (%s)", recov, was)}
	}
}

func maxIdle(scs []*Scenario) Choice {
	longest := 0.0
	for _, sc := range scs {
		longest = max(longest, longestGap(sc.phases))
	}
	if longest == 0 {
		return Choice{KeepDefault: true, From: "phases", Why: "the profile has no idle spell between bursts: keep the driver's default"}
	}
	// Above the spell by half of it, at least 5 s, in whole seconds: the
	// pool must still hold its connections when the next burst comes.
	s := math.Ceil(longest + max(longest/2, 5))
	return Choice{Value: i64(int64(s * 1000)), From: "phases",
		Why: fmt.Sprintf("above the longest idle spell between bursts (%s s) by %s s, so that the pool still holds its connections when the next burst comes",
			num(longest), num(s-longest))}
}

// longestGap is the longest idle spell between two loaded phases, in
// seconds.
func longestGap(phases []results.ProfilePhase) float64 {
	longest, start := 0.0, -1.0
	seenLoad := false
	for _, ph := range phases {
		if max(ph.From, ph.To) > 0 {
			if seenLoad && start >= 0 {
				longest = max(longest, ph.StartS-start)
			}
			seenLoad, start = true, -1
			continue
		}
		if seenLoad && start < 0 {
			start = ph.StartS
		}
	}
	return longest
}

func timeout(scs []*Scenario, minPool, maxConn Choice, sloMS float64) Choice {
	var rec *Scenario
	for _, sc := range scs {
		if minPool.Value != nil && int64(sc.PoolOptions.MinPoolSize) != *minPool.Value ||
			maxConn.Value != nil && int64(sc.PoolOptions.MaxConnecting) != *maxConn.Value || sc.WorstP99MS.Value == nil {
			continue
		}
		if rec == nil || *sc.WorstP99MS.Value < *rec.WorstP99MS.Value {
			rec = sc
		}
	}
	which := "the recommended setting"
	if rec == nil {
		for _, sc := range scs {
			if sc.WorstP99MS.Value != nil && (rec == nil || *sc.WorstP99MS.Value < *rec.WorstP99MS.Value) {
				rec = sc
			}
		}
		which = "the best setting tried"
	}
	if rec == nil {
		return Choice{Why: "no setting recorded a worst p99: no evidence for a timeoutMS"}
	}
	w := *rec.WorstP99MS.Value
	if rec.WorstP99MS.High != nil {
		w = *rec.WorstP99MS.High
	}
	t := niceCeil(max(timeoutMargin*w, sloMS))
	why := fmt.Sprintf("%g× the bursts' worst p99 that %s saw (%s ms, the top of its interval where it has one, setting %s): a p99 leaves 1 %% of calls slower, and a timeout they reach closes their connection, which the pool opens again",
		timeoutMargin, which, textfmt.Ms(w), rec.Label())
	if sloMS > timeoutMargin*w {
		why = fmt.Sprintf("the SLO (%s ms), above %g× the bursts' worst p99 that %s saw (%s ms, setting %s)", textfmt.Ms(sloMS), timeoutMargin, which, textfmt.Ms(w), rec.Label())
	}
	return Choice{Value: i64(t), From: "scenarios", Why: why}
}

// niceCeil rounds a timeout up to 10 ms below a second, 100 ms above.
func niceCeil(ms float64) int64 {
	step := 10.0
	if ms >= 1000 {
		step = 100
	}
	return int64(math.Ceil(ms/step) * step)
}

func i64(v int64) *int64 { return &v }

// num is a rate or a time in seconds as the sentences write it: at most
// one decimal, none when whole.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }
