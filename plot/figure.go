// Package plot draws poolsweep's figures (PNG and SVG, with gonum/plot)
// from results and their analysis (package analysis): one entry point,
// Figures, for the figures of one analysis, and ABFigures for an A/B
// comparison of two analysed sides. Every point, interval and mark is the
// analysis's; plot decides nothing, never talks to a server and never
// prints. WriteFiles writes the figures into a directory, each file through
// internal/outfile. Each figure keeps the numbers behind it (figureData),
// which the tests check rather than pixels.
package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Figure names, also the base names of the files WriteFiles writes.
const (
	figThroughput        = "throughput"
	figLatency           = "latency"
	figLatencyThroughput = "latency-throughput"
	figPoolGrid          = "pool-grid"
	figComparison        = "comparison"
	figTimeBreakdown     = "time-breakdown"
)

// AllFigures lists every figure name in the order they are drawn; the
// open-loop ones (openloop.go) come after the closed loop's, and the
// profile steps' timeline (timeline.go) last.
var AllFigures = []string{figThroughput, figLatency, figLatencyThroughput, figPoolGrid, figComparison, figTimeBreakdown,
	figRouterPool, figOpenLatency, figOpenAchieved, figOpenPoolWait, figTimeline}

// pngDPI is the resolution of PNG output: 8in × 5in becomes 1200 × 750 px.
const pngDPI = 150

// Figure is one picture: a title over one or more gonum panels, a legend
// beside them and a caption below, plus the data it shows.
type Figure struct {
	Name    string // file base name, e.g. "throughput" or "pool-grid-sharded"
	Title   string
	Caption string        // one or two lines under the panels; may be empty
	Panels  []*gplot.Plot // a nil panel is an empty tile
	Cols    int           // panel columns; 0 means all panels in one row
	// Align gives every panel's data area the same size and place in its
	// tile, so that panels stacked over one axis share it exactly.
	Align  bool
	Legend []legendEntry
	Data   figureData
	Width  vg.Length // 0 means defaultWidth
	Height vg.Length // 0 means defaultHeight
}

// legendEntry is one line of a figure's legend.
type legendEntry struct {
	Text   string
	Thumbs []gplot.Thumbnailer
}

// figureData is the data behind a figure, kept beside its panels so that
// tests can check numbers rather than pixels.
type figureData struct {
	Name   string       `json:"name"`
	Title  string       `json:"title"`
	XLabel string       `json:"x_label,omitempty"`
	YLabel string       `json:"y_label,omitempty"`
	Series []seriesData `json:"series"`
	Marks  []mark       `json:"marks,omitempty"`
}

// seriesData is one named series of a figure. Role says what it is: "ops/s",
// "calls/s", "usl", "retrograde", "p50", "p99", "ops/s grid", "p99 grid",
// "pool wait", "server", "rest".
type seriesData struct {
	Name   string      `json:"name"`
	Role   string      `json:"role"`
	Points []dataPoint `json:"points"`
}

// dataPoint is one plotted point. Low/High is the 95% interval across
// trials (equal to Y with one trial); Z is a grid cell's value, with X and
// Y its concurrency and pool; N is the number of trials behind it.
type dataPoint struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Z     float64 `json:"z,omitempty"`
	Low   float64 `json:"low,omitempty"`
	High  float64 `json:"high,omitempty"`
	N     int     `json:"n,omitempty"`
	Label string  `json:"label,omitempty"`
}

// mark is an annotation: a knee, a peak, or the best cell of a grid.
type mark struct {
	Kind   string  `json:"kind"` // "knee", "peak", "best"
	Series string  `json:"series"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Label  string  `json:"label"`
}

func (f *Figure) size() (vg.Length, vg.Length) {
	w, h := f.Width, f.Height
	if w == 0 {
		w = defaultWidth
	}
	if h == 0 {
		h = defaultHeight
	}
	return w, h
}

func textStyle(f font.Font, clr color.Color, xa text.XAlignment, ya text.YAlignment) text.Style {
	return text.Style{Color: clr, Font: f, XAlign: xa, YAlign: ya, Handler: gplot.DefaultTextHandler}
}

// drawOn draws the figure onto c: title at the top, caption at the bottom,
// legend in a column at the right (outside the data, so it never covers a
// point), and the panels tiled in what is left.
func (f *Figure) drawOn(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	pad := vg.Points(8)
	area := draw.Crop(c, pad, -pad, pad, -pad)

	if f.Title != "" {
		ts := textStyle(font.From(boldFont, titleSize), color.Black, draw.XCenter, draw.YTop)
		area.FillText(ts, vg.Point{X: (area.Min.X + area.Max.X) / 2, Y: area.Max.Y}, f.Title)
		area = draw.Crop(area, 0, 0, 0, -(ts.Height(f.Title) + vg.Points(6)))
	}
	if f.Caption != "" {
		cs := textStyle(font.From(sansFont, annotSize), greyText, draw.XLeft, draw.YBottom)
		capt := textfmt.Wrap(f.Caption, 115)
		area.FillText(cs, vg.Point{X: area.Min.X, Y: area.Min.Y}, capt)
		area = draw.Crop(area, 0, 0, cs.Height(capt)+vg.Points(6), 0)
	}
	if len(f.Legend) > 0 {
		l := gplot.NewLegend()
		l.TextStyle.Font = font.From(sansFont, legendSize)
		l.Top, l.Left = true, true
		l.Padding = vg.Points(3)
		for _, e := range f.Legend {
			l.Add(e.Text, e.Thumbs...)
		}
		r := l.Rectangle(area)
		lw := r.Max.X - r.Min.X + vg.Points(6)
		lc := area
		lc.Min.X = area.Max.X - lw
		lc.Max.Y = area.Max.Y - vg.Points(12)
		l.Draw(lc)
		area.Max.X = lc.Min.X - vg.Points(10)
	}
	cols := f.Cols
	if cols <= 0 || cols > len(f.Panels) {
		cols = len(f.Panels)
	}
	if cols == 0 {
		return
	}
	rows := (len(f.Panels) + cols - 1) / cols
	tiles := draw.Tiles{Cols: cols, Rows: rows, PadX: vg.Points(14), PadY: vg.Points(10)}
	if f.Align {
		grid := make([][]*gplot.Plot, rows)
		for i := range grid {
			grid[i] = make([]*gplot.Plot, cols)
		}
		for i, p := range f.Panels {
			grid[i/cols][i%cols] = p
		}
		cs := gplot.Align(grid, tiles, area)
		for i, p := range f.Panels {
			if p != nil {
				p.Draw(cs[i/cols][i%cols])
			}
		}
		return
	}
	for i, p := range f.Panels {
		if p != nil { // an empty tile
			p.Draw(tiles.At(area, i%cols, i/cols))
		}
	}
}

// svgFontFallback makes browsers without Liberation Sans use a metric-
// compatible sans serif instead of their default serif face.
var (
	svgFontFrom = []byte("font-family:Liberation Sans;")
	svgFontTo   = []byte("font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;")
)

// WriteSVG writes the figure as SVG.
func (f *Figure) WriteSVG(w io.Writer) error {
	fw, fh := f.size()
	c := vgsvg.New(fw, fh)
	f.drawOn(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return fmt.Errorf("figure %s: svg: %w", f.Name, err)
	}
	if _, err := w.Write(bytes.ReplaceAll(buf.Bytes(), svgFontFrom, svgFontTo)); err != nil {
		return fmt.Errorf("figure %s: write svg: %w", f.Name, err)
	}
	return nil
}

// writePNG writes the figure as a PNG at pngDPI.
func (f *Figure) writePNG(w io.Writer) error {
	fw, fh := f.size()
	c := vgimg.NewWith(vgimg.UseWH(fw, fh), vgimg.UseDPI(pngDPI))
	f.drawOn(draw.New(c))
	if err := pngEncoder.Encode(w, c.Image()); err != nil {
		return fmt.Errorf("figure %s: png: %w", f.Name, err)
	}
	return nil
}

// pngEncoder writes figures at zlib's fastest level: deflate at the
// default level was over half of writing a figure (profiled: 1.9 s of
// 3.4 s in the flag tests' figures), for PNGs 4% larger (361 KB against
// 349 KB for the four figures of cmd/poolsweep/testdata/sim-api.jsonl).
var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed}

// figurePaths are the files WriteFiles writes for figs into dir, in its order:
// each figure's PNG, then its SVG.
func figurePaths(dir string, figs []Figure) []string {
	var out []string
	for i := range figs {
		for _, ext := range []string{"png", "svg"} {
			out = append(out, filepath.Join(dir, figs[i].Name+"."+ext))
		}
	}
	return out
}

// CheckFiles refuses, before any is written, a figure file in dir that
// WriteFiles could not write as a regular file (a symlink, a directory, a
// device in its place). A dir that does not exist yet is fine: every file
// in it will be new.
func CheckFiles(dir string, figs []Figure) error {
	if _, err := os.Lstat(dir); err != nil {
		return nil
	}
	for _, p := range figurePaths(dir, figs) {
		if err := outfile.Check(p); err != nil {
			return err
		}
	}
	return nil
}

// MayWrite says whether name is a file WriteFiles may write into a
// directory: NAME.png or NAME.svg for every figure, A/B figure and the
// steady figure, and for the pool grids of several series and the
// timelines of several targets, whose names come from the results
// (pool-grid-SERIES, timeline-TARGET).
func MayWrite(name string) bool {
	base, ok := strings.CutSuffix(name, ".png")
	if !ok {
		if base, ok = strings.CutSuffix(name, ".svg"); !ok {
			return false
		}
	}
	return slices.Contains(AllFigures, base) || base == figSteady || base == figABThroughput || base == figABDeltas ||
		strings.HasPrefix(base, figPoolGrid+"-") || strings.HasPrefix(base, figTimeline+"-")
}

// CheckNames refuses, before any input is read, an entry of dir at a name
// WriteFiles may write (MayWrite) that is not a regular file: a symlink,
// directory, device or FIFO planted there. CheckFiles checks the exact
// names again once the figures are known.
func CheckNames(dir string) error {
	return outfile.CheckNames(dir, MayWrite)
}

// WriteFiles writes NAME.png and NAME.svg for every figure into dir, which
// must exist (the caller makes it, by outfile's rules), and returns the
// paths written, PNG before SVG. Each file is written whole or not at all
// (outfile.Write): a path that is a symlink or not a regular file is
// refused, never written through.
func WriteFiles(dir string, figs []Figure) ([]string, error) {
	var paths []string
	for i, p := range figurePaths(dir, figs) {
		f := &figs[i/2]
		write := f.writePNG
		if i%2 == 1 {
			write = f.WriteSVG
		}
		if err := outfile.Write(p, write); err != nil {
			return paths, fmt.Errorf("figures: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// round6 keeps six significant digits so exported data (and golden files)
// do not depend on the last bits of floating point, which differ between
// architectures that fuse multiply-adds.
func round6(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	e := math.Floor(math.Log10(math.Abs(v)))
	s := math.Pow(10, 5-e)
	return math.Round(v*s) / s
}
