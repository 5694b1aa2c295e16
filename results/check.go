package results

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// check collects the first problem of a record.
type check struct{ err *FieldError }

func (c *check) fail(field, format string, a ...any) {
	if c.err == nil {
		c.err = &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
	}
}

// result is the first problem, or nil.
func (c *check) result() error {
	if c.err == nil {
		return nil
	}
	return c.err
}

// client checks a client telemetry section's counts.
func (c *check) client(field string, cl *ClientTelemetry) {
	if cl == nil {
		return
	}
	c.nonNeg(field+".cpu_pct", cl.CPUPct)
	c.count(field+".cpus", int64(cl.CPUs))
	c.nonNeg(field+".gc_pause_ms", cl.GCPauseMS)
	c.count(field+".goroutines", int64(cl.Goroutines))
}

// target checks that a record names a target of the run header.
func (c *check) target(field, name string, h *RunHeader) {
	if strings.TrimSpace(name) == "" {
		c.fail(field, "empty")
	} else if h != nil && !slices.ContainsFunc(h.Targets, func(t TargetHeader) bool { return t.Name == name }) {
		c.fail(field, "not one of the run header's %d target(s)", len(h.Targets))
	}
}

// between checks lo ≤ v ≤ hi for an integer.
func (c *check) between(field string, v, lo, hi int64) {
	if v < lo || v > hi {
		c.fail(field, "%d is not between %d and %d", v, lo, hi)
	}
}

// count checks a count: a whole number ≥ 0.
func (c *check) count(field string, v int64) {
	if v < 0 {
		c.fail(field, "%d is negative; it counts things", v)
	}
}

// nonNeg checks a measured quantity: finite and ≥ 0.
func (c *check) nonNeg(field string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		c.fail(field, "%v is not a number ≥ 0", v)
	}
}

// optNonNeg is nonNeg for a value that may be null.
func (c *check) optNonNeg(field string, v *float64) {
	if v != nil {
		c.nonNeg(field, *v)
	}
}

// finite checks a value that may be negative (a deviation, an offset).
func (c *check) finite(field string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		c.fail(field, "%v is not a finite number", v)
	}
}

// oneOf checks a closed set of words.
func (c *check) oneOf(field, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		var quoted []string
		for _, a := range allowed {
			if a != "" {
				quoted = append(quoted, strconv.Quote(a))
			}
		}
		c.fail(field, "not one of %s", strings.Join(quoted, ", "))
	}
}

// ordered checks that named values never decrease: p50 ≤ p90 ≤ … ≤ max.
func (c *check) ordered(field string, names []string, vs []float64) {
	for i := range vs {
		c.nonNeg(field+"."+names[i], vs[i])
	}
	for i := 1; i < len(vs); i++ {
		if vs[i] < vs[i-1] {
			c.fail(field, "%s %v is above %s %v; percentiles never decrease", names[i-1], vs[i-1], names[i], vs[i])
		}
	}
}

// meanWithin checks that a mean lies under the maximum (a rounding's
// worth of slack), and that a summary with a maximum of 0 is all 0.
func (c *check) meanWithin(field string, mean, maxV float64) {
	if mean > maxV*(1+1e-9)+1e-9 {
		c.fail(field, "mean %v is above max %v", mean, maxV)
	}
}

func (c *check) latency(field string, l LatencySummary) {
	c.ordered(field, []string{"p50", "p90", "p99", "p999", "max"}, []float64{l.P50, l.P90, l.P99, l.P999, l.Max})
	c.nonNeg(field+".mean", l.Mean)
	c.meanWithin(field, l.Mean, l.Max)
}

func (c *check) quantiles(field string, q Quantiles) {
	c.ordered(field, []string{"p50", "p99", "max"}, []float64{q.P50, q.P99, q.Max})
	c.nonNeg(field+".mean", q.Mean)
	c.meanWithin(field, q.Mean, q.Max)
}

func (c *check) errorCounts(field string, e ErrorCounts) {
	c.count(field+".timeout", e.Timeout)
	c.count(field+".network", e.Network)
	c.count(field+".server", e.Server)
	c.count(field+".not_writable_primary", e.NotWritablePrimary)
	c.count(field+".pool_cleared", e.PoolCleared)
	if c.err == nil && e.NotWritablePrimary+e.PoolCleared > e.Total() {
		c.fail(field+".not_writable_primary", "%d and pool_cleared %d are more than the %d errors they are among", e.NotWritablePrimary, e.PoolCleared, e.Total())
	}
}

// histogram checks that an encoded histogram decodes.
func (c *check) histogram(field, enc string) {
	if c.err != nil {
		return
	}
	if _, err := DecodeHistogram(enc); err != nil {
		c.fail(field, "not an HdrHistogram in the V2 compressed base64 encoding (%v)", err)
	}
}

// rate checks that a rate is count ÷ window, within 5% (a merged step's
// rates are the agents' sum over windows of slightly different lengths).
func (c *check) rate(field string, perS float64, n int64, durationS float64) {
	c.nonNeg(field, perS)
	if c.err != nil || durationS <= 0 {
		return
	}
	want := float64(n) / durationS
	if math.Abs(perS-want) > 0.05*max(perS, want)+1/durationS {
		c.fail(field, "%v is not its count over the window (%d in %gs is %v)", perS, n, durationS, want)
	}
}
