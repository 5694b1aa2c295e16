package render

import (
	"fmt"
	"strings"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Events writes the events under load (analysis.Events) as one table per
// target: each event under each setting, the mean over its trials [95 %
// t interval], then each setting against the baseline, the verdicts in
// words and the notes. Nothing when a holds no events.
func Events(ew *textfmt.ErrWriter, a *analysis.Analysis) {
	if len(a.Events) == 0 {
		return
	}
	var targets []string
	for _, er := range a.Events {
		if !contains(targets, er.Target) {
			targets = append(targets, er.Target)
		}
	}
	for i, t := range targets {
		if i > 0 {
			ew.Printf("\n")
		}
		eventTable(ew, a.Events, t)
	}
	ew.Printf("\n")
	for _, v := range analysis.EventVerdicts(a.Events) {
		ew.Printf("%s\n", textfmt.Escape(v))
	}
}

func eventTable(ew *textfmt.ErrWriter, evs []analysis.EventResult, target string) {
	var mine []analysis.EventResult
	for _, er := range evs {
		if er.Target == target {
			mine = append(mine, er)
		}
	}
	ew.Printf("events under load on %s: the mean over trials [its 95%% t interval]\n", textfmt.Escape(target))
	tw := newTable(ew, false, "event\tsetting\ttrials\trecover s\trefill s\terrors\tretried\tcreated/closed\tp99 during ms\tdegraded\tpeak\t")
	for _, er := range mine {
		label := er.Label()
		if er.Baseline {
			label += " (baseline)"
		}
		recover := figure(er.TimeToRecoverS, seconds)
		if er.TimeToRecoverS.N < er.Trials {
			recover += fmt.Sprintf(" (%d/%d)", er.TimeToRecoverS.N, er.Trials)
		}
		trials := fmt.Sprint(er.Trials)
		if er.NotPerformed > 0 {
			trials += fmt.Sprintf(" (+%d not performed)", er.NotPerformed)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s/%s\t%s\t%d/%d\t%s\t\n", textfmt.Escape(er.Event), textfmt.Escape(label), trials,
			recover, figure(er.TimeToRefillS, seconds), figure(er.Errors, whole), figure(er.RetriedOK, whole), figure(er.Created, whole), figure(er.Closed, whole),
			figure(er.P99DuringMS, textfmt.Ms), er.Degraded, er.DegradedKnown, peaks(er.PeakConnections))
	}
	_ = tw.Flush()
	for _, er := range mine {
		if len(er.Versus) == 0 {
			continue
		}
		var parts []string
		for _, v := range er.Versus {
			parts = append(parts, verdictText(v))
		}
		ew.Printf("  %s, %s against the baseline: %s\n", textfmt.Escape(er.Event), textfmt.Escape(er.Label()), strings.Join(parts, "; "))
	}
	ew.Printf("  (recover: from the event until throughput and p99 stay within the steady state before it; refill: until the connections open, having fallen, reach again what it held in use; errors and churn until then or the trigger's end; degraded: trials still outside it after the trigger was gone, of those that could say; peak: each host's most connections, the server's count where it reported one, of its limit)\n")
	for _, er := range mine {
		if w := er.StormWords(); w != "" {
			ew.Printf("  %s, %s: %s\n", textfmt.Escape(er.Event), textfmt.Escape(er.Label()), textfmt.Escape(w))
		}
	}
	for _, er := range mine {
		if k := er.ErrorKinds; k.NotWritablePrimary+k.PoolCleared+k.Timeout+k.Network > 0 {
			ew.Printf("  errors by kind, %s, %s: %s\n", textfmt.Escape(er.Event), textfmt.Escape(er.Label()), errorKinds(k))
		}
	}
	for _, er := range mine {
		for _, n := range er.Notes {
			ew.Printf("  note, %s, %s: %s\n", textfmt.Escape(er.Event), textfmt.Escape(er.Label()), textfmt.Escape(n))
		}
	}
}

// errorKinds is "not writable primary 1060, pool cleared 12, network 30,
// timeout 0, other server 0" over the trials.
func errorKinds(k results.ErrorCounts) string {
	return fmt.Sprintf("not writable primary %d, other server %d, pool cleared %d, other network %d, timeout %d (over every trial)",
		k.NotWritablePrimary, k.Server-k.NotWritablePrimary, k.PoolCleared, k.Network-k.PoolCleared, k.Timeout)
}

// peaks is "h1 40, h2 816/800!" (the server's own count where it
// reported one, its limit after a slash, ! where it reached it).
func peaks(ps []results.HostPeak) string {
	if len(ps) == 0 {
		return "-"
	}
	var out []string
	for _, p := range ps {
		n := p.Peak
		if p.ServerPeak != nil {
			n = *p.ServerPeak
		}
		s := fmt.Sprintf("%s %d", textfmt.Escape(p.Host), n)
		if p.Limit != nil {
			s += fmt.Sprintf("/%d", *p.Limit)
		}
		if analysis.OverLimit(p) {
			s += "!"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// roundedEvent is er with its figures rounded as a scenario's are.
func roundedEvent(er analysis.EventResult) analysis.EventResult {
	roundFigures(&er.TimeToRecoverS, &er.TimeToRefillS, &er.Errors, &er.RetriedOK, &er.Created, &er.Closed, &er.PoolClears, &er.P99DuringMS)
	er.Versus = roundVerdicts(er.Versus)
	if er.Storm != nil {
		st := *er.Storm
		roundFigures(&st.Created, &st.RefillS, &st.SetupPerS, &st.PeakCreatedPerS)
		er.Storm = &st
	}
	return er
}
