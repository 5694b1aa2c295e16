package analysis

import (
	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/results"
)

// Counts are what a run's summary states about its steps, counted here so
// that every summary says the same.
type Counts struct {
	// Steps are the closed-loop steps, interrupted ones included;
	// ClientBound those among them whose numbers this machine set
	// (bound.ClientLimited), not the server.
	Steps, ClientBound int
	// Ops are the closed-loop steps' operations, those finished after a
	// window closed included; FailedOps those that failed (every kind).
	Ops, FailedOps int64
	// OpenSteps are the open-loop steps (sweep --rate); Behind those
	// whose load host could not keep their arrival schedule.
	OpenSteps, Behind int
	// ProfileSteps are the profile steps (sweep --profile), summarized by
	// Scenarios, not counted above.
	ProfileSteps int
	// ShardsNotSampled names, once per target, why a sharded cluster's
	// shards were not sampled behind its routers: its bounds were then
	// judged on what the routers report.
	ShardsNotSampled []ShardsNotSampled
	// Notes are what single closed-loop steps' records say beyond their
	// numbers (a primary that changed, a secondary that fell behind), in
	// the files' step order.
	Notes []StepNote
}

// ShardsNotSampled is a target whose shards were not sampled, and why.
type ShardsNotSampled struct {
	Target, Why string
}

// FailedShare is the share of the operations that failed; 0 without any.
func (c Counts) FailedShare() float64 {
	if c.Ops <= 0 {
		return 0
	}
	return float64(c.FailedOps) / float64(c.Ops)
}

// count counts one run's steps.
func count(r *results.Results) Counts {
	var c Counts
	said := map[string]bool{}
	for i := range r.Steps {
		s := &r.Steps[i]
		if IsProfile(s) {
			c.ProfileSteps++
			continue
		}
		if IsOpen(s) {
			c.OpenSteps++
			if s.Open.ClientBehind {
				c.Behind++
			}
			continue
		}
		c.Steps++
		if limited, _ := bound.ClientLimited(s); limited {
			c.ClientBound++
		}
		c.Ops += s.Ops + s.OpsAfterClose
		c.FailedOps += s.Errors.Total()
		c.Notes = append(c.Notes, stepNotes(r.Path, s)...)
		if sv := s.Server; sv != nil && sv.ShardsSampled != nil && !*sv.ShardsSampled && !said[s.Target] {
			said[s.Target] = true
			c.ShardsNotSampled = append(c.ShardsNotSampled, ShardsNotSampled{Target: s.Target, Why: sv.ShardsNotSampled})
		}
	}
	return c
}

// IsOpen says s is an open-loop step with its open-loop numbers; a step
// without them is read as closed-loop.
func IsOpen(s *results.StepResult) bool { return s.Mode == results.ModeOpen && s.Open != nil }

// add sums o into c.
func (c *Counts) add(o Counts) {
	c.Steps += o.Steps
	c.ClientBound += o.ClientBound
	c.Ops += o.Ops
	c.FailedOps += o.FailedOps
	c.OpenSteps += o.OpenSteps
	c.Behind += o.Behind
	c.ProfileSteps += o.ProfileSteps
	c.ShardsNotSampled = append(c.ShardsNotSampled, o.ShardsNotSampled...)
	c.Notes = append(c.Notes, o.Notes...)
}
