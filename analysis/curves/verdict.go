package curves

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// verdict words the comparison in one or two sentences: the candidate's
// peak against the baseline's (and per node), knee against knee, and
// which answers faster where, e.g. "sharded (3 shards, 1 router) carries
// 2.9× [2.8, 3.0] standalone's peak, 0.97 per shard; it needs 16 workers
// per client (48 connections per router) to get there, against 4; below
// 2,800 ops/s standalone answers faster (p99 13.7 ms against 15.6 ms)."
func verdict(c *Comparison) string {
	b, cn := textfmt.Escape(c.Base.Name), textfmt.Escape(c.Cand.Name)
	if c.BasePeak.OpsPerS.Value <= 0 || c.CandPeak.OpsPerS.Value <= 0 {
		return fmt.Sprintf("%s against %s: no peak measured on both sides.", cn, b)
	}
	r := c.PeakRatio
	parts := []string{}
	s := fmt.Sprintf("%s (%s) carries %s× %s's peak", cn, Describe(c.Cand.Deployment), Ratio(r.Value), b)
	if r.Has() {
		s = fmt.Sprintf("%s (%s) carries %s× [%s, %s] %s's peak", cn, Describe(c.Cand.Deployment), Ratio(r.Value), Ratio(*r.Low), Ratio(*r.High), b)
	}
	if pn := c.PerNodeRatio; pn.Value > 0 && (c.Base.Deployment.Nodes > 1 || c.Cand.Deployment.Nodes > 1) {
		s += fmt.Sprintf(", %s per %s", Ratio(pn.Value), nodeWord(c.Cand.Deployment))
	}
	switch {
	case !r.Has() && c.NoInterval != "":
		s += " (no interval: " + textfmt.Escape(c.NoInterval) + ")"
	case !r.Has():
		s += " (no interval: not tested)"
	case *r.High < 1:
		s += fmt.Sprintf(": it loses, %s carries more (%s ops/s against %s)", b,
			textfmt.Thousands(c.BasePeak.OpsPerS.Value), textfmt.Thousands(c.CandPeak.OpsPerS.Value))
	case !r.Excludes(1):
		s += ": the peaks do not differ significantly"
	}
	parts = append(parts, s)
	if w := whyPhrase(c); w != "" {
		parts = append(parts, w)
	}
	parts = append(parts, kneePhrase(c))
	if x := crossPhrase(c); x != "" {
		parts = append(parts, x)
	}
	return strings.Join(parts, "; ") + "."
}

// kneePhrase sets the candidate's knee against the baseline's.
func kneePhrase(c *Comparison) string {
	bk, ck := c.BaseKnee, c.CandKnee
	switch {
	case !bk.Found && !ck.Found:
		return "neither shows a knee within the tested range"
	case !ck.Found:
		return fmt.Sprintf("it shows no knee within the tested range, against %s workers per client for %s", strconv.Itoa(bk.Concurrency), textfmt.Escape(c.Base.Name))
	case !bk.Found:
		return fmt.Sprintf("its knee is at %d workers per client%s; %s shows none within the tested range", ck.Concurrency, connsPhrase(ck, c.Cand.Deployment), textfmt.Escape(c.Base.Name))
	}
	lead := "it needs %d workers per client%s to get there, against %d"
	if !c.PeakRatio.Has() || *c.PeakRatio.Low <= 1 {
		lead = "its knee is at %d workers per client%s, against %d"
	}
	return fmt.Sprintf(lead, ck.Concurrency, connsPhrase(ck, c.Cand.Deployment), bk.Concurrency)
}

func connsPhrase(k KneeAt, d Deployment) string {
	if k.PerHost <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%d connections per %s)", k.PerHost, HostWord(d))
}

// crossPhrase says which side answers faster at matched throughput, and
// from where.
func crossPhrase(c *Comparison) string {
	x := c.Crossover
	if x == nil {
		if len(c.Matched) == 0 {
			return ""
		}
		return "neither answers significantly faster at matched throughput"
	}
	w := textfmt.Escape(x.Better)
	below := ""
	if x.Below != nil {
		other := x.Below.Better
		ol, wl := x.Below.Base, x.Below.Cand
		if other != c.Base.Name {
			ol, wl = wl, ol
		}
		below = fmt.Sprintf("%s answers faster (p99 %s ms against %s ms at %s ops/s)", textfmt.Escape(other),
			textfmt.Ms(ol.P99Ms), textfmt.Ms(wl.P99Ms), textfmt.Thousands(x.Below.OpsPerS))
	}
	switch {
	case x.AtPeak && below != "":
		return fmt.Sprintf("beyond %s ops/s only %s carries the load; below, %s", textfmt.Thousands(x.OpsPerS), w, below)
	case x.AtPeak:
		return fmt.Sprintf("beyond %s ops/s only %s carries the load; below, neither answers significantly faster", textfmt.Thousands(x.OpsPerS), w)
	case below != "":
		return fmt.Sprintf("below %s ops/s %s", textfmt.Thousands(x.OpsPerS), below)
	case x.Everywhere && len(c.Matched) > 0:
		m := c.Matched[len(c.Matched)-1]
		wl, ol := m.Base, m.Cand
		if x.Better != c.Base.Name {
			wl, ol = ol, wl
		}
		return fmt.Sprintf("%s answers faster at every matched throughput (p99 %s ms against %s ms at %s ops/s)", w,
			textfmt.Ms(wl.P99Ms), textfmt.Ms(ol.P99Ms), textfmt.Thousands(m.OpsPerS))
	}
	return fmt.Sprintf("from %s ops/s on %s answers faster; below, neither significantly", textfmt.Thousands(x.OpsPerS), w)
}

// Title names a comparison: "sharded against standalone" plus the
// workload and, when not the default, the pool setting and clients.
func (c *Comparison) Title() string {
	r := c.Base.Report
	t := fmt.Sprintf("%s against %s (%s", textfmt.Escape(c.Cand.Name), textfmt.Escape(c.Base.Name), textfmt.Escape(c.Base.label))
	if r.Pool != "match" {
		t += ", pool=" + textfmt.Escape(r.Pool)
	}
	if r.Clients > 1 {
		t += fmt.Sprintf(", %d clients", r.Clients)
	}
	return t + ")"
}

// Describe names a deployment in a few words: "3 shards, 1 router",
// "1 node", "replica set, 2 members serving".
func Describe(d Deployment) string {
	switch d.Topology {
	case "sharded":
		return plural(d.Nodes, "shard") + ", " + plural(d.Routers, "router")
	case "standalone":
		return "1 node"
	case "replset":
		return "replica set, " + plural(d.Nodes, "member") + " serving"
	}
	if d.Nodes > 0 {
		return plural(d.Nodes, "node")
	}
	return "topology unknown"
}

func nodeWord(d Deployment) string {
	switch d.Topology {
	case "sharded":
		return "shard"
	case "replset":
		return "serving member"
	}
	return "node"
}

// HostWord is what a connection goes to: a cluster's routers, else hosts.
func HostWord(d Deployment) string {
	if d.Topology == "sharded" {
		return "router"
	}
	return "host"
}

func plural(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return strconv.Itoa(n) + " " + w + "s"
}

// Ratio writes a ratio with two significant digits from 1 up, two
// decimals below: "2.9", "12", "0.97", "0.25".
func Ratio(v float64) string {
	switch a := math.Abs(v); {
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
