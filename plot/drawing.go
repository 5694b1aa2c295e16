package plot

import (
	"image/color"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// drawing is a one-panel figure while its function draws it: the panel
// and what goes with the picture (the data behind each series, the marks,
// the legend) and the labels still to be placed, added last so that they
// avoid every line and point.
type drawing struct {
	p      *gplot.Plot
	data   []seriesData
	marks  []mark
	legend []legendEntry
	ann    *annotations
}

// newDrawing starts a drawing on a panel with a grid.
func newDrawing(xlabel, ylabel string) *drawing {
	p := newPanel(xlabel, ylabel)
	p.Add(plotter.NewGrid())
	return &drawing{p: p, ann: &annotations{}}
}

// curve draws one series' line with its markers and gives it a legend
// entry.
func (d *drawing) curve(xys plotter.XYs, clr color.Color, g draw.GlyphDrawer, label string) {
	ln, sc := line(xys, clr, 2, nil), scatter(xys, clr, g, 3.5)
	d.p.Add(ln, sc)
	d.legend = append(d.legend, legendEntry{Text: label, Thumbs: []gplot.Thumbnailer{ln, sc}})
}

// percentiles draws one series' p99 (solid, in the legend) and p50
// (dashed, thinner) and keeps the labels off both.
func (d *drawing) percentiles(p99, p50 plotter.XYs, d99, d50 seriesData, clr color.Color, g draw.GlyphDrawer, label string) {
	d.ann.lines = append(d.ann.lines, xyPairs(p99), xyPairs(p50))
	if len(p99) > 0 {
		d.curve(p99, clr, g, label)
		d.data = append(d.data, d99)
	}
	if len(p50) > 0 {
		d.p.Add(line(p50, clr, 1.5, dashP50), scatter(p50, clr, g, 2.5))
		d.data = append(d.data, d50)
	}
}

// percentilesLegend explains percentiles' two line styles.
func (d *drawing) percentilesLegend(grey color.Color) {
	d.legend = append(d.legend,
		legendEntry{Text: "p99 (solid)", Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: grey, Width: vg.Points(2)}}}},
		legendEntry{Text: "p50 (dashed)", Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: grey, Width: vg.Points(1.5), Dashes: dashP50}}}})
}

// errorBars draws a series' 95% intervals.
func (d *drawing) errorBars(xys plotter.XYs, errs plotter.YErrors, clr color.Color, width, capWidth float64) {
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{xys, errs})
	if err != nil {
		return
	}
	eb.Color = clr
	eb.Width = vg.Points(width)
	eb.CapWidth = vg.Points(capWidth)
	d.p.Add(eb)
}

// mark records m on the series drawn in clr and labels it at (x, y) on
// the panel (m's own numbers are rounded for the data).
func (d *drawing) mark(m mark, x, y float64, clr color.NRGBA, g draw.GlyphDrawer) {
	d.marks = append(d.marks, m)
	d.ann.items = append(d.ann.items, annotation{X: x, Y: y, Text: m.Label, Color: darker(clr), Glyph: g})
}

func (d *drawing) hasMark(kind string) bool {
	return slices.ContainsFunc(d.marks, func(m mark) bool { return m.Kind == kind })
}

// glyphLegend adds a legend entry for a mark's glyph.
func (d *drawing) glyphLegend(text string, grey color.Color, g draw.GlyphDrawer) {
	d.legend = append(d.legend, legendEntry{Text: text, Thumbs: []gplot.Thumbnailer{glyphThumb{Color: grey, Glyph: g}}})
}

// lineLegend adds a legend entry for a line style.
func (d *drawing) lineLegend(text string, style draw.LineStyle) {
	d.legend = append(d.legend, legendEntry{Text: text, Thumbs: []gplot.Thumbnailer{lineThumb{style}}})
}

// figure is the finished drawing.
func (d *drawing) figure(name, title, caption string) Figure {
	return Figure{
		Name: name, Title: wrapTitle(title), Caption: caption, Panels: []*gplot.Plot{d.p}, Legend: d.legend,
		Data: figureData{Name: name, Title: title, XLabel: d.p.X.Label.Text, YLabel: d.p.Y.Label.Text, Series: d.data, Marks: d.marks},
	}
}
