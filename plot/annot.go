package plot

import (
	"image/color"

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
	obstacles [][2]float64 // data points (x, y) the labels should not cover
}

func (a *annotations) Plot(c draw.Canvas, plt *gplot.Plot) {
	trX, trY := plt.Transforms(&c)
	base := textStyle(font.From(sansFont, annotSize), color.Black, draw.XLeft, draw.YBottom)
	var placed []vg.Rectangle
	for _, o := range a.obstacles {
		p := vg.Point{X: trX(o[0]), Y: trY(o[1])}
		r := vg.Points(3.5)
		placed = append(placed, vg.Rectangle{Min: vg.Point{X: p.X - r, Y: p.Y - r}, Max: vg.Point{X: p.X + r, Y: p.Y + r}})
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
		for k := 1; k <= 6; k++ {
			dy := vg.Length(k) * (h + vg.Points(3))
			cands = append(cands,
				vg.Point{X: p.X - w/2, Y: p.Y + d + dy}, vg.Point{X: p.X - w/2, Y: p.Y - d - h - dy},
				vg.Point{X: p.X + d, Y: p.Y + d/2 + dy}, vg.Point{X: p.X - d - w, Y: p.Y - d - h - dy})
		}
		chosen := -1
		for ci, ll := range cands {
			r := vg.Rectangle{Min: ll, Max: vg.Point{X: ll.X + w, Y: ll.Y + h}}
			if !inside(c.Rectangle, r) || overlapsAny(r, placed) {
				continue
			}
			chosen = ci
			break
		}
		if chosen < 0 {
			// Nowhere free: keep it inside the panel at least.
			chosen = 0
			for ci, ll := range cands {
				if inside(c.Rectangle, vg.Rectangle{Min: ll, Max: vg.Point{X: ll.X + w, Y: ll.Y + h}}) {
					chosen = ci
					break
				}
			}
		}
		ll := cands[chosen]
		r := vg.Rectangle{Min: ll, Max: vg.Point{X: ll.X + w, Y: ll.Y + h}}
		placed = append(placed, r)
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

func inside(outer, r vg.Rectangle) bool {
	return r.Min.X >= outer.Min.X && r.Max.X <= outer.Max.X && r.Min.Y >= outer.Min.Y && r.Max.Y <= outer.Max.Y
}

func overlapsAny(r vg.Rectangle, rs []vg.Rectangle) bool {
	for _, o := range rs {
		if r.Min.X < o.Max.X && o.Min.X < r.Max.X && r.Min.Y < o.Max.Y && o.Min.Y < r.Max.Y {
			return true
		}
	}
	return false
}

// band shades the x range [X0, X1] of a panel across its full height: the
// retrograde stretch of a curve.
type band struct {
	X0, X1 float64
	Color  color.Color
}

func (b *band) Plot(c draw.Canvas, plt *gplot.Plot) {
	trX, _ := plt.Transforms(&c)
	x0, x1 := trX(b.X0), trX(b.X1)
	if x1 < x0 {
		x0, x1 = x1, x0
	}
	x0 = clampLen(x0, c.Min.X, c.Max.X)
	x1 = clampLen(x1, c.Min.X, c.Max.X)
	c.FillPolygon(b.Color, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
}

// bandThumb is the legend swatch of a band.
type bandThumb struct{ Color color.Color }

func (t bandThumb) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(t.Color, []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y},
	})
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
