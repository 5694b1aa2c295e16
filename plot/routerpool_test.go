package plot

import (
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// TestRouterPoolFigure: the figure's data are, per target, the busiest
// router pool to a shard host at each connections-per-client level
// (median of the trials, the steps' bounds as labels) and MaxSize as a
// line; a run without routers gets no figure, and a note only when the
// figure is asked for by name.
func TestRouterPoolFigure(t *testing.T) {
	step := func(c, trial int, busiest float64, bound string) results.StepResult {
		n, ms := 2, 10.0
		return results.StepResult{Kind: results.KindStep, Target: "sharded", Workload: "api", PoolSetting: "match",
			Concurrency: c, MaxPoolSize: c, Clients: 1, Connections: c, Trial: trial, OpsPerS: 1000, CallsPerS: 1000, Bound: bound,
			Server: &results.ServerTelemetry{Hosts: map[string]*results.ServerSample{
				"m1:27017": {ConnPool: &results.ConnPoolCounts{ShardHosts: map[string]*results.RouterPoolHost{
					"db1:27018": {Pools: &n, BusiestInUse: &busiest},
					"db2:27018": {Pools: &n, BusiestInUse: new(busiest / 2)},
				}, Settings: &results.RouterPoolSettings{MaxSize: &ms}}},
			}}}
	}
	res := &results.Results{Header: results.RunHeader{Kind: results.KindRun}, Steps: []results.StepResult{
		step(4, 1, 3, "none"), step(4, 2, 5, "none"), step(4, 3, 4, "none"),
		step(16, 1, 10, "router_pool"), step(16, 2, 9.9, "router_pool"), step(16, 3, 10, "router_pool"),
	}}
	rs := []*results.Results{res}
	a := analysis.Of(rs, knee.Options{})
	figs, _, err := Figures(rs, a, Options{Figures: []string{figRouterPool}})
	if err != nil || len(figs) != 1 {
		t.Fatalf("figures = %d (%v), want the router-pool figure", len(figs), err)
	}
	d := figs[0].Data
	var in, lim *seriesData
	for i := range d.Series {
		switch d.Series[i].Role {
		case "router pool in use":
			in = &d.Series[i]
		case "max size":
			lim = &d.Series[i]
		}
	}
	if in == nil || len(in.Points) != 2 || in.Points[0] != (dataPoint{X: 4, Y: 4, N: 3, Label: "none"}) ||
		in.Points[1] != (dataPoint{X: 16, Y: 10, N: 3, Label: "router_pool"}) {
		t.Errorf("in use = %+v, want 4 at 4 connections per client, 10 at 16", in)
	}
	if lim == nil || lim.Points[0].Y != 10 {
		t.Errorf("max size line = %+v, want 10", lim)
	}

	// Routers that list no pools, their count not read: the host's in
	// use over all its pools, and no MaxSize line (it caps one pool).
	unlisted := &results.Results{Header: results.RunHeader{Kind: results.KindRun}, Steps: []results.StepResult{step(4, 1, 3, "none")}}
	for _, h := range unlisted.Steps[0].Server.Hosts {
		h.ConnPool.ShardHosts = map[string]*results.RouterPoolHost{"db1:27018": {InUse: new(7.0)}}
	}
	urs := []*results.Results{unlisted}
	figs, _, _ = Figures(urs, analysis.Of(urs, knee.Options{}), Options{Figures: []string{figRouterPool}})
	if len(figs) != 1 || len(figs[0].Data.Series) != 1 || figs[0].Data.Series[0].Points[0].Y != 7 || figs[0].Data.YLabel != "in use, a router's connections to a shard host" {
		t.Errorf("figure of unlisted pools = %+v, want the host's 7 in use over all pools, no max size line", figs)
	}

	plain := &results.Results{Header: results.RunHeader{Kind: results.KindRun}, Steps: []results.StepResult{step(4, 1, 3, "none")}}
	plain.Steps[0].Server = nil
	prs := []*results.Results{plain}
	figs, notes, _ := Figures(prs, analysis.Of(prs, knee.Options{}), Options{})
	for _, f := range figs {
		if f.Name == figRouterPool {
			t.Error("a run without routers has a router-pool figure")
		}
	}
	for _, n := range notes {
		if len(n) >= len(figRouterPool) && n[:len(figRouterPool)] == figRouterPool {
			t.Errorf("note %q for a figure not asked for", n)
		}
	}
	_, notes, _ = Figures(prs, analysis.Of(prs, knee.Options{}), Options{Figures: []string{figRouterPool}})
	if len(notes) == 0 {
		t.Error("no note for the router-pool figure asked for by name on a run without routers")
	}
}
