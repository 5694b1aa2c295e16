package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// verdict sums up one workload (per target role) in the words of the audit
// log study: the change in throughput and whichever latency, CPU and error
// changes are significant, at the step where the baseline peaked.
type verdict struct {
	Target   string // role label; "" when each side has one target
	Workload string
	Class    string // classReadOnly, classWriteOnly, classMixed or ""
	Mix      string // observed insert:read:update in %, "" when unknown
	// The reference step: the baseline's highest throughput (saturation).
	Concurrency int
	Pool        string
	Clients     int
	Rate        int // open loop; 0 in closed loop
	Steps       int // matched steps of this workload
	// ThroughputChanged counts the steps whose throughput changed
	// significantly.
	ThroughputChanged int
	Text              string
}

// verdicts groups the matched steps by role and workload in step order.
func verdicts(c *Comparison) []verdict {
	type gk struct{ role, workload string }
	var order []gk
	groups := map[gk][]*Step{}
	roles := map[string]bool{}
	for _, s := range c.Steps {
		k := gk{s.role, s.Workload}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], s)
		roles[s.role] = true
	}
	var out []verdict
	for _, k := range order {
		out = append(out, verdictFor(groups[k], len(roles) > 1))
	}
	return out
}

func verdictFor(steps []*Step, showTarget bool) verdict {
	var counts opCounts
	ref := steps[0]
	refOps := math.Inf(-1)
	combos := map[string]bool{}
	v := verdict{Workload: ref.Workload, Steps: len(steps)}
	for _, s := range steps {
		counts.insert += s.counts.insert
		counts.read += s.counts.read
		counts.update += s.counts.update
		counts.otherWrite += s.counts.otherWrite
		combos[fmt.Sprint(s.Pool, "/", s.Clients)] = true
		if m := s.Metrics[OpsPerS]; m != nil && m.Baseline != nil && *m.Baseline > refOps {
			ref, refOps = s, *m.Baseline
		}
		if m := s.Metrics[OpsPerS]; m != nil && m.Status == statusChanged {
			v.ThroughputChanged++
		}
	}
	v.Class, v.Mix = counts.class(), counts.mix()
	v.Concurrency, v.Pool, v.Clients = ref.Concurrency, ref.Pool, ref.Clients
	v.Rate = ref.Rate
	if showTarget {
		v.Target = ref.Target
	}

	label := workloadLabel(textfmt.Escape(v.Workload), v.Class, v.Mix)
	if v.Target != "" {
		label = textfmt.Escape(v.Target) + ", " + label
	}
	at := levelLabel(ref.Concurrency, ref.Rate)
	if len(combos) > 1 || ref.Pool != "match" {
		at += " pool=" + textfmt.Escape(ref.Pool)
	}
	if len(combos) > 1 || ref.Clients > 1 {
		at += fmt.Sprintf(" clients=%d", ref.Clients)
	}
	where := at
	if tp := ref.Metrics[OpsPerS]; len(steps) > 1 && tp != nil && tp.Status == StatusUnconfirmed {
		where = "at " + at + ", the baseline's peak"
	} else if len(steps) > 1 {
		where = fmt.Sprintf("at %s, the baseline's peak; throughput changed at %d of %d steps", at, v.ThroughputChanged, len(steps))
	}
	v.Text = label + ": " + verdictPhrases(ref) + " (" + where + ")"
	return v
}

// workloadLabel describes a workload by its class and mix: "mixed
// read/write (mix 50:50:0)", "read-only (read)", "mixed read/write (api,
// insert:read:update 0:67:33)".
func workloadLabel(workload, class, mix string) string {
	inner := workload
	if mix != "" && !strings.HasPrefix(workload, "mix ") {
		inner += ", insert:read:update " + mix
	}
	if class == "" {
		return inner
	}
	return class + " (" + inner + ")"
}

// verdictPhrases lists throughput always and the other metrics only when
// they changed; with too few trials, the main deltas marked unconfirmed.
func verdictPhrases(s *Step) string {
	tp := s.Metrics[OpsPerS]
	if tp == nil || tp.Status == statusOneSided {
		return "throughput not measured on both sides"
	}
	if tp.Status == StatusUnconfirmed {
		var ps []string
		for _, name := range []string{OpsPerS, WriteMeanUS, ReadMeanUS, ServerCPUPct} {
			if m := s.Metrics[name]; m != nil && m.Delta != nil {
				ps = append(ps, phrase(name, m))
			}
		}
		return fmt.Sprintf("unconfirmed (%d+%d trials; %d per side needed): %s",
			s.BaselineTrials, s.CandidateTrials, minTrials, strings.Join(ps, ", "))
	}
	var ps []string
	switch {
	case tp.Status == statusChanged:
		ps = append(ps, phrase(OpsPerS, tp))
	case tp.NeedsTrials:
		ps = append(ps, "throughput "+textfmt.SignedPct(*tp.DeltaPct)+" not significant across two runs (inside the between-run noise floor; trials would decide it)")
	default:
		ps = append(ps, "no significant change in throughput")
	}
	if tp.Method == MethodBatchWelch {
		// Only throughput has an interval of its own in one window; the
		// latencies of one trial a side stay untested.
		ps[0] += fmt.Sprintf(" (%d+%d trials: tested on the windows' batch means; latency untested)", s.BaselineTrials, s.CandidateTrials)
	}
	changed := func(name string) *metricComparison {
		if m := s.Metrics[name]; m != nil && m.Status == statusChanged {
			return m
		}
		return nil
	}
	// "average write latency +610 µs, read +220 µs", as the study put it.
	w, r := changed(WriteMeanUS), changed(ReadMeanUS)
	switch {
	case w != nil && r != nil:
		ps = append(ps, "average write latency "+fmtUS(*w.Delta)+", read "+fmtUS(*r.Delta))
	case w != nil:
		ps = append(ps, phrase(WriteMeanUS, w))
	case r != nil:
		ps = append(ps, phrase(ReadMeanUS, r))
	}
	// Tails and server-side latency are worth a word only when the client's
	// averages did not already tell the story; the tables have them all.
	var more []string
	if w == nil {
		more = append(more, WriteP99US)
	}
	if r == nil {
		more = append(more, ReadP99US)
	}
	more = append(more, ServerCPUPct)
	if w == nil && r == nil {
		more = append(more, serverWriteLatencyUS, serverReadLatencyUS)
	}
	more = append(more, ClientCPUPct, metricErrors)
	for _, name := range more {
		if m := changed(name); m != nil {
			ps = append(ps, phrase(name, m))
		}
	}
	return strings.Join(ps, ", ")
}

var phraseNames = map[string]string{
	OpsPerS:              "throughput",
	ReadMeanUS:           "average read latency",
	ReadP99US:            "p99 read latency",
	WriteMeanUS:          "average write latency",
	WriteP99US:           "p99 write latency",
	ServerCPUPct:         "server CPU",
	ClientCPUPct:         "client CPU",
	serverReadLatencyUS:  "server-side read latency",
	serverWriteLatencyUS: "server-side write latency",
	metricErrors:         "errors",
}

// phrase words one metric's change: % with its interval for throughput,
// µs for latency, points for CPU, a count for errors.
func phrase(name string, m *metricComparison) string {
	n := phraseNames[name]
	switch metricDefs[name].unit {
	case "µs":
		return n + " " + fmtUS(*m.Delta)
	case "%":
		return n + " " + textfmt.Signed(*m.Delta, 1) + " points"
	case "errors":
		return n + " " + textfmt.Signed(*m.Delta, 0)
	}
	if m.DeltaPct == nil {
		return n + " " + textfmt.Signed(*m.Delta, 0)
	}
	s := n + " " + textfmt.SignedPct(*m.DeltaPct)
	if m.Status == statusChanged && m.CILowPct != nil {
		s += " [" + textfmt.SignedPct(*m.CILowPct) + ", " + textfmt.SignedPct(*m.CIHighPct) + "]"
	}
	return s
}

// fmtUS is a signed latency change in µs, in ms from 10 ms up.
func fmtUS(v float64) string {
	if math.Abs(v) >= 10000 {
		return textfmt.Signed(v/1000, 1) + " ms"
	}
	return textfmt.Signed(v, 0) + " µs"
}
