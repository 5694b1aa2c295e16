// Package threshold is poolsweep's pass/fail gates: `--threshold
// 'p99<20ms@64'` parsed into a Threshold, and Evaluate, which judges
// thresholds against one analysis of a run and its step records. Pure
// functions; no I/O but WriteText, which renders outcomes to a passed
// io.Writer.
//
// The grammar is METRIC OP VALUE[@WHERE]:
//
//	METRIC  ops (ops/s), calls (calls/s), p50, p99, errors, pool_wait,
//	        connections, knee
//	OP      <  <=  >  >=
//	VALUE   a number for ops, calls, connections and knee; a duration
//	        (20ms, 1.5s, 250us) for p50, p99 and pool_wait; for errors a
//	        count (10) or a share of the operations (0.1%); each within
//	        its metric's Range
//	WHERE   a concurrency level (@64), the series' knee (@knee), or every
//	        step (@every, the default); knee takes none
package threshold

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/internal/decimal"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Metric is what a threshold measures.
type Metric string

// The metrics.
const (
	Ops         Metric = "ops"
	calls       Metric = "calls"
	p50         Metric = "p50"
	p99         Metric = "p99"
	Errors      Metric = "errors"
	poolWait    Metric = "pool_wait"
	Connections Metric = "connections"
	Knee        Metric = "knee"
)

// metricNames maps every spelling a user may write to its metric.
var metricNames = map[string]Metric{
	"ops": Ops, "ops/s": Ops, "calls": calls, "calls/s": calls, "p50": p50, "p99": p99,
	"errors": Errors, "pool_wait": poolWait, "connections": Connections, "knee": Knee,
}

// where says at which steps of a series a threshold is checked.
type where int

// The places.
const (
	every   where = iota // every measured step: the worst one counts
	atLevel              // the median of one concurrency level's trials
	atKnee               // the median of the knee level's trials
)

// Threshold is one parsed --threshold.
type Threshold struct {
	Text   string // as given, for output and the end record
	Metric Metric
	Op     string // <, <=, > or >=
	// Value is in the metric's unit (Unit): ms for durations, percent for
	// an error share.
	Value float64
	// Share says an errors threshold is a share of the operations (%)
	// rather than a count.
	Share bool
	Where where
	Level int // the concurrency of atLevel
}

// unit is the unit of the threshold's values.
func (t Threshold) unit() string {
	switch t.Metric {
	case Ops:
		return "ops/s"
	case calls:
		return "calls/s"
	case p50, p99, poolWait:
		return "ms"
	case Errors:
		if t.Share {
			return "%"
		}
		return "errors"
	case Connections:
		return "connections"
	}
	return "workers"
}

// holds says whether v meets the threshold.
func (t Threshold) holds(v float64) bool {
	switch t.Op {
	case "<":
		return v < t.Value
	case "<=":
		return v <= t.Value
	case ">":
		return v > t.Value
	}
	return v >= t.Value
}

// lowerIsBetter says which way the threshold points: a worst step is the
// highest value of an upper bound, the lowest of a lower bound.
func (t Threshold) lowerIsBetter() bool { return t.Op[0] == '<' }

// Parse reads one threshold. Its errors name the threshold and the part
// that is wrong, in the user's words.
func Parse(s string) (Threshold, error) {
	t := Threshold{Text: strings.TrimSpace(s)}
	fail := func(format string, a ...any) (Threshold, error) {
		return Threshold{}, fmt.Errorf("threshold %s: %s", textfmt.Token(t.Text), fmt.Sprintf(format, a...))
	}
	if t.Text == "" {
		return fail("empty; say METRIC OP VALUE[@WHERE], e.g. p99<20ms@64")
	}
	i := strings.IndexAny(t.Text, "<>")
	if i < 0 {
		return fail("no comparison (<, <=, > or >=); say METRIC OP VALUE[@WHERE], e.g. p99<20ms@64")
	}
	name := strings.ToLower(strings.TrimSpace(t.Text[:i]))
	m, ok := metricNames[name]
	if !ok {
		return fail("unknown metric %s; say ops, calls, p50, p99, errors, pool_wait, connections or knee", textfmt.Token(name))
	}
	t.Metric = m
	t.Op = t.Text[i : i+1]
	rest := t.Text[i+1:]
	if strings.HasPrefix(rest, "=") {
		t.Op += "="
		rest = rest[1:]
	}
	value, where, hasWhere := strings.Cut(rest, "@")
	value, where = strings.TrimSpace(value), strings.TrimSpace(where)
	if strings.ContainsAny(value, "<>=") {
		return fail("%s after %s is not a value", textfmt.Token(value), t.Op)
	}
	if value == "" {
		return fail("no value after %s", t.Op)
	}
	if err := t.parseValue(value); err != nil {
		return fail("%v", err)
	}
	if hasWhere {
		if err := t.parseWhere(where); err != nil {
			return fail("%v", err)
		}
	}
	return t, nil
}

// maxLevel is the largest concurrency a plan allows.
const maxLevel = results.MaxConcurrency

// The declared range of each metric's value, in its unit (Unit). A
// threshold past its metric's range can never be met or never fail
// (ops>1e308, errors<1e308), so it is refused as the typo it is:
//   - ops, calls: 0 to maxRate per second, a hundred times results.MaxRate
//     (the most one --rate level offers), beyond any deployment's reach;
//   - p50, p99, pool_wait: 0 to 1h, --op-timeout's longest;
//   - errors: a count from 0 to maxErrors, more operations than a 24-h
//     window at maxRate holds, or a share from 0% to 100%;
//   - connections: 0 to maxConnections, every worker of the most clients
//     at the most concurrency with a connection of its own;
//   - knee: a concurrency level, 0 to results.MaxConcurrency.
const (
	maxRate        = 100 * results.MaxRate                       // ops/s, calls/s
	maxLatency     = time.Hour                                   // p50, p99, pool_wait
	maxErrors      = 1e14                                        // errors, as a count
	maxConnections = results.MaxConcurrency * results.MaxClients // connections
	maxKnee        = results.MaxConcurrency                      // knee, in workers
)

// Range is the declared range of metric m's values in unit (share: an
// errors threshold in %): what Parse accepts.
func Range(m Metric, share bool) (lo, hi float64, unit string) {
	t := Threshold{Metric: m, Share: share}
	switch m {
	case Ops, calls:
		return 0, maxRate, t.unit()
	case p50, p99, poolWait:
		return 0, float64(maxLatency / time.Millisecond), t.unit()
	case Errors:
		if share {
			return 0, 100, t.unit()
		}
		return 0, maxErrors, t.unit()
	case Connections:
		return 0, maxConnections, t.unit()
	}
	return 0, maxKnee, t.unit()
}

// parseValue reads the value in the metric's unit, within its Range.
func (t *Threshold) parseValue(s string) error {
	tok := textfmt.Token(s)
	switch t.Metric {
	case p50, p99, poolWait:
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%s takes a duration such as 20ms or 1.5s, not %s", t.Metric, tok)
		}
		if d < 0 || d > maxLatency {
			return fmt.Errorf("%s: %s is not between 0 and %s", t.Metric, tok, "1h")
		}
		t.Value = float64(d) / float64(time.Millisecond)
		return nil
	case Errors:
		if pct, ok := strings.CutSuffix(s, "%"); ok {
			v, err := number(pct)
			if err != nil || v < 0 || v > 100 {
				return fmt.Errorf("errors: %s is not a share from 0%% to 100%%", tok)
			}
			t.Value, t.Share = v, true
			return nil
		}
		v, err := number(s)
		if err != nil || v < 0 || v != math.Trunc(v) {
			return fmt.Errorf("errors takes a count (10) or a share of the operations (0.1%%), not %s", tok)
		}
		if v > maxErrors {
			return fmt.Errorf("errors: %s is not a count from 0 to %s", tok, fmtNumber(maxErrors))
		}
		t.Value = v
		return nil
	case Connections, Knee:
		_, hi, unit := Range(t.Metric, false)
		v, err := number(s)
		if err != nil || v < 0 || v > hi || v != math.Trunc(v) {
			return fmt.Errorf("%s takes a whole number of %s from 0 to %.0f, not %s", t.Metric, unit, hi, tok)
		}
		t.Value = v
		return nil
	}
	v, err := number(s)
	if err != nil || v < 0 {
		return fmt.Errorf("%s takes a rate per second such as 5000, not %s", t.Metric, tok)
	}
	if v > maxRate {
		return fmt.Errorf("%s: %s is not a rate from 0 to %s %s", t.Metric, tok, fmtNumber(maxRate), t.unit())
	}
	t.Value = v
	return nil
}

// fmtNumber writes a bound with all its digits, as a user would type it.
func fmtNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// number is a finite decimal number, nothing else (internal/decimal: no
// hex, no underscores, no denormal).
func number(s string) (float64, error) {
	v, err := decimal.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("%s is %w", textfmt.Token(s), err)
	}
	return v, nil
}

// parseWhere reads what follows @.
func (t *Threshold) parseWhere(s string) error {
	if t.Metric == Knee {
		return fmt.Errorf("knee is one number per series and takes no @%s", textfmt.Short(s))
	}
	switch strings.ToLower(s) {
	case "knee":
		t.Where = atKnee
		return nil
	case "every", "all":
		t.Where = every
		return nil
	case "":
		return fmt.Errorf("nothing after @; say a concurrency level (@64), @knee or @every")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxLevel {
		return fmt.Errorf("@%s is not a concurrency level from 1 to %d, @knee or @every", textfmt.Short(s), maxLevel)
	}
	t.Where, t.Level = atLevel, n
	return nil
}
