// Package timeline turns a profile step's timeline into its summary: the
// time its pool took to fill, the worst interval's p99, the time until
// throughput and p99 were back within the steady state's interval, the
// churn, and what the pool still held after the load fell. It is pure: a
// function of the step record's timeline and phases.
package timeline

import "github.com/poolsweep/poolsweep/results"

// Need is what the load asked of the pool, for the fill time: the
// connections the step's clients could use at most (maxPoolSize × clients
// × hosts).
type Need struct {
	MaxPoolSize int
	Clients     int
	Hosts       int
}

// Summarize computes ps's summary from its timeline and phases.
func Summarize(ps *results.ProfileStats, need Need) results.ProfileSummary {
	var s results.ProfileSummary
	for _, iv := range ps.Timeline.Intervals {
		s.ConnectionsCreated += iv.Created
		s.ConnectionsClosed += iv.Closed
		s.PoolClears += iv.Clears
	}
	s.Notes = append(s.Notes, "only the churn is summarized by this build")
	return s
}
