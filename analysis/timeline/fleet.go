package timeline

import (
	"slices"

	"github.com/poolsweep/poolsweep/results"
)

// SetServerTelemetry adds to evs (a profile step's summarized events)
// what the step's servers said per host (server: its telemetry, nil
// without): each host's most connections and limit (SetServerConns), and
// to each reconnect storm what its host's connection-establishment
// limiter did over the step.
func SetServerTelemetry(evs []results.StepEvent, server *results.ServerTelemetry) {
	if server == nil {
		return
	}
	by := map[string]ServerConns{}
	for h, smp := range server.Hosts {
		if smp == nil || smp.Connections == nil {
			continue
		}
		by[h] = ServerConns{Peak: intOf(smp.Connections.Peak), Limit: intOf(smp.Connections.Limit)}
	}
	SetServerConns(evs, by)
	for i := range evs {
		for j := range evs[i].Storms {
			s := &evs[i].Storms[j]
			s.Establishment = nil
			if smp := server.Hosts[s.Host]; smp != nil && smp.Establishment != nil {
				e := *smp.Establishment
				s.Establishment = &e
			}
		}
	}
}

// intOf is *v as a whole number, nil for nil.
func intOf(v *float64) *int {
	if v == nil {
		return nil
	}
	n := int(*v)
	return &n
}

// Resummarize computes a merged profile step's summaries again from its
// merged timeline (results.MergeAgents sums the agents' timelines
// interval by interval; each agent's summary was of its own clients):
// the profile's summary, each event's, and what the servers said. The
// pool's fill target counts the step's clients (every agent's) and the
// hosts its timeline names. A step that is not a profile step is left
// as it is.
func Resummarize(st *results.StepResult) {
	ps := st.Profile
	if ps == nil || st.Mode != results.ModeProfile {
		return
	}
	var hosts []string
	for _, iv := range ps.Timeline.Intervals {
		for _, h := range iv.Hosts {
			if !slices.Contains(hosts, h.Host) {
				hosts = append(hosts, h.Host)
			}
		}
	}
	need := Need{MaxPoolSize: st.MaxPoolSize, Clients: max(st.Clients, 1), Hosts: max(len(hosts), 1)}
	if len(ps.Events) > 0 {
		ps.Events = SummarizeEvents(ps, need)
		SetServerTelemetry(ps.Events, st.Server)
	}
	ps.Summary = Summarize(ps, need)
}

// LabelMerged is the label results.MergeAgents hands each merged step:
// its profile summaries computed again from the merged timeline
// (Resummarize), then judge's labels (nil: none).
func LabelMerged(judge func(*results.StepResult)) func(*results.StepResult) {
	return func(st *results.StepResult) {
		Resummarize(st)
		if judge != nil {
			judge(st)
		}
	}
}
