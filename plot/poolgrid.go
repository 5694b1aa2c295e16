package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/poolsweep/poolsweep/internal/runinfo"
)

// viridis stops: a perceptually uniform, colour-blind-safe sequential
// scale that also prints in grey as a monotone ramp.
var viridis = []color.NRGBA{
	{0x44, 0x01, 0x54, 0xff}, {0x3b, 0x52, 0x8b, 0xff}, {0x21, 0x91, 0x8c, 0xff},
	{0x5e, 0xc9, 0x62, 0xff}, {0xfd, 0xe7, 0x25, 0xff},
}

func viridisAt(t float64) color.NRGBA {
	t = math.Max(0, math.Min(1, t))
	f := t * float64(len(viridis)-1)
	i := int(math.Floor(f))
	if i >= len(viridis)-1 {
		return viridis[len(viridis)-1]
	}
	a, b := viridis[i], viridis[i+1]
	u := f - float64(i)
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + u*(float64(y)-float64(x)))) }
	return color.NRGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

// cells draws a grid of coloured cells at integer coordinates with each
// value written inside, and outlines the best cell.
type cells struct {
	nx, ny int
	vals   [][]float64 // [y][x]; NaN where not measured
	text   [][]string
	shade  [][]float64 // [y][x] colour position 0..1 (1 = better)
	bestX  int
	bestY  int
}

func (g *cells) Plot(c draw.Canvas, plt *gplot.Plot) {
	trX, trY := plt.Transforms(&c)
	sty := textStyle(font.From(boldFont, annotSize), color.Black, draw.XCenter, draw.YCenter)
	for y := 0; y < g.ny; y++ {
		for x := 0; x < g.nx; x++ {
			r := vg.Rectangle{
				Min: vg.Point{X: trX(float64(x) - 0.5), Y: trY(float64(y) - 0.5)},
				Max: vg.Point{X: trX(float64(x) + 0.5), Y: trY(float64(y) + 0.5)},
			}
			if math.IsNaN(g.vals[y][x]) {
				c.SetColor(color.Gray{Y: 0xee})
				c.Fill(r.Path())
				continue
			}
			t := g.shade[y][x]
			c.SetColor(viridisAt(t))
			c.Fill(r.Path())
			s := sty
			s.Color = color.White
			if t > 0.6 {
				s.Color = color.Black
			}
			if g.nx <= 10 {
				c.FillText(s, vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}, g.text[y][x])
			}
		}
	}
	if g.bestX >= 0 {
		r := vg.Rectangle{
			Min: vg.Point{X: trX(float64(g.bestX)-0.5) + 1.5, Y: trY(float64(g.bestY)-0.5) + 1.5},
			Max: vg.Point{X: trX(float64(g.bestX)+0.5) - 1.5, Y: trY(float64(g.bestY)+0.5) - 1.5},
		}
		c.StrokeLines(draw.LineStyle{Color: color.NRGBA{0xD5, 0x5E, 0x00, 0xff}, Width: vg.Points(3)},
			[]vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min})
	}
}

func (g *cells) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(g.nx) - 0.5, -0.5, float64(g.ny) - 0.5
}

// gridSet is the curves of one target × workload × clients whose pools are
// fixed numbers: together they cover a C × P grid.
type gridSet struct {
	curves []*curve
	cs, ps []int
}

func (fc *figContext) gridSets() []gridSet {
	type key struct {
		file             int
		target, workload string
		clients          int
	}
	sets := map[key]*gridSet{}
	var order []key
	for _, c := range fc.curves {
		if r := runinfo.PoolRank(c.pool); r < 0 || r == math.MaxInt || len(c.levels) < 2 {
			continue
		}
		k := key{c.file, c.target, c.workload, c.clients}
		if sets[k] == nil {
			sets[k] = &gridSet{}
			order = append(order, k)
		}
		sets[k].curves = append(sets[k].curves, c)
	}
	var out []gridSet
	for _, k := range order {
		g := sets[k]
		if len(g.curves) < 2 {
			continue
		}
		var cs, ps []int
		for _, c := range g.curves {
			p, _ := strconv.Atoi(c.pool)
			ps = append(ps, p)
			for _, l := range c.levels {
				cs = append(cs, l.concurrency)
			}
		}
		g.cs, g.ps = sortedInts(cs), sortedInts(ps)
		if len(g.cs) >= 2 && len(g.ps) >= 2 {
			out = append(out, *g)
		}
	}
	return out
}

func (fc *figContext) poolGrids() ([]Figure, string) {
	sets := fc.gridSets()
	if len(sets) == 0 {
		return nil, "skipped: no C × P grid (needs two or more fixed pool sizes over the same concurrencies)"
	}
	var figs []Figure
	for _, g := range sets {
		name := figPoolGrid
		if len(sets) > 1 {
			name += "-" + slug(shortLabel(g.curves[0])+"-"+g.curves[0].workload)
		}
		figs = append(figs, fc.poolGrid(name, g))
	}
	return figs, ""
}

func (fc *figContext) poolGrid(name string, g gridSet) Figure {
	nx, ny := len(g.cs), len(g.ps)
	ops := newCells(nx, ny)
	p99 := newCells(nx, ny)
	c0 := g.curves[0]
	dOps := seriesData{Name: shortLabel(c0), Role: "ops/s grid"}
	dP99 := seriesData{Name: shortLabel(c0), Role: "p99 grid"}
	bestV, bx, by := -1.0, -1, -1
	for _, c := range g.curves {
		pv, _ := strconv.Atoi(c.pool)
		y := slices.Index(g.ps, pv)
		for i := range c.levels {
			l := &c.levels[i]
			x := slices.Index(g.cs, l.concurrency)
			ops.vals[y][x] = l.ops.Median
			ops.text[y][x] = cellNumber(l.ops.Median)
			dOps.Points = append(dOps.Points, dataPoint{X: float64(l.concurrency), Y: float64(pv), Z: round6(l.ops.Median), Low: round6(l.ops.Low), High: round6(l.ops.High), N: l.ops.N})
			if l.p99 > 0 {
				p99.vals[y][x] = l.p99
				p99.text[y][x] = strings.TrimSuffix(fmtMs(l.p99), " ms")
				dP99.Points = append(dP99.Points, dataPoint{X: float64(l.concurrency), Y: float64(pv), Z: round6(l.p99), N: len(l.steps)})
			}
			if l.ops.Median > bestV {
				bestV, bx, by = l.ops.Median, x, y
			}
		}
	}
	slices.SortFunc(dOps.Points, cmpXY)
	slices.SortFunc(dP99.Points, cmpXY)
	// Brighter is better in both panels: throughput scales up linearly,
	// p99 scales down on a log scale (it spans decades).
	ops.shadeBy(func(v, lo, hi float64) float64 { return (v - lo) / (hi - lo) })
	p99.shadeBy(func(v, lo, hi float64) float64 { return 1 - math.Log(v/lo)/math.Log(hi/lo) })
	ops.bestX, ops.bestY, p99.bestX, p99.bestY = bx, by, bx, by

	xt, yt := indexTicks(g.cs), indexTicks(g.ps)
	mk := func(title string, cl *cells) *gplot.Plot {
		p := newPanel("concurrency per client (C)", "maxPoolSize (P)")
		p.Title.Text = title
		p.Add(cl)
		p.X.Tick.Marker, p.Y.Tick.Marker = xt, yt
		p.X.Padding, p.Y.Padding = 0, 0
		return p
	}
	pt := mk("throughput (ops/s)", ops)
	pl := mk("p99 latency per call (ms)", p99)
	title := fmt.Sprintf("Pool grid — %s", fc.subject(g.curves))
	marks := []mark{}
	if bx >= 0 {
		lbl := fmt.Sprintf("best %s ops/s at C=%d, P=%d", humanNumber(bestV), g.cs[bx], g.ps[by])
		if v := p99.vals[by][bx]; !math.IsNaN(v) {
			lbl += " (p99 " + fmtMs(v) + ")"
		}
		title += ": " + lbl
		marks = append(marks, mark{Kind: "best", Series: shortLabel(c0), X: float64(g.cs[bx]), Y: float64(g.ps[by]), Label: lbl})
	}
	return Figure{
		Name: name, Title: wrapTitle(title),
		Caption: "Brighter is better in both panels; the outlined cell has the highest median throughput. Grey: not measured.",
		Panels:  []*gplot.Plot{pt, pl},
		Data: figureData{Name: name, Title: title, XLabel: "concurrency per client (C)", YLabel: "maxPoolSize (P)",
			Series: []seriesData{dOps, dP99}, Marks: marks},
	}
}

// cellNumber writes a grid cell's throughput with enough digits to tell
// neighbouring cells apart: 1183 rather than 1.2k.
func cellNumber(v float64) string {
	if math.Abs(v) < 1e4 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return humanNumber(v)
}

func cmpXY(a, b dataPoint) int {
	if a.Y != b.Y {
		return cmpF(a.Y, b.Y)
	}
	return cmpF(a.X, b.X)
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func newCells(nx, ny int) *cells {
	g := &cells{nx: nx, ny: ny, bestX: -1, bestY: -1}
	for y := 0; y < ny; y++ {
		v := make([]float64, nx)
		for x := range v {
			v[x] = math.NaN()
		}
		g.vals = append(g.vals, v)
		g.text = append(g.text, make([]string, nx))
		g.shade = append(g.shade, make([]float64, nx))
	}
	return g
}

// shadeBy sets each cell's colour position from its value and the grid's
// range; a grid of equal values is shaded mid-scale.
func (g *cells) shadeBy(f func(v, lo, hi float64) float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range g.vals {
		for _, v := range row {
			if !math.IsNaN(v) && v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	for y, row := range g.vals {
		for x, v := range row {
			switch {
			case math.IsNaN(v) || v <= 0:
			case hi <= lo:
				g.shade[y][x] = 0.5
			default:
				g.shade[y][x] = f(v, lo, hi)
			}
		}
	}
}

func indexTicks(vs []int) gplot.ConstantTicks {
	ts := make(gplot.ConstantTicks, len(vs))
	for i, v := range vs {
		ts[i] = gplot.Tick{Value: float64(i), Label: strconv.Itoa(v)}
	}
	return ts
}

// slug makes a file-name-safe fragment.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		ok := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9')
		if ok {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
