package analysis

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// EventResult is one event (sweep --event) under one pool setting: its
// summaries (analysis/timeline.SummarizeEvents, recorded with each step)
// over the setting's trials, each figure with its interval, and the
// setting compared with its target's baseline setting under the same
// event.
type EventResult struct {
	Target      string              `json:"target"`
	Series      string              `json:"series"`
	MaxPoolSize int                 `json:"max_pool_size"`
	PoolOptions results.PoolOptions `json:"pool_options"`
	// Event is the --event as given; Action and AtS its action and time
	// into the profile.
	Event  string  `json:"event"`
	Action string  `json:"action"`
	AtS    float64 `json:"at_s"`
	// Trials counts the trials whose event was performed and summarized;
	// NotPerformed those whose action failed (their step's event error).
	Trials       int  `json:"trials"`
	NotPerformed int  `json:"not_performed,omitempty"`
	Baseline     bool `json:"baseline,omitempty"`

	// TimeToRecoverS is over the trials that recovered (its N says how
	// many); Degraded counts the trials whose load stayed degraded after
	// the trigger was gone, of DegradedKnown that could say.
	TimeToRecoverS Figure `json:"time_to_recover_s"`
	// TimeToRefillS is over the trials whose pools refilled.
	TimeToRefillS Figure `json:"time_to_refill_s"`
	Errors        Figure `json:"errors"`
	// ErrorKinds are the errors of every trial, summed, by kind.
	ErrorKinds    results.ErrorCounts `json:"error_kinds"`
	RetriedOK     Figure              `json:"retried_ok"`
	Created       Figure              `json:"connections_created"`
	Closed        Figure              `json:"connections_closed"`
	PoolClears    Figure              `json:"pool_clears"`
	P99DuringMS   Figure              `json:"p99_during_ms"`
	Degraded      int                 `json:"degraded"`
	DegradedKnown int                 `json:"degraded_known"`
	// PeakConnections are each host's highest peak over the trials, with
	// the server's own count and limit where it reported them.
	PeakConnections []results.HostPeak `json:"peak_connections,omitempty"`
	// EventHost is the host the action was performed on (for a step-down,
	// the old primary), where the step recorded it.
	EventHost string `json:"event_host,omitempty"`
	// Storm is the reconnect storm the event set off, over the trials
	// that recorded one; absent when none did.
	Storm  *StormResult `json:"reconnect_storm,omitempty"`
	Versus []Verdict    `json:"versus_baseline,omitempty"`
	Notes  []string     `json:"notes,omitempty"`
}

// EventMetrics are the figures each setting's event is compared on with
// the baseline's; lower is better for each.
var EventMetrics = []string{"time_to_recover_s", "errors", "connections_created", "p99_during_ms"}

// Events gathers rs's profile steps' events by setting (as Scenarios
// groups them: scs are those settings, with their baselines marked) and
// event, in the order they first appear, and compares each with the
// baseline setting under the same event.
func Events(rs []*results.Results, scs []Scenario) []EventResult {
	type key struct {
		setting settingKey
		event   string
	}
	var order []key
	by := map[key]*EventResult{}
	for _, st := range measuredProfileSteps(rs) {
		set := settingOf(st)
		for _, ev := range st.Profile.Events {
			k := key{set, ev.Spec}
			er, ok := by[k]
			if !ok {
				er = &EventResult{Target: set.target, Series: set.series, MaxPoolSize: set.pool, PoolOptions: set.opts,
					Event: ev.Spec, Action: ev.Action, AtS: ev.AtS}
				for j := range scs {
					if scs[j].setting() == set {
						er.Baseline = scs[j].Baseline
					}
				}
				by[k] = er
				order = append(order, k)
			}
			er.add(ev)
			if ev.Error == "" && ev.Summary != nil {
				er.addStorm(ev, max(st.Clients, 1))
			}
		}
	}
	out := make([]EventResult, 0, len(order))
	for _, k := range order {
		er := by[k]
		er.finish()
		out = append(out, *er)
	}
	for i := range out {
		if out[i].Baseline {
			continue
		}
		for j := range out {
			if out[j].Baseline && out[j].Target == out[i].Target && out[j].Event == out[i].Event {
				for _, m := range EventMetrics {
					out[i].Versus = append(out[i].Versus, compareTrials(m, out[j].metricFigure(m).vals, out[i].metricFigure(m).vals))
				}
			}
		}
	}
	return out
}

// add takes one trial's event.
func (er *EventResult) add(ev results.StepEvent) {
	if ev.Error != "" || ev.Summary == nil {
		er.NotPerformed++
		note := "the action was not performed: " + textfmt.CapLineAt(textfmt.Escape(ev.Error), 120)
		if ev.Error == "" {
			note = "the step recorded no summary of the event"
		}
		if !slices.Contains(er.Notes, note) {
			er.Notes = append(er.Notes, note)
		}
		return
	}
	s := ev.Summary
	er.Trials++
	if er.EventHost == "" {
		er.EventHost = ev.Host
	}
	er.TimeToRecoverS.add(s.TimeToRecoverS)
	er.TimeToRefillS.add(s.TimeToRefillS)
	er.Errors.add(ptr(float64(s.Errors.Total())))
	addErrorKinds(&er.ErrorKinds, s.Errors)
	er.RetriedOK.add(ptr(float64(s.RetriedOK)))
	er.Created.add(ptr(float64(s.ConnectionsCreated)))
	er.Closed.add(ptr(float64(s.ConnectionsClosed)))
	er.PoolClears.add(ptr(float64(s.PoolClears)))
	er.P99DuringMS.add(s.P99DuringMS)
	if s.DegradedAfter != nil {
		er.DegradedKnown++
		if *s.DegradedAfter {
			er.Degraded++
		}
	}
	for _, p := range s.PeakConnections {
		k := slices.IndexFunc(er.PeakConnections, func(h results.HostPeak) bool { return h.Host == p.Host })
		if k < 0 {
			er.PeakConnections = append(er.PeakConnections, results.HostPeak{Host: p.Host})
			k = len(er.PeakConnections) - 1
		}
		h := &er.PeakConnections[k]
		h.Peak = max(h.Peak, p.Peak)
		h.ServerPeak, h.Limit = higher(h.ServerPeak, p.ServerPeak), higher(h.Limit, p.Limit)
	}
	for _, n := range s.Notes {
		if !slices.Contains(er.Notes, n) {
			er.Notes = append(er.Notes, n)
		}
	}
}

func addErrorKinds(to *results.ErrorCounts, e results.ErrorCounts) {
	to.Timeout += e.Timeout
	to.Network += e.Network
	to.Server += e.Server
	to.NotWritablePrimary += e.NotWritablePrimary
	to.PoolCleared += e.PoolCleared
}

func higher(a, b *int) *int {
	if b == nil || a != nil && *a >= *b {
		return a
	}
	v := *b
	return &v
}

func (er *EventResult) figures() []*Figure {
	return []*Figure{&er.TimeToRecoverS, &er.TimeToRefillS, &er.Errors, &er.RetriedOK, &er.Created, &er.Closed, &er.PoolClears, &er.P99DuringMS}
}

func (er *EventResult) finish() {
	for _, f := range er.figures() {
		f.finish()
	}
	er.finishStorm()
	if n := er.Trials - er.TimeToRecoverS.N; er.Trials > 0 && n > 0 {
		er.Notes = append(er.Notes, fmt.Sprintf("%d of %d trials did not recover within the step: time to recover is over the %d that did", n, er.Trials, er.TimeToRecoverS.N))
	}
}

// metricFigure is the figure an event metric names.
func (er *EventResult) metricFigure(name string) *Figure {
	switch name {
	case "time_to_recover_s":
		return &er.TimeToRecoverS
	case "errors":
		return &er.Errors
	case "connections_created":
		return &er.Created
	case "p99_during_ms":
		return &er.P99DuringMS
	}
	return nil
}

// Label names the event's setting as its scenario does.
func (er *EventResult) Label() string {
	sc := Scenario{MaxPoolSize: er.MaxPoolSize, PoolOptions: er.PoolOptions}
	return sc.Label()
}

// OverLimit says a host's connections reached the server's limit in the
// event: its own count (else this run's) at or above connections.current
// + available.
func OverLimit(p results.HostPeak) bool {
	if p.Limit == nil {
		return false
	}
	n := p.Peak
	if p.ServerPeak != nil {
		n = *p.ServerPeak
	}
	return n >= *p.Limit
}

// actionWords name an event's action in the verdict.
var actionWords = map[string]string{
	results.EventStepDown: "a step-down", results.EventSlow: "a slowdown", results.EventFreeze: "a freeze",
	results.EventReset: "a connection reset", results.EventRouterRestart: "a router restart",
}

// EventVerdicts are the verdicts in words, one per target and event, in
// the order of evs: how each setting recovered (the options that differ
// between the settings only), with how many errors, and where the
// connections peaked against the server's limit.
func EventVerdicts(evs []EventResult) []string {
	type key struct{ target, event string }
	var order []key
	by := map[key][]*EventResult{}
	for i := range evs {
		k := key{evs[i].Target, evs[i].Event}
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], &evs[i])
	}
	var out []string
	for _, k := range order {
		mine := by[k]
		labels := make([]string, len(mine))
		for i, er := range mine {
			labels[i] = er.Label()
		}
		names := differing(labels)
		what := actionWords[mine[0].Action]
		if what == "" {
			what = mine[0].Action
		}
		var parts []string
		verb := true
		for i, er := range mine {
			part, used := er.recovery(names[i], verb)
			parts = append(parts, part)
			verb = verb && !used
		}
		v := fmt.Sprintf("after %s at %s s on %s, %s", what, num(mine[0].AtS), k.target, strings.Join(parts, "; "))
		if p := peakWords(mine); p != "" {
			v += "; " + p
		}
		for _, er := range mine {
			if w := er.StormWords(); w != "" {
				if len(mine) > 1 && names[slices.Index(mine, er)] != "" {
					w = "with " + names[slices.Index(mine, er)] + ", " + w
				}
				v += "; " + w
			}
		}
		out = append(out, v)
	}
	return out
}

// recovery is "maxConnecting 2 recovers in 4.1 s [3.8, 4.4] with 212
// errors" ("recovers" only while verb says the verdict has not written it
// yet; used says it wrote it).
func (er *EventResult) recovery(name string, verb bool) (_ string, used bool) {
	in := "in "
	if verb {
		in = "recovers in "
	}
	if name != "" {
		name += " "
	}
	errs := ""
	if v, ok := er.Errors.Get(); ok {
		errs = fmt.Sprintf(" with %.0f errors", v)
	}
	switch {
	case er.Trials == 0:
		return name + "was not performed", false
	case er.TimeToRecoverS.N == 0:
		s := name + "does not recover within the step" + errs
		if er.Degraded > 0 {
			s += fmt.Sprintf(" (degraded after the trigger in %d of %d trials)", er.Degraded, er.DegradedKnown)
		}
		return s, false
	}
	s := name + in + figureWords(er.TimeToRecoverS, "s")
	if er.TimeToRecoverS.N < er.Trials {
		s += fmt.Sprintf(" (%d of %d trials)", er.TimeToRecoverS.N, er.Trials)
	}
	return s + errs, verb
}

// figureWords is "4.1 s [3.8, 4.4]", the value and unit alone without
// an interval; one decimal, two where one would show the interval's ends
// as one number.
func figureWords(f Figure, unit string) string {
	if f.Low == nil || f.High == nil {
		return num(*f.Value) + " " + unit
	}
	d := 1
	if strconv.FormatFloat(*f.Low, 'f', 1, 64) == strconv.FormatFloat(*f.High, 'f', 1, 64) {
		d = 2
	}
	r := func(v float64) string { return strconv.FormatFloat(v, 'f', d, 64) }
	return fmt.Sprintf("%s %s [%s, %s]", r(*f.Value), unit, r(*f.Low), r(*f.High))
}

// peakWords is where the connections peaked highest over the settings:
// "the new primary's (h2) connections peak at 480 of 800" (the server's
// own count where it reported one, and its limit where it said it).
func peakWords(mine []*EventResult) string {
	var best results.HostPeak
	var found bool
	var on *EventResult
	count := func(p results.HostPeak) int {
		if p.ServerPeak != nil {
			return *p.ServerPeak
		}
		return p.Peak
	}
	for _, er := range mine {
		for _, p := range er.PeakConnections {
			if !found || count(p) > count(best) {
				best, found, on = p, true, er
			}
		}
	}
	if !found {
		return ""
	}
	who := best.Host + "'s"
	if on.Action == results.EventStepDown && on.EventHost != "" && best.Host != on.EventHost {
		who = "the new primary's (" + best.Host + ")"
	}
	s := fmt.Sprintf("%s connections peak at %d", who, count(best))
	if best.Limit != nil {
		s += fmt.Sprintf(" of %d", *best.Limit)
	}
	if best.ServerPeak == nil {
		s += " (this run's clients; the server reported none)"
	}
	return s
}

// differing are labels ("maxPoolSize=100 minPoolSize=0 maxConnecting=2")
// cut to the options that differ between them, in words
// ("maxConnecting 2"); empty when there is one.
func differing(labels []string) []string {
	out := make([]string, len(labels))
	if len(labels) < 2 {
		return out
	}
	split := make([][]string, len(labels))
	for i, l := range labels {
		split[i] = strings.Fields(l)
	}
	for i, parts := range split {
		var keep []string
		for _, p := range parts {
			common := true
			for _, other := range split {
				if !slices.Contains(other, p) {
					common = false
					break
				}
			}
			if !common {
				keep = append(keep, strings.Replace(p, "=", " ", 1))
			}
		}
		out[i] = strings.Join(keep, " ")
	}
	return out
}
