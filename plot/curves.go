package plot

import (
	"cmp"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/analysis/knee"
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

// stepConnections is the step's measured connection count, or the planned
// K × min(C, P) when the runner did not record one.
func stepConnections(s *results.StepResult) float64 {
	if s.Connections > 0 {
		return float64(s.Connections)
	}
	k := max(s.Clients, 1)
	c := s.Concurrency
	if s.MaxPoolSize > 0 && s.MaxPoolSize < c {
		c = s.MaxPoolSize
	}
	return float64(k * c)
}

// callsDiffer says the workload's calls hold several ops, so calls/s is a
// different number from ops/s and worth its own line.
func callsDiffer(s *results.StepResult) bool {
	return s.CallsPerS > 0 && s.OpsPerS/s.CallsPerS > 1.05
}

// buildCurves groups every step of rs into curves, one per series of the
// knee analysis: knee.FromResults over all files (as `poolsweep analyze`
// forms series), or over each file on its own when each is set (the two
// runs of an A/B pair). The order is stable: file, target as listed in the
// header, pool "match" first then by size, workload, clients. Each curve
// gets the matching knee report (target, workload when the report names
// one, pool and clients; with each, reports are handed out in file order)
// and its levels exactly as that report summarised them. A curve without a
// report is summarised by knee.Analyze itself, so every figure draws the
// analysis's numbers whether or not it marks a knee.
func buildCurves(rs []*results.Results, reports []knee.Report, each bool) []*curve {
	multiWorkload := countWorkloads(rs) > 1
	dupTarget := map[string]bool{}
	if each {
		dupTarget = duplicateTargets(rs)
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
			// Interrupted steps had their window cut short, and the target
			// failed during others; the knee analysis leaves them out too. The step table still lists them.
			// Open-loop steps are drawn by the open-* figures.
			if (s.Kind != "" && s.Kind != results.KindStep) || !s.Measured() || s.Mode == results.ModeOpen {
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
				rank[c] = rankKey{fi, rankOf(targetRank, s.Target)}
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
			cmp.Compare(poolRank(a.pool), poolRank(b.pool)), cmp.Compare(a.workload, b.workload), cmp.Compare(a.clients, b.clients))
	})
	used := make([]bool, len(reports))
	series := map[int][]knee.Series{} // by file with each, else all under -1
	for i, c := range curves {
		c.idx = i
		for ri := range reports {
			rep := &reports[ri]
			if used[ri] || rep.Target != c.target || rep.Pool != c.pool || max(rep.Clients, 1) != c.clients {
				continue
			}
			if rep.Workload != "" && c.workload != "" && rep.Workload != c.workload {
				continue
			}
			used[ri] = true
			c.report = rep
			break
		}
		levels := []knee.Level(nil)
		if c.report != nil {
			levels = c.report.Levels
		}
		if len(levels) == 0 {
			f := -1
			in := rs
			if each {
				f, in = c.file, rs[c.file:c.file+1]
			}
			if _, ok := series[f]; !ok {
				series[f] = knee.FromResults(in)
			}
			levels = analysedLevels(c, series[f])
		}
		finishCurve(c, levels)
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

// analysedLevels runs the knee analysis on the curve's series for its
// per-level summary (which does not depend on the knee options).
func analysedLevels(c *curve, series []knee.Series) []knee.Level {
	for _, s := range series {
		if s.Target == c.target && s.Workload == c.workload && s.Pool == c.pool && max(s.Clients, 1) == c.clients {
			return knee.Analyze(s, knee.DefaultOptions()).Levels
		}
	}
	return nil
}

func rankOf(m map[string]int, k string) int {
	if r, ok := m[k]; ok {
		return r
	}
	return math.MaxInt
}

// poolRank sorts "match" first and numeric pools by size.
func poolRank(p string) int {
	if p == "match" {
		return -1
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		return math.MaxInt
	}
	return n
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
			conns = append(conns, stepConnections(s))
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
		b.WriteString(runName(r))
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

// runName tells result files apart: the run id, else the directory name,
// else the file name.
func runName(r *results.Results) string {
	if r.Header.RunID != "" {
		return r.Header.RunID
	}
	if d := filepath.Base(filepath.Dir(r.Path)); d != "." && d != "/" {
		return d
	}
	return filepath.Base(r.Path)
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

// duplicateTargets reports target names that occur in more than one file.
func duplicateTargets(rs []*results.Results) map[string]bool {
	files := map[string]int{}
	for _, r := range rs {
		seen := map[string]bool{}
		for i := range r.Steps {
			seen[r.Steps[i].Target] = true
		}
		for t := range seen {
			files[t]++
		}
	}
	out := map[string]bool{}
	for t, n := range files {
		if n > 1 {
			out[t] = true
		}
	}
	return out
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

// serverKindNote says what kind of server a target is when it is not a real
// MongoDB, because its numbers must not be read as MongoDB's.
func serverKindNote(h *results.TargetHeader) string {
	if h == nil {
		return ""
	}
	switch h.ServerKind {
	case "ferretdb":
		return "embedded FerretDB"
	case "simulator":
		return "simulated"
	}
	return ""
}
