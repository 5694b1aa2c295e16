package plot

import (
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// annotation is a marker with a text label at a data point.
type annotation struct {
	X, Y  float64
	Text  string
	Color color.Color
	Glyph draw.GlyphDrawer // nil draws no marker
}

// annotations places every label of a panel together so that labels avoid
// each other, the data points and the panel's edges: each label tries a
// few positions around its point and takes the first that collides with
// nothing already placed.
type annotations struct {
	items     []annotation
	obstacles [][2]float64   // data points (x, y) the labels should not cover
	lines     [][][2]float64 // polylines (data coordinates) the labels should not cross
}

// lineObstacles samples polylines every few points in canvas space as small
// boxes, so a label is not placed across a curve.
func lineObstacles(lines [][][2]float64, trX, trY func(float64) vg.Length) []vg.Rectangle {
	var out []vg.Rectangle
	r := vg.Points(1.5)
	step := vg.Points(3)
	for _, ln := range lines {
		for i := 1; i < len(ln); i++ {
			a := vg.Point{X: trX(ln[i-1][0]), Y: trY(ln[i-1][1])}
			b := vg.Point{X: trX(ln[i][0]), Y: trY(ln[i][1])}
			d := vg.Length(math.Hypot(float64(b.X-a.X), float64(b.Y-a.Y)))
			n := int(d/step) + 1
			for k := 0; k <= n; k++ {
				f := vg.Length(float64(k) / float64(n))
				p := vg.Point{X: a.X + f*(b.X-a.X), Y: a.Y + f*(b.Y-a.Y)}
				out = append(out, vg.Rectangle{Min: vg.Point{X: p.X - r, Y: p.Y - r}, Max: vg.Point{X: p.X + r, Y: p.Y + r}})
			}
		}
	}
	return out
}

func (a *annotations) Plot(c draw.Canvas, plt *gplot.Plot) {
	trX, trY := plt.Transforms(&c)
	base := textStyle(font.From(sansFont, annotSize), color.Black, draw.XLeft, draw.YBottom)
	var placed, labels []vg.Rectangle
	for _, o := range a.obstacles {
		p := vg.Point{X: trX(o[0]), Y: trY(o[1])}
		r := vg.Points(3.5)
		placed = append(placed, vg.Rectangle{Min: vg.Point{X: p.X - r, Y: p.Y - r}, Max: vg.Point{X: p.X + r, Y: p.Y + r}})
	}
	placed = append(placed, lineObstacles(a.lines, trX, trY)...)
	// Every marker first, so no label hides another series' marker.
	for _, it := range a.items {
		if it.Glyph != nil {
			p := vg.Point{X: trX(it.X), Y: trY(it.Y)}
			r := vg.Points(7)
			labels = append(labels, vg.Rectangle{Min: vg.Point{X: p.X - r, Y: p.Y - r}, Max: vg.Point{X: p.X + r, Y: p.Y + r}})
		}
	}
	for _, it := range a.items {
		p := vg.Point{X: trX(it.X), Y: trY(it.Y)}
		if !c.Contains(p) {
			continue
		}
		if it.Glyph != nil {
			c.DrawGlyphNoClip(draw.GlyphStyle{Color: it.Color, Radius: vg.Points(6), Shape: it.Glyph}, p)
		}
		w := base.Width(it.Text)
		h := base.Height(it.Text)
		d := vg.Points(9)
		// Candidate lower-left corners: above right, above left, below
		// right, below left, then further up and down.
		cands := []vg.Point{
			{X: p.X + d, Y: p.Y + d/2}, {X: p.X - d - w, Y: p.Y + d/2},
			{X: p.X + d, Y: p.Y - d - h}, {X: p.X - d - w, Y: p.Y - d - h},
		}
		for k := 1; k <= 10; k++ {
			dy := vg.Length(k) * (h + vg.Points(3))
			cands = append(cands,
				vg.Point{X: p.X - w/2, Y: p.Y + d + dy}, vg.Point{X: p.X - w/2, Y: p.Y - d - h - dy},
				vg.Point{X: p.X + d, Y: p.Y + d/2 + dy}, vg.Point{X: p.X - d - w, Y: p.Y - d - h - dy})
		}
		// Take the first candidate that is inside the panel and free;
		// failing that, the inside one that covers least (labels count far
		// more than curves).
		chosen, best := 0, math.Inf(1)
		for ci, ll := range cands {
			r := vg.Rectangle{Min: ll, Max: vg.Point{X: ll.X + w, Y: ll.Y + h}}
			if !inside(c.Rectangle, r) {
				continue
			}
			score := overlapScore(r, placed, labels)
			if score == 0 {
				chosen = ci
				break
			}
			if score < best {
				chosen, best = ci, score
			}
		}
		ll := cands[chosen]
		r := vg.Rectangle{Min: ll, Max: vg.Point{X: ll.X + w, Y: ll.Y + h}}
		labels = append(labels, r)
		// A translucent white box keeps the label legible over grid
		// lines and bands; a thin leader ties it to its point when it
		// moved away.
		bg := vg.Rectangle{Min: vg.Point{X: r.Min.X - 2, Y: r.Min.Y - 1}, Max: vg.Point{X: r.Max.X + 2, Y: r.Max.Y + 1}}
		if chosen >= 4 {
			anchor := vg.Point{X: clampLen(p.X, bg.Min.X, bg.Max.X), Y: clampLen(p.Y, bg.Min.Y, bg.Max.Y)}
			c.StrokeLine2(draw.LineStyle{Color: it.Color, Width: vg.Points(0.6)}, p.X, p.Y, anchor.X, anchor.Y)
		}
		c.SetColor(color.NRGBA{255, 255, 255, 215})
		c.Fill(bg.Path())
		sty := base
		sty.Color = it.Color
		c.FillText(sty, vg.Point{X: r.Min.X, Y: r.Min.Y}, it.Text)
	}
}

func clampLen(v, lo, hi vg.Length) vg.Length {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// overlapScore is the area r shares with obstacles, plus ten times the
// area it shares with labels already placed.
func overlapScore(r vg.Rectangle, obstacles, labels []vg.Rectangle) float64 {
	area := func(o vg.Rectangle) float64 {
		w := math.Min(float64(r.Max.X), float64(o.Max.X)) - math.Max(float64(r.Min.X), float64(o.Min.X))
		h := math.Min(float64(r.Max.Y), float64(o.Max.Y)) - math.Max(float64(r.Min.Y), float64(o.Min.Y))
		if w <= 0 || h <= 0 {
			return 0
		}
		return w * h
	}
	var s float64
	for _, o := range obstacles {
		s += area(o)
	}
	for _, o := range labels {
		s += 10 * area(o)
	}
	return s
}

func inside(outer, r vg.Rectangle) bool {
	return r.Min.X >= outer.Min.X && r.Max.X <= outer.Max.X && r.Min.Y >= outer.Min.Y && r.Max.Y <= outer.Max.Y
}

// glyphThumb is a legend swatch showing just a marker.
type glyphThumb struct {
	Color color.Color
	Glyph draw.GlyphDrawer
}

func (t glyphThumb) Thumbnail(c *draw.Canvas) {
	c.DrawGlyphNoClip(draw.GlyphStyle{Color: t.Color, Radius: vg.Points(5), Shape: t.Glyph}, c.Center())
}

// lineThumb is a legend swatch showing a line style.
type lineThumb struct{ Style draw.LineStyle }

func (t lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(t.Style, c.Min.X, y, c.Max.X, y)
}
