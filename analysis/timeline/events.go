package timeline

import "github.com/poolsweep/poolsweep/results"

// SummarizeEvents returns ps's events, in order, each with its Summary
// computed from ps's timeline (ps itself is not changed). An event that
// could not be performed (its Error set) gets no summary. The engine
// calls it once as the step is recorded, after Summarize, and stores the
// result in ps.Events.
func SummarizeEvents(ps *results.ProfileStats, need Need) []results.StepEvent {
	out := make([]results.StepEvent, len(ps.Events))
	copy(out, ps.Events)
	for i := range out {
		if out[i].Error != "" {
			out[i].Summary = nil
			continue
		}
		s := SummarizeEvent(ps, out[i], need)
		out[i].Summary = &s
	}
	return out
}

// SummarizeEvent is one event's summary from ps's timeline.
func SummarizeEvent(ps *results.ProfileStats, ev results.StepEvent, need Need) results.EventSummary {
	var s results.EventSummary
	return s
}
