package plot

import (
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// abBar is one bar of the Δ% chart in a panel's data coordinates.
type abBar struct {
	x, w      float64 // centre and width
	y         float64 // Δ%
	lo, hi    float64 // interval in %; valid when ci
	ci        bool
	clr       color.NRGBA
	solid     bool // a significant change
	label     string
	labelSide float64 // +1 label above the bar, -1 below
}

// abBars draws the Δ% bars of one panel with their whiskers, labels and a
// zero line. It is a gonum plotter so the panel's axes scale to it.
type abBars struct {
	bars   []abBar
	groups int
}

// Whisker and label styles for the Δ% chart.
var (
	whiskerColor = color.Gray{Y: 0x22}
	zeroColor    = color.Gray{Y: 0x33}
)

const (
	barLabelSize = 8.5
	// fadedAlpha is the fill opacity of bars whose change is not
	// significant (or not tested): visible, but clearly not a finding.
	fadedAlpha = 60
)

func (b *abBars) Plot(c draw.Canvas, plt *gplot.Plot) {
	trX, trY := plt.Transforms(&c)
	zero := trY(0)
	c.StrokeLine2(draw.LineStyle{Color: zeroColor, Width: vg.Points(1)}, c.Min.X, zero, c.Max.X, zero)
	lbl := textStyle(font.From(sansFont, barLabelSize), color.Black, draw.XLeft, draw.YCenter)
	lbl.Rotation = math.Pi / 2
	for _, br := range b.bars {
		x0, x1 := trX(br.x-br.w/2), trX(br.x+br.w/2)
		y1 := trY(br.y)
		r := vg.Rectangle{Min: vg.Point{X: x0, Y: min(zero, y1)}, Max: vg.Point{X: x1, Y: max(zero, y1)}}
		if r.Max.Y-r.Min.Y < vg.Points(0.8) {
			// A change of ~0% still shows as a sliver at the zero line.
			r.Min.Y, r.Max.Y = zero-vg.Points(0.4), zero+vg.Points(0.4)
		}
		fill := br.clr
		if !br.solid {
			fill = withAlpha(br.clr, fadedAlpha)
		}
		c.FillPolygon(fill, c.ClipPolygonXY(rectPoly(r)))
		if !br.solid {
			c.StrokeLines(draw.LineStyle{Color: br.clr, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(2), vg.Points(1.5)}},
				c.ClipLinesXY(append(rectPoly(r), rectPoly(r)[0]))...)
		}
		end := y1
		if br.ci {
			cx := trX(br.x)
			lo, hi := trY(br.lo), trY(br.hi)
			ws := draw.LineStyle{Color: whiskerColor, Width: vg.Points(1)}
			cap := (x1 - x0) * 0.3
			c.StrokeLines(ws, c.ClipLinesXY([]vg.Point{{X: cx, Y: lo}, {X: cx, Y: hi}})...)
			c.StrokeLines(ws, c.ClipLinesXY([]vg.Point{{X: cx - cap, Y: lo}, {X: cx + cap, Y: lo}})...)
			c.StrokeLines(ws, c.ClipLinesXY([]vg.Point{{X: cx - cap, Y: hi}, {X: cx + cap, Y: hi}})...)
			if br.labelSide > 0 {
				end = max(end, hi, lo)
			} else {
				end = min(end, hi, lo)
			}
		}
		if br.label == "" {
			continue
		}
		// A whisker cut at the panel's edge leaves no room for the label
		// past it: label the bar's end instead.
		if end > c.Max.Y || end < c.Min.Y {
			end = y1
		}
		st := lbl
		st.Color = darker(br.clr)
		p := vg.Point{X: trX(br.x), Y: end + vg.Points(3)}
		if br.labelSide < 0 {
			st.XAlign = draw.XRight
			p.Y = end - vg.Points(3)
		}
		if br.label == "~" {
			// A lone tilde reads as itself only upright, and is larger so
			// it is not taken for a speck.
			st = textStyle(font.From(sansFont, annotSize+2), darker(br.clr), draw.XCenter, draw.YBottom)
			if br.labelSide < 0 {
				st.YAlign = draw.YTop
			}
		}
		c.FillText(st, p, br.label)
	}
}

func rectPoly(r vg.Rectangle) []vg.Point {
	return []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}
}

func (b *abBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = -0.5, float64(b.groups)-0.5
	for _, br := range b.bars {
		ymin, ymax = math.Min(ymin, br.y), math.Max(ymax, br.y)
		if br.ci {
			ymin, ymax = math.Min(ymin, br.lo), math.Max(ymax, br.lo)
			ymin, ymax = math.Min(ymin, br.hi), math.Max(ymax, br.hi)
		}
	}
	return xmin, xmax, ymin, ymax
}

// barThumb is a legend swatch for a bar: solid, or faded with a dashed
// outline like a non-significant bar.
type barThumb struct {
	clr   color.NRGBA
	solid bool
}

func (t barThumb) Thumbnail(c *draw.Canvas) {
	// A fixed-height swatch: the legend's rows can be taller than one
	// line and a full-height box would then dwarf the text.
	r := c.Rectangle
	mid := (r.Min.Y + r.Max.Y) / 2
	h := min(r.Max.Y-r.Min.Y, vg.Points(9))
	r.Min.Y, r.Max.Y = mid-h/2, mid+h/2
	fill := t.clr
	if !t.solid {
		fill = withAlpha(t.clr, fadedAlpha)
	}
	c.SetColor(fill)
	c.Fill(r.Path())
	if !t.solid {
		c.StrokeLines(draw.LineStyle{Color: t.clr, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(2), vg.Points(1.5)}},
			append(rectPoly(r), r.Min))
	}
}

// whiskerThumb is a legend swatch for an interval whisker.
type whiskerThumb struct{}

func (whiskerThumb) Thumbnail(c *draw.Canvas) {
	ws := draw.LineStyle{Color: whiskerColor, Width: vg.Points(1)}
	cx := (c.Min.X + c.Max.X) / 2
	cap := (c.Max.X - c.Min.X) / 4
	c.StrokeLine2(ws, cx, c.Min.Y, cx, c.Max.Y)
	c.StrokeLine2(ws, cx-cap, c.Min.Y, cx+cap, c.Min.Y)
	c.StrokeLine2(ws, cx-cap, c.Max.Y, cx+cap, c.Max.Y)
}
