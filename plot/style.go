package plot

import (
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Default figure size: wide enough for a legend beside the data on a laptop
// screen, and the 8:5 shape still fits a printed A4/Letter page width.
const (
	defaultWidth  = 8 * vg.Inch
	defaultHeight = 5 * vg.Inch
)

// okabeIto is the Okabe–Ito colour-blind-safe palette, reordered so the
// first colours are the ones that read best on white (yellow last).
var okabeIto = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
}

// seriesColor is the colour of the i-th series; it cycles past eight.
func seriesColor(i int) color.NRGBA { return okabeIto[i%len(okabeIto)] }

// withAlpha returns c at opacity a (0..255), for shaded bands.
func withAlpha(c color.NRGBA, a uint8) color.NRGBA {
	c.A = a
	return c
}

// glyphs give each series a distinct marker too, so a figure printed in
// grey still tells the series apart.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.RingGlyph{},
	draw.PyramidGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{},
}

func seriesGlyph(i int) draw.GlyphDrawer { return glyphs[i%len(glyphs)] }

var (
	sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	boldFont = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}
	greyText = color.Gray{Y: 0x55}
)

// Font sizes in points, chosen so an 8in-wide figure scaled to a laptop
// window or a printed column stays readable.
const (
	titleSize  = 14
	labelSize  = 12
	tickSize   = 11
	legendSize = 10.5
	annotSize  = 10
)

// newPanel returns a gonum plot with this package's fonts and no title (the
// figure draws one title over all its panels).
func newPanel(xlabel, ylabel string) *gplot.Plot {
	p := gplot.New()
	p.Title.TextStyle.Font = font.From(boldFont, labelSize)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sansFont, labelSize)
		a.Tick.Label.Font = font.From(sansFont, tickSize)
		a.Padding = vg.Points(4)
	}
	p.Legend.TextStyle.Font = font.From(sansFont, legendSize)
	return p
}

// humanNumber formats throughput the way people say it: 950, 42.0k, 1.25M.
func humanNumber(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return trimZero(strconv.FormatFloat(v/1e6, 'f', 2, 64)) + "M"
	case a >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	case a >= 100 || a == 0:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1:
		return trimZero(strconv.FormatFloat(v, 'f', 1, 64))
	default:
		return trimZero(strconv.FormatFloat(v, 'f', 3, 64))
	}
}

// trimZero drops a trailing ".0" / ".00" so "2.00M" reads "2M" but "42.0k"
// keeps its decimal (the k form always has one, as the issue asks).
func trimZero(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

// humanTicks labels a linear axis at a "nice" step (1, 2, 2.5 or 5 × 10ⁿ)
// giving about five labelled ticks, in humanNumber form, with an unlabelled
// tick halfway between.
type humanTicks struct{}

func (humanTicks) Ticks(min, max float64) []gplot.Tick {
	if !(max > min) {
		return []gplot.Tick{{Value: min, Label: humanNumber(min)}}
	}
	step := niceStep((max - min) / 5)
	var ts []gplot.Tick
	for v := math.Ceil(min/step) * step; v <= max+step*1e-9; v += step {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ts = append(ts, gplot.Tick{Value: v, Label: humanNumber(v)})
		if h := v + step/2; h <= max {
			ts = append(ts, gplot.Tick{Value: h})
		}
	}
	return ts
}

// niceStep rounds a raw step up to 1, 2, 2.5 or 5 × 10ⁿ.
func niceStep(raw float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*e {
			return m * e
		}
	}
	return 10 * e
}

// levelTicks puts labelled ticks at the measured x levels only and leaves a
// level unlabelled (a minor tick) when its label would crowd its neighbour
// on a log axis. minFrac is the smallest gap between labels as a fraction of
// the axis length; 0.07 keeps 32,64,128,256,500,1000 apart on an 8in figure.
func levelTicks(levels []float64, minFrac float64) gplot.Ticker {
	xs := append([]float64(nil), levels...)
	sort.Float64s(xs)
	xs = uniqFloats(xs)
	return gplot.TickerFunc(func(min, max float64) []gplot.Tick {
		if len(xs) == 0 || min <= 0 || max <= min {
			return nil
		}
		span := math.Log(max / min)
		pos := func(v float64) float64 { return math.Log(v/min) / span }
		labelled := make([]bool, len(xs))
		last := -1
		for i, v := range xs {
			if last < 0 || pos(v)-pos(xs[last]) >= minFrac {
				labelled[i] = true
				last = i
			}
		}
		// The largest level always gets its label: it is the end of the
		// range and the one people look for; drop its crowding neighbour.
		n := len(xs) - 1
		if !labelled[n] {
			for i := n - 1; i >= 0; i-- {
				if labelled[i] {
					if pos(xs[n])-pos(xs[i]) < minFrac && i > 0 {
						labelled[i] = false
					}
					break
				}
			}
			labelled[n] = true
		}
		ts := make([]gplot.Tick, len(xs))
		for i, v := range xs {
			ts[i] = gplot.Tick{Value: v}
			if labelled[i] {
				ts[i].Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
		}
		return ts
	})
}

// logTicks labels a log axis of milliseconds: at 1-2-5 steps when it spans
// up to 2.5 decades, at 1-3 steps up to 4 decades, and at powers of ten
// beyond, with the other 1-2-3-5 values as unlabelled ticks.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []gplot.Tick {
	if min <= 0 || max <= min {
		return nil
	}
	span := math.Log10(max / min)
	labelled := map[float64]bool{1: true}
	switch {
	case span <= 2.5:
		labelled[2], labelled[5] = true, true
	case span <= 4:
		labelled[3] = true
	}
	var ts []gplot.Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		base := math.Pow(10, e)
		for _, m := range []float64{1, 2, 3, 5} {
			v := base * m
			if v < min*0.999 || v > max*1.001 {
				continue
			}
			t := gplot.Tick{Value: v}
			if labelled[m] {
				t.Label = plainNumber(v)
			}
			ts = append(ts, t)
		}
	}
	// Too few labelled ticks on a narrow range: label the ends too.
	if countLabelled(ts) < 2 {
		ts = append(ts, gplot.Tick{Value: min, Label: plainNumber(min)}, gplot.Tick{Value: max, Label: plainNumber(max)})
	}
	return ts
}

// plainNumber writes a tick value without thousands suffix: latency axes
// read "1000" ms, not "1.0k".
func plainNumber(v float64) string {
	return strconv.FormatFloat(round6(v), 'f', -1, 64)
}

func countLabelled(ts []gplot.Tick) int {
	n := 0
	for _, t := range ts {
		if t.Label != "" {
			n++
		}
	}
	return n
}

func uniqFloats(xs []float64) []float64 {
	out := xs[:0]
	for i, v := range xs {
		if i == 0 || v != xs[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// fmtMs formats a latency in milliseconds ("2.33 ms").
func fmtMs(v float64) string { return textfmt.Ms(v) + " ms" }
