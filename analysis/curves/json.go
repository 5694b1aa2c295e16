package curves

import (
	"math"
	"strconv"
)

// Doc is a comparison as compare --format json (and analyze's JSON)
// carries it in "curves": snake_case, null where a value does not exist,
// numbers to 6 significant digits.
type Doc struct {
	Baseline     string                 `json:"baseline"`
	Candidate    string                 `json:"candidate"`
	Workload     string                 `json:"workload"`
	Pool         string                 `json:"pool"`
	Clients      int                    `json:"clients"`
	Deployments  docPair[docDeployment] `json:"deployments"`
	Peaks        docPair[docPeak]       `json:"peaks"`
	PeakRatio    docInterval            `json:"peak_ratio"`
	PerNodeRatio *docInterval           `json:"per_node_ratio"`
	Knee         docKnees               `json:"knee"`
	Latency      []docMatched           `json:"latency_at_matched_throughput"`
	Crossover    *docCrossover          `json:"crossover"`
	Table        []docRow               `json:"table"`
	// PeakBound is what bound each side near its peak; absent where
	// neither side's steps say one thing.
	PeakBound *docPair[*docPeakBound] `json:"peak_bound,omitempty"`
	Verdict   string                  `json:"verdict"`
	Notes     []string                `json:"notes,omitempty"`
}

type docPeakBound struct {
	Bound                string `json:"bound"`
	Steps                int    `json:"steps"`
	Of                   int    `json:"of"`
	ConnectionsPerClient int    `json:"connections_per_client"`
	Reason               string `json:"reason"`
}

func peakBoundDoc(b *PeakBound) *docPeakBound {
	if b == nil {
		return nil
	}
	return &docPeakBound{Bound: b.Bound, Steps: b.Steps, Of: b.Of, ConnectionsPerClient: b.PerClient, Reason: b.Reason}
}

type docPair[T any] struct {
	Baseline  T `json:"baseline"`
	Candidate T `json:"candidate"`
}

type docDeployment struct {
	Topology string `json:"topology"`
	Nodes    int    `json:"nodes"`
	Routers  int    `json:"routers,omitempty"`
	Hosts    int    `json:"hosts"`
}

type docInterval struct {
	Value float64  `json:"value"`
	Low   *float64 `json:"low"`
	High  *float64 `json:"high"`
}

type docPeak struct {
	Concurrency int         `json:"concurrency"`
	OpsPerS     docInterval `json:"ops_per_s"`
	CallsPerS   *float64    `json:"calls_per_s"`
}

type docKnee struct {
	Found              bool     `json:"found"`
	Concurrency        int      `json:"concurrency"`
	ConnectionsPerClnt int      `json:"connections_per_client"`
	ConnectionsPerHost *int     `json:"connections_per_host"`
	OpsPerS            float64  `json:"ops_per_s"`
	ServerCPUPerOpUS   *float64 `json:"server_cpu_per_op_us"`
	Confidence         string   `json:"confidence"`
}

type docKnees struct {
	Baseline         docKnee  `json:"baseline"`
	Candidate        docKnee  `json:"candidate"`
	ConnectionsRatio *float64 `json:"connections_ratio"`
}

type docLatency struct {
	P50Ms     float64  `json:"p50_ms"`
	P99Ms     float64  `json:"p99_ms"`
	P99LowMs  float64  `json:"p99_low_ms"`
	P99HighMs *float64 `json:"p99_high_ms"` // null: unbounded (past the side's peak)
}

type docMatched struct {
	Throughput float64    `json:"throughput"`
	Baseline   docLatency `json:"baseline"`
	Candidate  docLatency `json:"candidate"`
	Faster     *string    `json:"faster"`
}

type docCrossover struct {
	Throughput float64     `json:"throughput"`
	Better     string      `json:"better"`
	Everywhere bool        `json:"everywhere"`
	Below      *docMatched `json:"below"`
}

type docCell struct {
	Concurrency int      `json:"concurrency"`
	OpsPerS     float64  `json:"ops_per_s"`
	CallsPerS   *float64 `json:"calls_per_s"`
}

type docRow struct {
	ConnectionsPerClient int      `json:"connections_per_client"`
	Clients              int      `json:"clients"`
	Baseline             *docCell `json:"baseline"`
	Candidate            *docCell `json:"candidate"`
}

// JSON is the comparison's JSON form.
func (c *Comparison) JSON() Doc {
	d := Doc{
		Baseline: c.Base.Name, Candidate: c.Cand.Name, Workload: c.Base.label, Pool: c.Base.Report.Pool, Clients: c.Base.Report.Clients,
		Deployments: docPair[docDeployment]{deploymentDoc(c.Base.Deployment), deploymentDoc(c.Cand.Deployment)},
		Peaks:       docPair[docPeak]{peakDoc(c.BasePeak), peakDoc(c.CandPeak)},
		PeakRatio:   intervalDoc(c.PeakRatio),
		Knee:        docKnees{Baseline: kneeDoc(c.BaseKnee), Candidate: kneeDoc(c.CandKnee)},
		Latency:     []docMatched{},
		Table:       []docRow{},
		Verdict:     c.Verdict,
		PeakBound:   peakBoundPair(c),
		Notes:       c.Notes,
	}
	if c.PerNodeRatio.Value > 0 {
		i := intervalDoc(c.PerNodeRatio)
		d.PerNodeRatio = &i
	}
	if c.KneeConnRatio > 0 {
		d.Knee.ConnectionsRatio = r6(c.KneeConnRatio)
	}
	for _, m := range c.Matched {
		d.Latency = append(d.Latency, matchedDoc(m))
	}
	if x := c.Crossover; x != nil {
		d.Crossover = &docCrossover{Throughput: v6(x.OpsPerS), Better: x.Better, Everywhere: x.Everywhere}
		if x.Below != nil {
			m := matchedDoc(*x.Below)
			d.Crossover.Below = &m
		}
	}
	for _, r := range c.Table {
		d.Table = append(d.Table, docRow{ConnectionsPerClient: r.PerClient, Clients: r.Clients, Baseline: cellDoc(r.Base), Candidate: cellDoc(r.Cand)})
	}
	return d
}

func deploymentDoc(d Deployment) docDeployment {
	return docDeployment{Topology: d.Topology, Nodes: d.Nodes, Routers: d.Routers, Hosts: d.Hosts}
}

func intervalDoc(i Interval) docInterval {
	return docInterval{Value: v6(i.Value), Low: p6(i.Low), High: p6(i.High)}
}

func peakDoc(p Peak) docPeak {
	d := docPeak{Concurrency: p.Concurrency, OpsPerS: intervalDoc(p.OpsPerS)}
	if p.CallsPerS > 0 {
		d.CallsPerS = r6(p.CallsPerS)
	}
	return d
}

func kneeDoc(k KneeAt) docKnee {
	d := docKnee{Found: k.Found, Concurrency: k.Concurrency, ConnectionsPerClnt: k.PerClient, OpsPerS: v6(k.OpsPerS),
		ServerCPUPerOpUS: p6(k.CPUPerOpUS), Confidence: k.Confidence}
	if k.PerHost > 0 {
		n := k.PerHost
		d.ConnectionsPerHost = &n
	}
	return d
}

func latencyDoc(l Latency) docLatency {
	d := docLatency{P50Ms: v6(l.P50Ms), P99Ms: v6(l.P99Ms), P99LowMs: v6(l.P99Low)}
	if !math.IsInf(l.P99High, 1) {
		d.P99HighMs = r6(l.P99High)
	}
	return d
}

func matchedDoc(m Matched) docMatched {
	d := docMatched{Throughput: v6(m.OpsPerS), Baseline: latencyDoc(m.Base), Candidate: latencyDoc(m.Cand)}
	if m.Better != "" {
		b := m.Better
		d.Faster = &b
	}
	return d
}

func cellDoc(c *Cell) *docCell {
	if c == nil {
		return nil
	}
	d := &docCell{Concurrency: c.Concurrency, OpsPerS: v6(c.OpsPerS)}
	if c.CallsPerS > 0 {
		d.CallsPerS = r6(c.CallsPerS)
	}
	return d
}

// v6 rounds to 6 significant digits, as compare's JSON does.
func v6(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return r
}

func r6(v float64) *float64 {
	r := v6(v)
	return &r
}

func p6(p *float64) *float64 {
	if p == nil {
		return nil
	}
	return r6(*p)
}

func peakBoundPair(c *Comparison) *docPair[*docPeakBound] {
	if c.BaseBound == nil && c.CandBound == nil {
		return nil
	}
	return &docPair[*docPeakBound]{Baseline: peakBoundDoc(c.BaseBound), Candidate: peakBoundDoc(c.CandBound)}
}
