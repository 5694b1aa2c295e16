package fleet

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/loadprofile"
	"github.com/poolsweep/poolsweep/results"
)

// An instance trace is a CSV file of two columns, time and instances:
//
//	t_s,instances
//	0,10
//	600,40
//	900,200
//	3600,10
//
// Time is seconds from the trace's start (decimals allowed), strictly
// increasing; instances is the fleet's size from that time until the
// next row's, a whole number from 0 to the fleet's bound. The header line
// is optional; blank lines are skipped.
const (
	// InstanceTraceHeader is the instance trace's optional first line.
	InstanceTraceHeader = "t_s,instances"
	// maxScaleOutsShown bounds the scale-outs a plan describes, largest
	// first.
	maxScaleOutsShown = 3
	// defaultMaxConnecting is the drivers' default maxConnecting, whose
	// storm times a scale-out when the storm run tried it.
	defaultMaxConnecting = 2
)

// Trace is an autoscaling fleet: its size over time, and each instance's
// pool options that decide what its pool holds at rest.
type Trace struct {
	// Source names the file and how the sizes were read from it.
	Source string
	Points []TracePoint
	// MinPoolSize is each instance's minPoolSize: the connections its
	// pool opens at start and keeps however idle.
	MinPoolSize int
	// MaxIdle is each instance's maxIdleTimeMS: a connection idle longer
	// is closed, down to MinPoolSize; 0 never closes one for idleness.
	MaxIdle time.Duration
}

// TracePoint is the fleet's size from At until the next point.
type TracePoint struct {
	At        time.Duration
	Instances int
}

// Peak is the trace's largest size and when it is first reached.
func (t *Trace) Peak() (int, time.Duration) {
	n, at := 0, time.Duration(0)
	for _, p := range t.Points {
		if p.Instances > n {
			n, at = p.Instances, p.At
		}
	}
	return n, at
}

// ParseInstanceTrace reads an instance trace's text (see
// InstanceTraceHeader); name is the file's, for errors, which name the
// line and the field and never quote the file.
func ParseInstanceTrace(name string, data []byte, maxInstances int) ([]TracePoint, error) {
	var pts []TracePoint
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, loadprofile.MaxTraceBytes)
	header := false
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff") // a byte-order mark
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		at := func(field, msg string, a ...any) error {
			return errors.New(textfmt.At(name, line, field) + fmt.Sprintf(msg, a...))
		}
		ts, ns, ok := strings.Cut(text, ",")
		if !ok || strings.Contains(ns, ",") {
			return nil, at("", "not a row of two fields, %s", InstanceTraceHeader)
		}
		ts, ns = strings.TrimSpace(ts), strings.TrimSpace(ns)
		if len(pts) == 0 && !header && strings.EqualFold(ts, "t_s") && strings.EqualFold(ns, "instances") {
			header = true
			continue
		}
		if len(pts) == loadprofile.MaxTraceRows {
			return nil, at("", "more than %d rows, the most a trace may hold", loadprofile.MaxTraceRows)
		}
		t, err := strconv.ParseFloat(ts, 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(t):
			return nil, at("t_s", "not a number of seconds")
		case t < 0:
			return nil, at("t_s", "%s is negative; times are seconds from the trace's start", num(t))
		case t > loadprofile.MaxDuration.Seconds():
			return nil, at("t_s", "%s is past the %.0f h a trace may last", num(t), loadprofile.MaxDuration.Hours())
		}
		d := time.Duration(math.Round(t * 1e9))
		if len(pts) > 0 && d <= pts[len(pts)-1].At {
			return nil, at("t_s", "%s is not after the row before; times must increase", num(t))
		}
		n, err := strconv.Atoi(ns)
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange) || err == nil && n > maxInstances:
			return nil, at("instances", "above %d, the most a fleet may have", maxInstances)
		case err != nil:
			return nil, at("instances", "not a whole number of instances")
		case n < 0:
			return nil, at("instances", "%d is negative", n)
		}
		pts = append(pts, TracePoint{At: d, Instances: n})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, errors.New(textfmt.At(name, 0, "") + "a line longer than the file's limit")
		}
		return nil, fmt.Errorf("%s%w", textfmt.At(name, 0, ""), err)
	}
	if len(pts) == 0 {
		return nil, errors.New(textfmt.At(name, 0, "") + "no rows; an instance trace is rows of " + InstanceTraceHeader)
	}
	if !slices.ContainsFunc(pts, func(p TracePoint) bool { return p.Instances > 0 }) {
		return nil, errors.New(textfmt.At(name, 0, "instances") + "every row has 0 instances: no fleet to plan")
	}
	return pts, nil
}

// num is a number read from a trace, as an error says it back: the
// value parsed, not the text the file holds.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 12, 64) }

// InstancesFromRates is the fleet an autoscaler keeps for a rate trace
// (loadprofile's format) when each instance takes perInstance calls/s:
// ceil(rate / perInstance), at least one, from each row until the next;
// the trace's end row ends it.
func InstancesFromRates(pts []loadprofile.Point, perInstance float64, maxInstances int) ([]TracePoint, error) {
	var out []TracePoint
	for i, p := range pts {
		if i == len(pts)-1 {
			break // the end row: the trace's length, no rate of its own
		}
		n := math.Ceil(p.Rate / perInstance)
		if n > float64(maxInstances) {
			return nil, fmt.Errorf("the rate %s calls/s at %s needs %.0f instances at %s calls/s each, above %d, the most a fleet may have", num(p.Rate), p.At, n, num(perInstance), maxInstances)
		}
		k := max(int(n), 1)
		if len(out) > 0 && out[len(out)-1].Instances == k {
			continue
		}
		out = append(out, TracePoint{At: p.At, Instances: k})
	}
	return out, nil
}

// Scaling is an autoscaling fleet at a series' recommended pool: its
// connections per host at the peak against the limit, at rest, and how
// long its scale-outs take to warm their pools.
type Scaling struct {
	Source      string `json:"source"`
	MaxPoolSize int    `json:"max_pool_size"`
	// MinPoolSize is the instances' (at most MaxPoolSize); MaxIdleMS their
	// maxIdleTimeMS (0: never).
	MinPoolSize int   `json:"min_pool_size"`
	MaxIdleMS   int64 `json:"max_idle_time_ms"`
	Monitors    int   `json:"monitors_per_instance"`
	// PeakInstances is the largest size, first reached at PeakAtS;
	// PeakConnections its connections per host with every pool full.
	PeakInstances   int      `json:"peak_instances"`
	PeakAtS         float64  `json:"peak_at_s"`
	PeakConnections int      `json:"peak_connections_per_host"`
	PeakLimitPct    *float64 `json:"peak_limit_pct,omitempty"`
	OverLimit       bool     `json:"over_limit,omitempty"`
	// LowInstances is the smallest size (after the first row); RestConnections
	// its connections per host with every pool at minPoolSize.
	LowInstances    int `json:"low_instances"`
	RestConnections int `json:"rest_connections_per_host"`
	// ScaleOuts are the largest scale-outs, largest first; Count is all of them.
	ScaleOuts []ScaleOut `json:"scale_outs"`
	Count     int        `json:"scale_out_count"`
	Warnings  []string   `json:"warnings,omitempty"`
}

// ScaleOut is one step up of the fleet: the new instances' connections
// per host, opened at start (monitors and minPoolSize) and once their
// pools are full, and the time the server takes to set them up at the
// storm run's accept rate for that many new clients.
type ScaleOut struct {
	AtS             float64 `json:"at_s"`
	From            int     `json:"from"`
	To              int     `json:"to"`
	StartConns      int     `json:"start_connections_per_host"`
	FullConns       int     `json:"full_connections_per_host"`
	NextChangeAfter float64 `json:"next_change_after_s,omitempty"`
	// Warm is the setup time from the storm run; nil without one.
	Warm *Warm `json:"warm,omitempty"`
}

// Warm is a scale-out's setup time at the storm's rate: StartS until the
// new pools hold minPoolSize (and the monitors), FullS until full.
type Warm struct {
	MaxConnecting int     `json:"max_connecting"`
	AcceptPerS    float64 `json:"accept_per_s"`
	RateFrom      string  `json:"rate_from"`
	Bound         string  `json:"bound,omitempty"`
	Hosts         int     `json:"hosts"`
	StartS        float64 `json:"start_s"`
	FullS         float64 `json:"full_s"`
}

// scalingOf lays the trace over a series' plan at its recommended pool;
// storm, when it measured the series' deployment (sp.Setup), times the
// scale-outs.
func scalingOf(t *Trace, sp *SeriesPlan, storm *results.Results) *Scaling {
	pool, m := sp.Recommended.MaxPoolSize, sp.Monitors
	sc := &Scaling{Source: t.Source, MaxPoolSize: pool, MinPoolSize: t.MinPoolSize, MaxIdleMS: t.MaxIdle.Milliseconds(), Monitors: m}
	if sc.MinPoolSize > pool {
		sc.Warnings = append(sc.Warnings, fmt.Sprintf("minPoolSize %d is above the recommended maxPoolSize %d, which drivers refuse: taken as %d", t.MinPoolSize, pool, pool))
		sc.MinPoolSize = pool
	}
	peak, at := t.Peak()
	sc.PeakInstances, sc.PeakAtS = peak, at.Seconds()
	sc.PeakConnections = peak * (pool + m)
	if lim := sp.Limit.PerHost; lim != nil && *lim > 0 {
		pct := 100 * float64(sc.PeakConnections) / float64(*lim)
		sc.PeakLimitPct, sc.OverLimit = &pct, sc.PeakConnections > *lim
	}
	sc.LowInstances = peak
	for _, p := range t.Points {
		sc.LowInstances = min(sc.LowInstances, p.Instances)
	}
	sc.RestConnections = sc.LowInstances * (sc.MinPoolSize + m)
	var outs []ScaleOut
	for i := 1; i < len(t.Points); i++ {
		from, to := t.Points[i-1].Instances, t.Points[i].Instances
		if to <= from {
			continue
		}
		d := to - from
		so := ScaleOut{AtS: t.Points[i].At.Seconds(), From: from, To: to, StartConns: d * (sc.MinPoolSize + m), FullConns: d * (pool + m)}
		if i+1 < len(t.Points) {
			so.NextChangeAfter = (t.Points[i+1].At - t.Points[i].At).Seconds()
		}
		if sp.Setup != nil && storm != nil {
			so.Warm = warmOf(storm, sp.Setup, d, so.StartConns, so.FullConns)
		}
		outs = append(outs, so)
	}
	sc.Count = len(outs)
	slices.SortStableFunc(outs, func(a, b ScaleOut) int { return (b.To - b.From) - (a.To - a.From) })
	sc.ScaleOuts = outs[:min(len(outs), maxScaleOutsShown)]
	return sc
}

// warmOf times a scale-out of d new instances at the storm's accept rate
// for d clients (restart's rule), at the drivers' default maxConnecting
// when the storm tried it, else the first it tried.
func warmOf(storm *results.Results, s *Setup, d, start, full int) *Warm {
	if len(s.Saturations) == 0 {
		return nil
	}
	sat := s.Saturations[0]
	for _, x := range s.Saturations {
		if x.MaxConnecting == defaultMaxConnecting {
			sat = x
		}
	}
	hosts := max(storm.Storms[0].PoolsPerClient, 1)
	r := restart(storm.Storms, sat, d, full, hosts)
	if r.AcceptPerS <= 0 {
		return nil
	}
	return &Warm{MaxConnecting: sat.MaxConnecting, AcceptPerS: r.AcceptPerS, RateFrom: r.RateFrom, Bound: r.Bound, Hosts: hosts,
		StartS: float64(start*hosts) / r.AcceptPerS, FullS: r.Seconds}
}

// lines say the autoscaling fleet in sentences (none without a trace).
func (sc *Scaling) lines() []string {
	if sc == nil {
		return nil
	}
	full := fmt.Sprintf("every pool full: %d × (maxPoolSize %d + %d monitoring) = %d connections per host", sc.PeakInstances, sc.MaxPoolSize, sc.Monitors, sc.PeakConnections)
	peak := fmt.Sprintf("autoscaling (%s): %d to %d instances; at the peak, %d instances from %s, %s",
		textfmt.Escape(sc.Source), sc.LowInstances, sc.PeakInstances, sc.PeakInstances, traceTime(sc.PeakAtS), full)
	if sc.LowInstances == sc.PeakInstances && sc.Count == 0 {
		peak = fmt.Sprintf("pools (%s of %s), %s", textfmt.Escape(sc.Source), instancesText(sc.PeakInstances), full)
	}
	if sc.PeakLimitPct != nil {
		peak += fmt.Sprintf(", %s of the limit", pctText(*sc.PeakLimitPct))
		if sc.OverLimit {
			peak += ": over it, so the peak's last instances cannot all connect"
		}
	}
	out := []string{peak}
	rest := fmt.Sprintf("at rest, each pool keeps minPoolSize %d: the fewest instances (%d) hold %d × (%d + %d) = %d connections per host", sc.MinPoolSize, sc.LowInstances, sc.LowInstances, sc.MinPoolSize, sc.Monitors, sc.RestConnections)
	if sc.MaxIdleMS > 0 {
		rest += fmt.Sprintf(" once their connections above it have been idle for maxIdleTimeMS %d", sc.MaxIdleMS)
	} else {
		rest += " only if they never filled their pools: with maxIdleTimeMS 0 an idle connection is never closed, so each instance keeps the most its pool opened and a quiet fleet holds its busy hour's connections"
	}
	out = append(out, rest)
	for _, so := range sc.ScaleOuts {
		s := fmt.Sprintf("scale-out at %s, %d → %d instances: the %d new ones open %d connections per host at start (%d monitoring + minPoolSize %d each) and %d once load fills their pools",
			traceTime(so.AtS), so.From, so.To, so.To-so.From, so.StartConns, sc.Monitors, sc.MinPoolSize, so.FullConns)
		if w := so.Warm; w != nil {
			bound := "about "
			switch w.Bound {
			case "lower":
				bound = "at least "
			case "upper":
				bound = "at most "
			}
			s += fmt.Sprintf("; at the storm's %.0f connections/s (maxConnecting %d, %s) over %d host(s), warm at start after %s%s and full after %s%s",
				w.AcceptPerS, w.MaxConnecting, w.RateFrom, w.Hosts, bound, secondsText(w.StartS), bound, secondsText(w.FullS))
			if so.NextChangeAfter > 0 && w.FullS > so.NextChangeAfter {
				s += fmt.Sprintf(", longer than the %s until the fleet changes again", secondsText(so.NextChangeAfter))
			}
		} else {
			s += "; give --storm with a storm run of this deployment to time its warm-up"
		}
		out = append(out, s)
	}
	if sc.Count > len(sc.ScaleOuts) {
		out = append(out, fmt.Sprintf("%d scale-outs in all; the %d largest are shown", sc.Count, len(sc.ScaleOuts)))
	}
	for _, w := range sc.Warnings {
		out = append(out, "warning: "+w)
	}
	return out
}

// traceTime is a time of the trace as its file gives it: t = seconds.
func traceTime(s float64) string { return "t = " + num(s) + " s" }
