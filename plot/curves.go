package plot

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/runinfo"
	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/results"
)

// curve is one plotted series: one series of the knee analysis (target ×
// workload × pool setting × clients, over every file given, or within one
// file when the files are drawn each on its own), with its steps grouped
// into levels.
type curve struct {
	file     int // the first file holding the series
	label    string
	target   string
	workload string
	pool     string
	clients  int
	header   *results.TargetHeader
	levels   []level
	report   *knee.Report
	idx      int // colour and glyph index
}

// level is one concurrency of a curve, aggregated over its trials.
type level struct {
	concurrency int
	maxPool     int
	conns       float64 // median measured connections (or the planned K×min(C,P))
	inFlight    float64 // K × C
	steps       []*results.StepResult
	ops         band    // as the knee analysis summarised the level
	calls       float64 // median calls/s over trials
	p50, p99    float64 // medians over trials; 0 when unknown
}

// band is a level's throughput exactly as the knee analysis decided it
// (knee.Level): the median over trials and its 95% interval (bootstrap
// percentile with 3 or more trials, else the range of the trials).
type band struct {
	Median, Low, High float64
	N                 int // trials
}

// buildCurves groups the steps of rs that lie on a concurrency curve
// (knee.OnCurve) into curves, one per series of the analysis a: its series
// across all files, or each file's own (a.PerFile) for the two runs of an
// A/B pair. The order is stable: file, target as listed in the header,
// pool "match" first then by size, workload, clients. Each curve gets its
// series' knee report (target, workload when the report names one, pool
// and clients) and its levels exactly as that report summarised them; a
// level the analysis did not use is not drawn, and neither is a curve the
// analysis has no report for.
func buildCurves(rs []*results.Results, a *analysis.Analysis) []*curve {
	each := a.PerFile != nil
	multiWorkload := countWorkloads(rs) > 1
	dupTarget := map[string]bool{}
	if each {
		dupTarget = runinfo.SharedTargets(rs)
	}
	type rankKey struct {
		file, target int
	}
	byKey := map[string]*curve{}
	rank := map[*curve]rankKey{}
	var curves []*curve
	for fi, r := range rs {
		targetRank := map[string]int{}
		for ti, t := range r.Header.Targets {
			targetRank[t.Name] = ti
		}
		for i := range r.Steps {
			s := &r.Steps[i]
			// The steps the knee analysis reads as points; the step table
			// still lists the others, and the open-* figures draw the open
			// loop's.
			if !knee.OnCurve(s) {
				continue
			}
			k := max(s.Clients, 1)
			key := s.Target + "\x00" + s.Workload + "\x00" + s.PoolSetting + "\x00" + strconv.Itoa(k)
			if each {
				key = strconv.Itoa(fi) + "\x00" + key
			}
			c := byKey[key]
			if c == nil {
				c = &curve{file: fi, target: s.Target, workload: s.Workload, pool: s.PoolSetting, clients: k}
				for ti := range r.Header.Targets {
					if r.Header.Targets[ti].Name == s.Target {
						c.header = &r.Header.Targets[ti]
					}
				}
				c.label = curveLabel(r, c, multiWorkload, dupTarget[s.Target])
				byKey[key] = c
				rank[c] = rankKey{fi, runinfo.Rank(targetRank, s.Target)}
				curves = append(curves, c)
			}
			addStep(c, s)
		}
	}
	// Files in order, targets in their header's order, then pools, workloads
	// and clients.
	slices.SortStableFunc(curves, func(a, b *curve) int {
		ra, rb := rank[a], rank[b]
		return cmp.Or(cmp.Compare(ra.file, rb.file), cmp.Compare(ra.target, rb.target), cmp.Compare(a.target, b.target),
			cmp.Compare(runinfo.PoolRank(a.pool), runinfo.PoolRank(b.pool)), cmp.Compare(a.workload, b.workload), cmp.Compare(a.clients, b.clients))
	})
	used := map[*knee.Report]bool{}
	for _, c := range curves {
		reports := a.Series
		if each && c.file < len(a.PerFile) {
			reports = a.PerFile[c.file].Series
		}
		for ri := range reports {
			rep := &reports[ri]
			if used[rep] || rep.Target != c.target || rep.Pool != c.pool || max(rep.Clients, 1) != c.clients {
				continue
			}
			if rep.Workload != "" && c.workload != "" && rep.Workload != c.workload {
				continue
			}
			used[rep] = true
			c.report = rep
			break
		}
		if c.report != nil {
			finishCurve(c, c.report.Levels)
		} else {
			c.levels = nil
		}
	}
	// A curve whose every level the analysis rejected has nothing to draw.
	out := curves[:0]
	for _, c := range curves {
		if len(c.levels) > 0 {
			out = append(out, c)
		}
	}
	for i, c := range out {
		c.idx = i
	}
	return out
}

func addStep(c *curve, s *results.StepResult) {
	for i := range c.levels {
		if c.levels[i].concurrency == s.Concurrency {
			c.levels[i].steps = append(c.levels[i].steps, s)
			return
		}
	}
	c.levels = append(c.levels, level{concurrency: s.Concurrency, maxPool: s.MaxPoolSize, steps: []*results.StepResult{s}})
}

// finishCurve sorts the levels and takes each one's throughput and p99
// from the analysis's levels; a level the analysis did not use (no valid
// throughput) is not drawn.
func finishCurve(c *curve, analysed []knee.Level) {
	sort.Slice(c.levels, func(i, j int) bool { return c.levels[i].concurrency < c.levels[j].concurrency })
	kept := c.levels[:0]
	for i := range c.levels {
		l := c.levels[i]
		ki := slices.IndexFunc(analysed, func(k knee.Level) bool { return k.Concurrency == l.concurrency })
		if ki < 0 {
			continue
		}
		kl := analysed[ki]
		l.ops = band{Median: kl.QPS, Low: kl.QPSLow, High: kl.QPSHigh, N: kl.Trials}
		if kl.P99Ms != nil {
			l.p99 = *kl.P99Ms
		}
		var calls, conns, p50 []float64
		for _, s := range l.steps {
			calls = append(calls, s.CallsPerS)
			conns = append(conns, runinfo.Connections(s))
			if s.Latency.P50 > 0 {
				p50 = append(p50, s.Latency.P50)
			}
		}
		l.calls = stats.Median(calls)
		l.conns = math.Round(stats.Median(conns))
		l.inFlight = float64(c.clients * l.concurrency)
		if len(p50) > 0 {
			l.p50 = stats.Median(p50) // 0 when no step reported one
		}
		kept = append(kept, l)
	}
	c.levels = kept
}

// curveLabel is the legend text: target, pool setting, and only the
// dimensions that actually vary (workload, clients, run).
func curveLabel(r *results.Results, c *curve, multiWorkload, dupTarget bool) string {
	var b strings.Builder
	if dupTarget {
		b.WriteString(runinfo.RunName(r))
		b.WriteString(": ")
	}
	b.WriteString(c.target)
	b.WriteString(" · pool=")
	b.WriteString(c.pool)
	if c.clients > 1 {
		b.WriteString(" · clients=")
		b.WriteString(strconv.Itoa(c.clients))
	}
	if multiWorkload && c.workload != "" {
		b.WriteString(" · ")
		b.WriteString(c.workload)
	}
	return b.String()
}

func countWorkloads(rs []*results.Results) int {
	seen := map[string]bool{}
	for _, r := range rs {
		for i := range r.Steps {
			seen[r.Steps[i].Workload] = true
		}
	}
	return len(seen)
}

// levelAt returns the curve's level at concurrency c, or nil.
func (c *curve) levelAt(conc int) *level {
	for i := range c.levels {
		if c.levels[i].concurrency == conc {
			return &c.levels[i]
		}
	}
	return nil
}

// peakOps is the curve's highest median ops/s: the analysis's peak when
// it has a report, else the first level with the highest median.
func (c *curve) peakOps() (float64, *level) {
	if c.report != nil && c.report.Peak.Concurrency > 0 {
		if l := c.levelAt(c.report.Peak.Concurrency); l != nil {
			return l.ops.Median, l
		}
	}
	var best float64
	var bl *level
	for i := range c.levels {
		if c.levels[i].ops.Median > best {
			best, bl = c.levels[i].ops.Median, &c.levels[i]
		}
	}
	return best, bl
}
