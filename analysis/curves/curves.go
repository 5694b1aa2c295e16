// Package curves compares two deployments, or two series of one (read
// preference primary against secondaryPreferred, write concern w:1
// against majority), curve against curve: each side's peak with its
// interval and their ratio, the ratio per data-bearing node, knee
// against knee (analysis/knee's, the one knee definition), latency at
// matched throughput, the crossover, the cost at each knee, the seeds'
// table and a verdict in plain words. A cluster and a single node reach
// their knees at different concurrency, so pairing steps at equal
// concurrency answers the wrong question; this answers "which
// deployment, and by how much". Pure functions of decoded results and
// knee reports; it never renders: analysis/render draws the comparisons
// (text, short, Markdown, a report's cells), and JSON gives their
// machine-readable form.
package curves

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/analysis/steady"
)

// defaultAlpha is the significance level when compare is given 0.
const defaultAlpha = 0.05

// Side is one curve: a target's series (or one value of a series axis)
// with its knee report and its levels.
type Side struct {
	// Name is the target's name, or the series' value on its axis
	// ("secondaryPreferred", "w:majority") when the sides share a target.
	Name       string
	Deployment Deployment
	// Report is the series' knee analysis: its peak and knee are the ones
	// compared (never decided again here).
	Report knee.Report
	Levels []Level // by concurrency, ascending

	// RunIDs are the runs the side's steps come from: two sides of one
	// run need no between-run noise floor (compareAcross).
	RunIDs []string
	// ServerKind is the target's (mongodb, ferretdb, simulator; "" when
	// not recorded): it sets the default floor (steady.RunNoisePct).
	ServerKind string

	// The series' values on the axes and its label without them, for
	// pairing (Pairs).
	readPref, writeConcern, label string
}

// Deployment is what serves a side: its topology and how many nodes
// carry the data.
type Deployment struct {
	Topology string // standalone, replset, sharded or "" when unknown
	// Nodes are the data-bearing nodes that served the side: a cluster's
	// shards, 1 for a standalone, the members a replica set's reads and
	// writes reached (by the read preference). 0 when unknown.
	Nodes int
	// Routers are a cluster's mongos routers; 0 otherwise.
	Routers int
	// Hosts are the servers the clients kept a pool to (routers, members,
	// the standalone): what "connections per host" is per.
	Hosts int
}

// Level is one concurrency level of a side, over its trials.
type Level struct {
	Concurrency int // workers per client
	Clients     int
	// PerClient is the connections one client used: min(concurrency,
	// maxPoolSize), the seeds' connectionsPerHost.
	PerClient int
	// PerHost is the most connections open to one host (median over the
	// trials); 0 when unknown.
	PerHost   int
	Trials    int
	OpsPerS   float64 // median over the trials
	CallsPerS float64 // median; 0 when unknown
	// LogSE is the standard error of ln(OpsPerS), with DF degrees of
	// freedom: from the window's batch means for a level measured once
	// (the relative half-width of calls/s applies to ops/s), from the
	// trials' spread for several. HasSE is false when neither exists.
	LogSE, DF float64
	HasSE     bool
	// NoSE says why a level has no standard error (a starved load host,
	// a window too short for its call time); "" when it has one.
	NoSE string
	// P50Ms and P99Ms are the per-call latency (medians over the trials);
	// P50Lo and P50Hi the trials' range, P99Lo and P99Hi the range of the
	// trials' p99 intervals (each from its number of calls, p99Band).
	// HasLatency is false when no call completed.
	P50Ms, P50Lo, P50Hi float64
	P99Ms, P99Lo, P99Hi float64
	HasLatency          bool
	// CPUPerOpUS is the server CPU per operation in µs (the servers' and,
	// in a cluster, the shards' CPU over the ops); nil when not reported.
	CPUPerOpUS *float64

	// bounds are the trials' bound labels, with their reasons.
	bounds []stepBound
}

// Interval is a value with its confidence interval; Low and High are nil
// when there is no interval.
type Interval struct {
	Value     float64
	Low, High *float64
}

// Has says the interval exists.
func (i Interval) Has() bool { return i.Low != nil && i.High != nil }

// Excludes says the interval lies wholly above or below v.
func (i Interval) Excludes(v float64) bool {
	return i.Has() && (*i.Low > v || *i.High < v)
}

// Peak is a side's highest-throughput level with its interval.
type Peak struct {
	Concurrency int
	OpsPerS     Interval
	CallsPerS   float64
}

// KneeAt is a side's knee (the knee report's) and what it costs.
type KneeAt struct {
	Found       bool
	Concurrency int // workers per client; 0 when not found
	PerClient   int // connections per client
	PerHost     int // connections per host; 0 when unknown
	OpsPerS     float64
	CPUPerOpUS  *float64 // nil: not reported
	Confidence  string   // the knee report's
}

// Matched is both sides' latency at one throughput both carry.
type Matched struct {
	OpsPerS float64
	// Base and Cand are each side's interpolated latency; Better names the
	// side whose p99 is significantly lower there ("" when neither).
	Base, Cand Latency
	Better     string
}

// Latency is a side's interpolated latency at a matched throughput, with
// the p99 band its throughput interval and trials allow.
type Latency struct {
	P50Ms, P99Ms    float64
	P99Low, P99High float64 // +Inf: the side may be past its peak there
}

// Crossover is the lowest throughput from which one side is
// significantly better (lower p99 at matched throughput, and beyond the
// other's peak the only one that carries the load).
type Crossover struct {
	OpsPerS float64
	Better  string // the side better from OpsPerS on
	// Everywhere says Better is better at every matched throughput
	// measured: there is no lower region where the other side wins.
	Everywhere bool
	// AtPeak says OpsPerS is the other side's peak: Better is better only
	// by carrying what the other cannot.
	AtPeak bool
	// Below, when not nil, is where the other side is significantly
	// faster below the crossover (the highest such matched throughput).
	Below *Matched
}

// Comparison is one curve comparison of a baseline and a candidate.
type Comparison struct {
	Base, Cand Side
	Alpha      float64
	// RunNoisePct is the between-run noise floor the peak ratio's
	// interval holds (sides of different runs); 0 within one run.
	RunNoisePct float64
	BasePeak    Peak
	CandPeak    Peak
	// PeakRatio is the candidate's peak over the baseline's, with its
	// interval (on log scale); PerNodeRatio the same per data-bearing
	// node (zero Value when a side's nodes are unknown).
	PeakRatio    Interval
	PerNodeRatio Interval
	BaseKnee     KneeAt
	CandKnee     KneeAt
	// KneeConnRatio is the candidate's connections per host at its knee
	// over the baseline's; 0 when either is unknown.
	KneeConnRatio float64
	Matched       []Matched // at several throughputs up to the lower peak
	Crossover     *Crossover
	Table         []Row
	// NoInterval says, in a few words, why the peak ratio has no
	// interval (the first side whose peak has none); "" when it has one.
	NoInterval string
	// BaseBound and CandBound are what bound each side near its peak
	// (peakBoundOf); nil when its steps there say no one thing.
	BaseBound, CandBound *PeakBound
	Verdict              string
	Notes                []string
}

// compare compares the candidate's curve with the baseline's at
// significance alpha (0: defaultAlpha), with the between-run noise floor
// of the noisier side's server kind when they come from different runs.
func compare(base, cand Side, alpha float64) *Comparison {
	return compareAcross(base, cand, alpha, max(steady.RunNoisePct(base.ServerKind), steady.RunNoisePct(cand.ServerKind)))
}

// compareAcross is compare with a between-run noise floor of
// runNoisePct (one standard deviation of a run's level, in percent):
// when the sides come from different runs, each peak's variance also
// holds it, as compare's one-trial test does, since no window sees what
// moves a whole run. Within one run it does not apply.
func compareAcross(base, cand Side, alpha, runNoisePct float64) *Comparison {
	if !(alpha > 0 && alpha < 1) {
		alpha = defaultAlpha
	}
	c := &Comparison{Base: base, Cand: cand, Alpha: alpha}
	if !oneRun(base.RunIDs, cand.RunIDs) && runNoisePct > 0 {
		c.RunNoisePct = runNoisePct
		c.Notes = append(c.Notes, fmt.Sprintf("the sides are different runs: the peak ratio's interval holds a between-run noise floor of %g%% a side", runNoisePct))
	}
	var bl, cl *Level
	c.BasePeak, bl = peakOf(base, alpha)
	c.CandPeak, cl = peakOf(cand, alpha)
	if bl != nil && cl != nil {
		c.PeakRatio = ratio(*bl, *cl, alpha, c.RunNoisePct/100)
		if bn, cn := base.Deployment.Nodes, cand.Deployment.Nodes; bn > 0 && cn > 0 {
			c.PerNodeRatio = scale(c.PeakRatio, float64(bn)/float64(cn))
		}
	}
	for _, s := range []*Side{&base, &cand} {
		if lv := levelAt(*s, s.Report.Peak.Concurrency); lv != nil && !lv.HasSE {
			why := lv.NoSE
			if why == "" {
				why = "measured once without enough batch means (a window of 10 or more batches, or 2 or more trials, gives one)"
			}
			c.Notes = append(c.Notes, s.Name+"'s peak has no interval: "+why)
			if c.NoInterval == "" && lv.NoSE != "" {
				c.NoInterval = s.Name + "'s peak " + shortNoSE(lv.NoSE)
			}
		}
	}
	c.BaseKnee, c.CandKnee = kneeOf(base), kneeOf(cand)
	if c.BaseKnee.PerHost > 0 && c.CandKnee.PerHost > 0 {
		c.KneeConnRatio = float64(c.CandKnee.PerHost) / float64(c.BaseKnee.PerHost)
	}
	c.Matched, c.Crossover = matchLatency(c, alpha)
	c.Table = table(base, cand)
	c.BaseBound, c.CandBound = peakBoundOf(base), peakBoundOf(cand)
	c.Verdict = verdict(c)
	return c
}

// levelAt is s's level at concurrency n, nil when it has none.
func levelAt(s Side, n int) *Level {
	for i := range s.Levels {
		if s.Levels[i].Concurrency == n {
			return &s.Levels[i]
		}
	}
	return nil
}

// peakOf is the side's peak (the knee report's) with its interval.
func peakOf(s Side, alpha float64) (Peak, *Level) {
	lv := levelAt(s, s.Report.Peak.Concurrency)
	if lv == nil {
		return Peak{}, nil
	}
	p := Peak{Concurrency: lv.Concurrency, OpsPerS: Interval{Value: lv.OpsPerS}, CallsPerS: lv.CallsPerS}
	if lv.HasSE {
		q := tQuantile(lv.DF, alpha)
		lo, hi := lv.OpsPerS*math.Exp(-q*lv.LogSE), lv.OpsPerS*math.Exp(q*lv.LogSE)
		p.OpsPerS.Low, p.OpsPerS.High = &lo, &hi
	}
	return p, lv
}

// ratio is c's throughput over b's with a Welch interval on log values:
// ln c − ln b ± t·√(se_b² + se_c² + 2·floor²), Welch–Satterthwaite
// degrees of freedom (the floor, a between-run relative SD, taken as
// known: it adds to the variance and not to the degrees of freedom'
// denominator).
func ratio(b, c Level, alpha, floor float64) Interval {
	r := Interval{Value: c.OpsPerS / b.OpsPerS}
	if !b.HasSE || !c.HasSE || b.OpsPerS <= 0 || c.OpsPerS <= 0 {
		return r
	}
	vb, vc := b.LogSE*b.LogSE, c.LogSE*c.LogSE
	known := 2 * floor * floor
	se := math.Sqrt(vb + vc + known)
	df := welchDF(vb, b.DF, vc, c.DF)
	if known > 0 && !math.IsInf(df, 1) {
		// (vb+vc+known)² over the same denominator: more degrees of
		// freedom as the known part grows.
		df *= (vb + vc + known) * (vb + vc + known) / ((vb + vc) * (vb + vc))
	}
	q := tQuantile(df, alpha)
	lo, hi := r.Value*math.Exp(-q*se), r.Value*math.Exp(q*se)
	r.Low, r.High = &lo, &hi
	return r
}

// welchDF is the Welch–Satterthwaite degrees of freedom of a sum of two
// variances with df1 and df2 degrees of freedom.
func welchDF(v1, df1, v2, df2 float64) float64 {
	num := (v1 + v2) * (v1 + v2)
	den := 0.0
	if df1 > 0 {
		den += v1 * v1 / df1
	}
	if df2 > 0 {
		den += v2 * v2 / df2
	}
	if den == 0 {
		return math.Inf(1)
	}
	return num / den
}

// tQuantile is the two-sided Student t quantile at alpha (the normal's
// for infinite degrees of freedom).
func tQuantile(df, alpha float64) float64 {
	if math.IsInf(df, 1) || df > 1e6 {
		return distuv.UnitNormal.Quantile(1 - alpha/2)
	}
	if df < 1 {
		df = 1
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - alpha/2)
}

func scale(i Interval, f float64) Interval {
	o := Interval{Value: i.Value * f}
	if i.Has() {
		lo, hi := *i.Low*f, *i.High*f
		o.Low, o.High = &lo, &hi
	}
	return o
}

// kneeOf is the side's knee from its report, with its level's cost.
func kneeOf(s Side) KneeAt {
	k := s.Report.Knee
	out := KneeAt{Found: k.Found, Confidence: k.Confidence}
	if !k.Found {
		return out
	}
	out.Concurrency, out.OpsPerS = k.Concurrency, k.QPS
	if lv := levelAt(s, k.Concurrency); lv != nil {
		out.PerClient, out.PerHost, out.CPUPerOpUS = lv.PerClient, lv.PerHost, lv.CPUPerOpUS
	}
	return out
}

// oneRun says two sides come from the same single run.
func oneRun(a, b []string) bool {
	return len(a) == 1 && len(b) == 1 && a[0] == b[0]
}

// shortNoSE is a level's reason for no interval in the verdict's few
// words: a starved host, or too few batches.
func shortNoSE(why string) string {
	if strings.HasPrefix(why, "its load host was starved") {
		return "ran on a starved load host"
	}
	return "lacks enough independent batches"
}
