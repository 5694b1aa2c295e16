package plot

import (
	"fmt"
	"image/color"
	"maps"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// figRouterPool is the routers' pools to the shards against connections
// per client.
const figRouterPool = "router-pool"

// routerPoolFig draws, per target, the busiest router pool to a shard
// host in each step (the most in use in one task-executor pool, over
// the routers and shard hosts; analysis.RouterPools) against connections
// per client, the median over the trials at each x, with the step's
// bound at each point and ShardingTaskExecutorPoolMaxSize as a dashed
// line where the routers set one. A pool that reaches that line while
// the clients add connections is the routers' limit, not the shards'.
func routerPoolFig(rs []*results.Results) (Figure, bool) {
	rows := analysis.RouterPools(rs)
	if len(rows) == 0 {
		return Figure{}, false
	}
	// Per pool where any step says it (what MaxSize caps); else, where the
	// routers list no pools and their number is unknown, all of a router's
	// connections to the host, which no setting caps as such.
	perPool := slices.ContainsFunc(rows, func(r analysis.RouterPool) bool { return r.PerPoolInUse != nil })
	use := func(r analysis.RouterPool) *float64 {
		if perPool {
			return r.PerPoolInUse
		}
		return r.InUse
	}
	type stepKey struct {
		target, workload           string
		conc, pool, trial, clients int
	}
	busiest := map[stepKey]float64{}
	perClient := map[stepKey]int{}
	bound := map[stepKey]string{}
	maxSize := map[string]float64{}
	var targets []string
	for _, r := range rows {
		v := use(r)
		if v == nil {
			continue
		}
		k := stepKey{r.Target, r.Workload, r.Concurrency, r.Pool, r.Trial, r.Clients}
		busiest[k] = max(busiest[k], *v)
		perClient[k], bound[k] = r.PerClient, r.Bound
		if r.MaxSize != nil && perPool {
			maxSize[r.Target] = max(maxSize[r.Target], *r.MaxSize)
		}
		if !slices.Contains(targets, r.Target) {
			targets = append(targets, r.Target)
		}
	}
	if len(busiest) == 0 {
		return Figure{}, false
	}
	ylabel := "in use, busiest router pool to a shard host"
	if !perPool {
		ylabel = "in use, a router's connections to a shard host"
	}
	d := newDrawing("connections per client", ylabel)
	d.p.Y.Min = 0
	top := 0.0
	for i, t := range targets {
		byX := map[int][]float64{}
		bounds := map[int][]string{}
		for k, v := range busiest {
			if k.target == t {
				x := perClient[k]
				byX[x] = append(byX[x], v)
				bounds[x] = append(bounds[x], bound[k])
			}
		}
		clr, g := seriesColor(i), seriesGlyph(i)
		sd := seriesData{Name: t, Role: "router pool in use"}
		var xys plotter.XYs
		for _, x := range slices.Sorted(maps.Keys(byX)) {
			y := stats.Median(byX[x])
			xys = append(xys, plotter.XY{X: float64(x), Y: y})
			slices.Sort(bounds[x])
			sd.Points = append(sd.Points, dataPoint{X: float64(x), Y: round6(y), N: len(byX[x]), Label: textfmt.List(slices.Compact(bounds[x]), ", ")})
			top = max(top, y)
		}
		d.ann.lines = append(d.ann.lines, xyPairs(xys))
		d.curve(xys, clr, g, t)
		d.data = append(d.data, sd)
		if m, ok := maxSize[t]; ok {
			lo, hi := xys[0].X, xys[len(xys)-1].X
			lim := plotter.XYs{{X: lo, Y: m}, {X: hi, Y: m}}
			d.p.Add(line(lim, clr, 1.3, dashUSL))
			d.data = append(d.data, seriesData{Name: t, Role: "max size", Points: []dataPoint{{X: lo, Y: m}, {X: hi, Y: m}}})
			top = max(top, m)
		}
	}
	if len(maxSize) > 0 {
		d.lineLegend("ShardingTaskExecutorPoolMaxSize (dashed)", draw.LineStyle{Color: color.Gray{Y: 0x44}, Width: vg.Points(1.3), Dashes: dashUSL})
	}
	d.p.Y.Max = top * 1.2
	cap := "Per step, the most connections in use in one of a router's task-executor pools to one shard host (the host's in use over taskExecutorPoolSize where the router lists no pools), median over the trials; each point's label in the data is its steps' bound."
	switch {
	case !perPool:
		cap = "Per step, the most connections in use from one router to one shard host, over all its task-executor pools (the routers list no pools and their taskExecutorPoolSize was not read, so one pool's share, which ShardingTaskExecutorPoolMaxSize caps, is unknown), median over the trials; each point's label in the data is its steps' bound."
	case len(maxSize) == 0:
		cap += " No router's ShardingTaskExecutorPoolMaxSize is known to limit its pools (none set, or getParameter refused): no line to reach."
	}
	title := fmt.Sprintf("Routers' pools to the shards vs connections per client — %s", textfmt.List(targets, ", "))
	return d.figure(figRouterPool, title, cap), true
}
