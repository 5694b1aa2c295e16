package curves

import (
	"fmt"
	"slices"
	"strings"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// PeakBound is what bound a side near its peak: the bound label most of
// the steps at the peak's level and the levels either side of it carry
// (each step's own label, analysis/bound's, never decided again here).
type PeakBound struct {
	Bound string // bound.Bound* value
	// Steps carry Bound, of Of labelled steps near the peak.
	Steps, Of int
	// PerClient is the peak level's connections per client.
	PerClient int
	// Reason is the first such step's reason, the evidence.
	Reason string
}

// stepBound is one step's bound label and reason, as levelOf keeps them.
type stepBound struct{ bound, reason string }

// peakBoundOf is the bound most steps near s's peak carry: the peak's
// level and its neighbours, since the level past the peak shows the same
// limit harder and the one below it as it began. nil when no step there
// is labelled with a limit (none, failed or unlabelled), or when no label
// holds more than half of them.
func peakBoundOf(s Side) *PeakBound {
	i := slices.IndexFunc(s.Levels, func(l Level) bool { return l.Concurrency == s.Report.Peak.Concurrency })
	if i < 0 {
		return nil
	}
	count := map[string]int{}
	first := map[string]string{}
	of := 0
	for j := max(i-1, 0); j <= min(i+1, len(s.Levels)-1); j++ {
		for _, b := range s.Levels[j].bounds {
			if b.bound == "" || b.bound == bound.BoundFailed {
				continue
			}
			of++
			if b.bound == bound.BoundNone {
				continue
			}
			if count[b.bound] == 0 {
				first[b.bound] = b.reason
			}
			count[b.bound]++
		}
	}
	best := ""
	for _, b := range []string{bound.BoundRouterPool, bound.BoundRouterCPU, bound.BoundServer, bound.BoundPool, bound.BoundClient, bound.BoundNetwork} {
		if count[b] > count[best] {
			best = b
		}
	}
	if best == "" || 2*count[best] <= of {
		return nil
	}
	return &PeakBound{Bound: best, Steps: count[best], Of: of, PerClient: s.Levels[i].PerClient, Reason: first[best]}
}

// boundPhrase words what bound a side near its peak: "at 64 connections
// per client its routers' pools to the shards were full (router_pool, 3
// of 3 steps)".
func boundPhrase(b *PeakBound, d Deployment) string {
	what := ""
	switch b.Bound {
	case bound.BoundRouterPool:
		what = "its routers' pools to the shards were full"
		if strings.Contains(b.Reason, "MaxConnecting") {
			what = "its routers' pools to the shards opened connections no faster than MaxConnecting allows"
		}
	case bound.BoundRouterCPU:
		what = "its routers' CPU was full"
	case bound.BoundServer:
		what = "its servers were full"
		switch {
		case strings.HasPrefix(b.Reason, "shard ") && strings.Contains(b.Reason, "tickets"):
			what = "a shard's tickets ran out"
		case strings.HasPrefix(b.Reason, "shard ") && strings.Contains(b.Reason, "CPU"):
			what = "a shard's CPU was full"
		case strings.HasPrefix(b.Reason, "shard "):
			what = "a shard was full"
		case d.Topology == "sharded":
			what = "its servers were full"
		}
	case bound.BoundPool:
		what = "the clients' pools made calls wait"
	case bound.BoundClient:
		what = "the load host was the limit, not the deployment"
	case bound.BoundNetwork:
		what = "the network was the limit"
	}
	steps := "steps"
	if b.Of == 1 {
		steps = "step"
	}
	return fmt.Sprintf("at %d connections per client %s (%s, %d of %d %s)", b.PerClient, what, b.Bound, b.Steps, b.Of, steps)
}

// whyPhrase names what bound the side with the lower peak near it, for
// the verdict; "" when its steps near the peak say no one thing.
func whyPhrase(c *Comparison) string {
	r := c.PeakRatio.Value
	if r == 1 || r <= 0 {
		return ""
	}
	name, b, d := c.Cand.Name, c.CandBound, c.Cand.Deployment
	if r > 1 {
		name, b, d = c.Base.Name, c.BaseBound, c.Base.Deployment
	}
	if b == nil {
		return ""
	}
	return fmt.Sprintf("near %s's peak %s", textfmt.Escape(name), boundPhrase(b, d))
}
