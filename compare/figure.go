package compare

import "math"

// DeltaBar is one bar of the Δ% chart: one metric's change at one matched
// step, with its interval. It is what a figure needs and nothing else.
type DeltaBar struct {
	Step        string // Label(step): target workload C=… pool=… clients=…
	Target      string
	Workload    string
	Concurrency int
	Pool        string
	Clients     int
	Metric      string  // a name from metricNames
	Delta       float64 // absolute change in Unit (points for CPU)
	Unit        string
	DeltaPct    float64
	// CILowPct and CIHighPct are NaN when there is no interval (too few
	// trials, or a zero baseline).
	CILowPct, CIHighPct float64
	Significant         bool
	Status              status
}

// DeltaBars lists, per matched step and metric in output order, every
// change that has a percentage (both sides measured, baseline not zero).
func (c *Comparison) DeltaBars() []DeltaBar {
	var out []DeltaBar
	for _, s := range c.Steps {
		for _, name := range metricNames {
			m := s.Metrics[name]
			if m == nil || m.DeltaPct == nil {
				continue
			}
			b := DeltaBar{
				Step: Label(s), Target: s.Target, Workload: s.Workload, Concurrency: s.Concurrency,
				Pool: s.Pool, Clients: s.Clients, Metric: name, Delta: *m.Delta, Unit: m.Unit,
				DeltaPct: *m.DeltaPct, CILowPct: math.NaN(), CIHighPct: math.NaN(),
				Significant: m.Significant, Status: m.Status,
			}
			if m.CILowPct != nil {
				b.CILowPct, b.CIHighPct = *m.CILowPct, *m.CIHighPct
			}
			out = append(out, b)
		}
	}
	return out
}
