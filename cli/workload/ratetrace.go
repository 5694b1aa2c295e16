package workload

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/loadprofile"
	"github.com/poolsweep/poolsweep/querylog"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// rateTrace counts the operations from-log keeps by the second each
// started, for --rate-trace: the deployment's own arrivals, as a trace
// loadprofile reads (sweep --profile trace:FILE).
//
// Memory is bounded by the span a profile may last: once the operations
// seen span more than loadprofile.MaxDuration the counts are dropped and
// only the span is kept, to be refused at the end.
type rateTrace struct {
	perSecond map[int64]float64 // unix second → operations (scaled by 1/sample rate)
	first     int64             // the earliest and latest second seen
	last      int64
	ops       int64 // operations counted
	scaled    int64 // of them, logged at a sample rate below 1 and counted as 1/rate each
	rates     map[float64]int64
	noRate    int64 // counted as logged, the log not saying its sample rate
	noTime    int64 // not counted: no time that could be read
	tooLong   bool
}

func newRateTrace() *rateTrace {
	return &rateTrace{perSecond: map[int64]float64{}, rates: map[float64]int64{}}
}

// add counts one operation kept: at the second it started (its log
// time less its duration), as 1/SampleRate operations where the log says
// it was sampled.
func (r *rateTrace) add(op *querylog.Op) {
	start := op.Start()
	if start.IsZero() {
		r.noTime += op.Weight
		return
	}
	w := float64(op.Weight)
	switch sr := op.SampleRate; {
	case sr > 0 && sr < 1:
		w /= sr
		r.scaled += op.Weight
		r.rates[sr] += op.Weight
	case sr == 0:
		r.noRate += op.Weight
	}
	sec := start.Unix()
	if r.ops == 0 {
		r.first, r.last = sec, sec
	}
	r.ops += op.Weight
	r.first, r.last = min(r.first, sec), max(r.last, sec)
	if r.tooLong {
		return
	}
	if time.Duration(r.last-r.first+1)*time.Second > loadprofile.MaxDuration {
		r.tooLong, r.perSecond = true, nil
		return
	}
	r.perSecond[sec] += w
}

// points is the trace: a row a second from the first operation's second
// to the last's (rows only where the rate changes), and its end.
func (r *rateTrace) points() []loadprofile.Point {
	counts := make([]float64, r.last-r.first+1)
	for s, n := range r.perSecond {
		counts[s-r.first] = n
	}
	return loadprofile.PerSecond(counts)
}

// check says why the operations read make no trace, in --rate-trace's
// words; nil when they make one.
func (r *rateTrace) check(format string) error {
	switch {
	case format == shapes.FormatQueryStats:
		return fmt.Errorf("$queryStats output holds counts but no times; give a mongod log or a system.profile export")
	case r.ops == 0:
		return fmt.Errorf("none of the %d operations kept has a time that could be read", r.noTime)
	case r.tooLong:
		return fmt.Errorf("the operations kept span %s, longer than the %gh a profile may last; give the logs of one day or less",
			time.Duration(r.last-r.first+1)*time.Second, loadprofile.MaxDuration.Hours())
	}
	return nil
}

// notes say what the trace counts and what it cannot see: one line each.
func (r *rateTrace) notes(rep *querylog.Report, pts []loadprofile.Point) []string {
	peak := 0.0
	for _, pt := range pts {
		peak = max(peak, pt.Rate)
	}
	n := []string{fmt.Sprintf("%d operations over %d s (peak %s/s), each at the second it started "+
		"(its logged time less its duration); the application's operations only, as the workload file keeps them "+
		"(the server's own and its tools' work, getMores and the other kinds listed as left out are not counted)",
		r.ops, r.last-r.first+1, fmtRate(peak))}
	switch rep.Format {
	case shapes.FormatMongodLog:
		if slow, known := slowest(rep); !known {
			n = append(n, "the log does not say the slowms it was written at (mongod's default is 100 ms): "+
				"the trace counts only the operations logged, a lower bound of the arrivals")
		} else if slow > 0 {
			n = append(n, fmt.Sprintf("mongod logged only operations slower than slowms (%s ms): "+
				"the trace is a lower bound of the arrivals, without every faster operation; for all of them, log at slowms 0 "+
				"for a while (db.setProfilingLevel(0, {slowms: 0}))", fmtRate(slow)))
		} else if r.scaled == 0 && !rep.ProfileFilter {
			n = append(n, "the log was written at slowms 0 and sample rate 1: the trace is every arrival")
		}
		if r.scaled > 0 {
			n = append(n, fmt.Sprintf("%d operations were logged at a sample rate below 1 (%s): "+
				"each counts as 1/rate operations, an estimate of the arrivals the sampling left out", r.scaled, rateList(r.rates)))
		}
		if r.noRate > 0 {
			n = append(n, fmt.Sprintf("%d operations were logged where the log does not say its sample rate: counted once each", r.noRate))
		}
		if rep.ProfileFilter {
			n = append(n, "a profile filter chose what was logged: the trace counts what it chose")
		}
	case shapes.FormatProfiler:
		n = append(n, "a system.profile export does not say its level: at level 2 the trace is every arrival, "+
			"at level 1 only the operations above slowms (a lower bound); each at its ts less its millis")
	}
	if r.noTime > 0 {
		n = append(n, fmt.Sprintf("%d operations without a time that could be read are not counted", r.noTime))
	}
	return n
}

// slowest is the highest slowms the kept operations were logged at, and
// whether the log said it for all of them.
func slowest(rep *querylog.Report) (float64, bool) {
	if rep.Unknown > 0 || len(rep.Settings) == 0 {
		return 0, false
	}
	s := 0.0
	for _, st := range rep.Settings {
		s = max(s, st.SlowMs)
	}
	return s, true
}

// rateList is the sample rates, lowest first, at most four of them.
func rateList(rates map[float64]int64) string {
	keys := slices.Sorted(maps.Keys(rates))
	var parts []string
	for i, r := range keys {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("%d more", len(keys)-i))
			break
		}
		parts = append(parts, fmtRate(r))
	}
	return strings.Join(parts, ", ")
}

func fmtRate(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
