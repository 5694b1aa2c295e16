package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/poolsweep/poolsweep/compare"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/sweep/knee"
)

// A/B figure names, also the base names of the files WriteFiles writes.
const (
	FigABThroughput = "ab-throughput"
	FigABDeltas     = "ab-deltas"
)

// ABMetrics are the metrics of the Δ% chart, in the order of their bars.
// Server-side latencies and errors stay in the comparison table: their
// percentages are either redundant with the client's or meaningless (a
// change from zero errors).
var ABMetrics = []string{
	compare.OpsPerS, compare.ReadMeanUS, compare.ReadP99US, compare.WriteMeanUS,
	compare.WriteP99US, compare.ServerCPUPct, compare.ClientCPUPct,
}

// abMetricText is how the chart names each metric.
var abMetricText = map[string]string{
	compare.OpsPerS:      "throughput",
	compare.ReadMeanUS:   "read latency, mean",
	compare.ReadP99US:    "read latency, p99",
	compare.WriteMeanUS:  "write latency, mean",
	compare.WriteP99US:   "write latency, p99",
	compare.ServerCPUPct: "server CPU",
	compare.ClientCPUPct: "client CPU",
}

// ABFigures draws the A/B comparison c of base and cand (the inputs c was
// matched from): FigABThroughput, both runs' throughput curves overlaid,
// and FigABDeltas, the change of each metric at each matched step. base and
// cand may be the same results (one file, two targets): the curves are
// split by the targets c used on each side. The notes say what was left
// out and why.
func ABFigures(base, cand []*sweep.Results, c *compare.Comparison) ([]Figure, []string, error) {
	return ABFiguresWith(base, cand, c, knee.DefaultOptions())
}

// ABFiguresWith is ABFigures with the knee options o for the knees it
// marks: each side analysed as `poolsweep analyze` would with o.
func ABFiguresWith(base, cand []*sweep.Results, c *compare.Comparison, o knee.Options) ([]Figure, []string, error) {
	if c == nil || len(c.Steps) == 0 {
		return nil, nil, errors.New("a/b figures: the comparison has no matched steps")
	}
	var figs []Figure
	var notes []string
	tp, err := abThroughput(base, cand, c, o)
	if err != nil {
		return nil, nil, fmt.Errorf("a/b figures: %w", err)
	}
	figs = append(figs, tp)
	d, note := abDeltas(c)
	if d != nil {
		figs = append(figs, *d)
	}
	if note != "" {
		notes = append(notes, FigABDeltas+": "+note)
	}
	return figs, notes, nil
}

// abSide is one side of the comparison as one results set: every file of
// the side merged (compare pools their trials too) and only the targets
// the comparison used.
func abSide(rs []*sweep.Results, targets []string) *sweep.Results {
	m := &sweep.Results{}
	var pathList []string
	for _, r := range rs {
		if r == nil {
			continue
		}
		if m.Header.Kind == "" {
			m.Header = r.Header
			m.Header.Targets = nil
		}
		pathList = append(pathList, r.Path)
		for _, t := range r.Header.Targets {
			if slices.Contains(targets, t.Name) && !slices.ContainsFunc(m.Header.Targets, func(h sweep.TargetHeader) bool { return h.Name == t.Name }) {
				m.Header.Targets = append(m.Header.Targets, t)
			}
		}
		for i := range r.Steps {
			if slices.Contains(targets, r.Steps[i].Target) {
				m.Steps = append(m.Steps, r.Steps[i])
			}
		}
	}
	m.Path = strings.Join(pathList, ", ")
	return m
}

// sameInputs says base and cand are the same files: the one-file,
// two-target mode.
func sameInputs(c *compare.Comparison) bool {
	return slices.Equal(c.Baseline.Files, c.Candidate.Files)
}

// abSideName names a side for legends: the run and the file, or in the
// one-file mode the target.
func abSideName(s compare.Side, oneFile bool) string {
	files := make([]string, len(s.Files))
	for i, f := range s.Files {
		files[i] = filepath.Base(f)
	}
	if oneFile {
		run := strings.Join(s.RunIDs, ", ")
		if run == "" {
			run = strings.Join(files, ", ")
		}
		return "target " + strings.Join(s.Targets, ", ") + " (" + run + ")"
	}
	if len(s.RunIDs) > 0 {
		return strings.Join(s.RunIDs, ", ") + " (" + strings.Join(files, ", ") + ")"
	}
	return strings.Join(files, ", ")
}

// abShortName is a side's name in a title: the target in one-file mode,
// else the run id, else the file.
func abShortName(s compare.Side, oneFile bool) string {
	switch {
	case oneFile:
		return strings.Join(s.Targets, ", ")
	case len(s.RunIDs) > 0:
		return strings.Join(s.RunIDs, ", ")
	}
	names := make([]string, len(s.Files))
	for i, f := range s.Files {
		names[i] = filepath.Base(f)
	}
	return strings.Join(names, ", ")
}

// abSeriesKey is what pairs a baseline curve with a candidate curve, as
// compare pairs steps: target role (when a side has several targets),
// workload, pool setting and clients.
type abSeriesKey struct {
	role, workload, pool string
	clients              int
}

// abThroughput overlays both sides' throughput curves: one colour per
// series, the baseline solid and the candidate dashed.
func abThroughput(base, cand []*sweep.Results, c *compare.Comparison, o knee.Options) (Figure, error) {
	oneFile := sameInputs(c)
	byRole := len(c.Baseline.Targets) > 1 || len(c.Candidate.Targets) > 1
	sides := []struct {
		name    string
		rs      *sweep.Results
		dashes  []vg.Length
		curves  []*curve
		nudge   float64
		display string
	}{
		{name: "baseline", rs: abSide(base, c.Baseline.Targets), nudge: 1 / 1.03, display: abSideName(c.Baseline, oneFile)},
		{name: "candidate", rs: abSide(cand, c.Candidate.Targets), dashes: []vg.Length{vg.Points(6), vg.Points(3)}, nudge: 1.03, display: abSideName(c.Candidate, oneFile)},
	}
	var keys []abSeriesKey
	var all []*curve
	for i := range sides {
		s := &sides[i]
		reports := AnalyzeWith([]*sweep.Results{s.rs}, o)
		s.curves = buildCurves([]*sweep.Results{s.rs}, reports, false)
		for _, cv := range s.curves {
			k := abSeriesKey{workload: cv.workload, pool: cv.pool, clients: cv.clients}
			if byRole {
				k.role = cv.target
			}
			ki := slices.Index(keys, k)
			if ki < 0 {
				keys = append(keys, k)
				ki = len(keys) - 1
			}
			cv.idx = ki
			all = append(all, cv)
		}
	}
	if len(all) == 0 {
		return Figure{}, ErrNoSteps
	}
	labels := abSeriesLabels(keys)
	fc := figContext{curves: all, mode: chooseXMode(all)}

	p := newPanel(fc.mode.label(), "throughput (ops/s)")
	fc.xAxis(p, all)
	// The nudge moves points off the measured x; widen the range to match.
	p.X.Min /= 1.03
	p.X.Max *= 1.03
	p.Y.Tick.Marker = humanTicks{}
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	ann := &annotations{}
	var data []SeriesData
	var marks []Mark
	var legend []LegendEntry
	drawnKey := make([]bool, len(keys))
	for _, s := range sides {
		for _, cv := range s.curves {
			clr := seriesColor(cv.idx)
			name := s.name + " · " + labels[cv.idx]
			var xys plotter.XYs
			var errs plotter.YErrors
			sd := SeriesData{Name: name, Role: "ops/s"}
			for i := range cv.levels {
				l := &cv.levels[i]
				x := fc.mode.of(l)
				// Drawn a little left (baseline) or right (candidate) of
				// the level so both sides' interval bars stay visible.
				xys = append(xys, plotter.XY{X: x * s.nudge, Y: l.ops.Median})
				errs = append(errs, struct{ Low, High float64 }{l.ops.Median - l.ops.Low, l.ops.High - l.ops.Median})
				sd.Points = append(sd.Points, DataPoint{X: round6(x), Y: round6(l.ops.Median), Low: round6(l.ops.Low), High: round6(l.ops.High), N: l.ops.N})
				ann.obstacles = append(ann.obstacles, [2]float64{x * s.nudge, l.ops.Median})
			}
			ann.lines = append(ann.lines, xyPairs(xys))
			if eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{xys, errs}); err == nil {
				eb.Color = clr
				eb.Width = vg.Points(1.1)
				eb.CapWidth = vg.Points(6)
				p.Add(eb)
			}
			ln := line(xys, clr, 2, s.dashes)
			g := seriesGlyph(cv.idx)
			sc := scatter(xys, clr, g, 3.5)
			if s.name == "candidate" {
				// Hollow-looking markers: a white dot inside the glyph.
				p.Add(ln, sc, scatter(xys, color.White, draw.CircleGlyph{}, 1.4))
			} else {
				p.Add(ln, sc)
			}
			data = append(data, sd)
			if !drawnKey[cv.idx] {
				drawnKey[cv.idx] = true
				legend = append(legend, LegendEntry{Text: labels[cv.idx], Thumbs: []gplot.Thumbnailer{
					lineThumb{draw.LineStyle{Color: clr, Width: vg.Points(2)}}, glyphThumb{Color: clr, Glyph: g}}})
			}
			for _, m := range fc.curveMarks(cv) {
				if m.Kind != "knee" || !abKneeWorthMarking(cv) {
					continue // peaks of two runs overlaid would bury the curves
				}
				m.Series = name
				m.Label = s.name + " " + m.Label
				marks = append(marks, m)
				ann.items = append(ann.items, annotation{X: m.X * s.nudge, Y: m.Y, Text: m.Label, Color: darker(clr), Glyph: kneeGlyph})
			}
		}
	}
	p.Add(ann)
	p.Y.Max *= 1.2
	grey := color.Gray{Y: 0x33}
	legend = append(legend,
		LegendEntry{Text: "baseline: " + sides[0].display, Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: grey, Width: vg.Points(2)}}}},
		LegendEntry{Text: "candidate: " + sides[1].display, Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: grey, Width: vg.Points(2), Dashes: sides[1].dashes}}}})
	if len(marks) > 0 {
		legend = append(legend, LegendEntry{Text: "knee", Thumbs: []gplot.Thumbnailer{glyphThumb{Color: grey, Glyph: kneeGlyph}}})
	}
	// Legend texts can be long (run ids, file names): wrap them so the
	// legend column does not squeeze the panel.
	for i := range legend {
		legend[i].Text = wrapText(legend[i].Text, 30)
	}

	title := capitalise(abHeadline(c)) + " — candidate " + abShortName(c.Candidate, oneFile) +
		" vs baseline " + abShortName(c.Baseline, oneFile)
	cap := fc.trialsCaption() + " Baseline solid, candidate dashed with hollow markers, nudged apart on x so both bars show." +
		" The headline change is compare's: medians across trials with a rank-test interval, at the step where the baseline peaked."
	if len(c.Unmatched) > 0 {
		cap += fmt.Sprintf(" %d step(s) without a partner are drawn but not compared.", len(c.Unmatched))
	}
	if abMatchedXDiffer(sides[0].curves, sides[1].curves, fc.mode) {
		cap += " Steps are matched by concurrency: the two sides open different numbers of connections at the same concurrency," +
			" so matched points sit at different x."
	}
	cap += fc.xCaption()
	return Figure{
		Name: FigABThroughput, Title: abWrapTitle(title), Caption: cap, Panels: []*gplot.Plot{p}, Legend: legend,
		Data: FigureData{Name: FigABThroughput, Title: title, XLabel: p.X.Label.Text, YLabel: p.Y.Label.Text, Series: data, Marks: marks},
	}, nil
}

// abMatchedXDiffer says some concurrency level measured on both sides of
// one series is drawn at different x (more hosts or clients on one side).
func abMatchedXDiffer(base, cand []*curve, m xMode) bool {
	for _, b := range base {
		for _, c := range cand {
			if b.idx != c.idx {
				continue
			}
			for i := range b.levels {
				if l := c.levelAt(b.levels[i].concurrency); l != nil && m.of(l) != m.of(&b.levels[i]) {
					return true
				}
			}
		}
	}
	return false
}

// abKneeWorthMarking says a curve's knee says something: the analysis is
// at least moderately confident and the knee is past the first level (a
// knee at the lowest level only says the run started saturated, which on
// an overlay of two runs is clutter).
func abKneeWorthMarking(cv *curve) bool {
	r := cv.report
	if r == nil || !r.Knee.Found || len(cv.levels) < 4 || r.Knee.Concurrency <= cv.levels[0].concurrency {
		return false
	}
	return r.Knee.Confidence == "high" || r.Knee.Confidence == "medium"
}

// abWrapTitle puts the finding on the first line and the runs on the
// second once the title is longer than what 14pt bold fits in 8in.
func abWrapTitle(s string) string {
	if len([]rune(s)) <= 64 {
		return s
	}
	head, rest, ok := strings.Cut(s, " — ")
	if !ok {
		return wrapText(s, 70)
	}
	return wrapText(head, 70) + "\n" + wrapText(rest, 70)
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// pctTicks labels a Δ% axis at a nice step with signed percentages.
type pctTicks struct{}

func (pctTicks) Ticks(min, max float64) []gplot.Tick {
	if !(max > min) {
		return []gplot.Tick{{Value: min, Label: signedPct(min)}}
	}
	step := niceStep((max - min) / 6)
	var ts []gplot.Tick
	for v := math.Ceil(min/step) * step; v <= max+step*1e-9; v += step {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		lbl := strconv.FormatFloat(v, 'f', -1, 64)
		if step < 1 {
			lbl = strconv.FormatFloat(v, 'f', 1, 64)
		}
		switch {
		case v > 0:
			lbl = "+" + lbl
		case v < 0:
			lbl = "−" + strings.TrimPrefix(lbl, "-")
		}
		ts = append(ts, gplot.Tick{Value: v, Label: lbl + "%"})
	}
	return ts
}

// abSeriesLabels names each series by the dimensions that vary between
// them, and by its workload whenever it has one: in an A/B of mixes the
// workload is the point.
func abSeriesLabels(keys []abSeriesKey) []string {
	vary := func(f func(abSeriesKey) string) bool {
		for _, k := range keys[1:] {
			if f(k) != f(keys[0]) {
				return true
			}
		}
		return false
	}
	role := vary(func(k abSeriesKey) string { return k.role })
	pool := vary(func(k abSeriesKey) string { return k.pool })
	clients := vary(func(k abSeriesKey) string { return strconv.Itoa(k.clients) })
	out := make([]string, len(keys))
	for i, k := range keys {
		var parts []string
		if role {
			parts = append(parts, k.role)
		}
		if k.workload != "" {
			parts = append(parts, k.workload)
		}
		if pool || len(parts) == 0 {
			parts = append(parts, "pool="+k.pool)
		}
		if clients {
			parts = append(parts, "clients="+strconv.Itoa(k.clients))
		}
		out[i] = strings.Join(parts, " · ")
	}
	return out
}

// abHeadline is the largest significant throughput change among the
// verdicts' reference steps (each workload's baseline peak), e.g.
// "throughput −17% [−19%, −14%] at C=64"; failing that an unconfirmed
// one, flagged; failing that "no significant change in throughput".
func abHeadline(c *compare.Comparison) string {
	multi := len(c.Verdicts) > 1
	var best, bestUnconf *compare.Metric
	var bestStep, unconfStep *compare.Step
	for _, v := range c.Verdicts {
		for _, s := range c.Steps {
			if s.Workload != v.Workload || s.Concurrency != v.Concurrency || s.Pool != v.Pool || s.Clients != v.Clients {
				continue
			}
			if v.Target != "" && s.Target != v.Target {
				continue
			}
			m := s.Metrics[compare.OpsPerS]
			if m == nil || m.DeltaPct == nil {
				continue
			}
			switch {
			case m.Significant && (best == nil || math.Abs(*m.DeltaPct) > math.Abs(*best.DeltaPct)):
				best, bestStep = m, s
			case m.Status == compare.StatusUnconfirmed && (bestUnconf == nil || math.Abs(*m.DeltaPct) > math.Abs(*bestUnconf.DeltaPct)):
				bestUnconf, unconfStep = m, s
			}
		}
	}
	where := func(s *compare.Step) string {
		w := "at C=" + strconv.Itoa(s.Concurrency)
		if multi && s.Workload != "" {
			w += ", " + s.Workload
		}
		return w
	}
	switch {
	case best != nil:
		h := "throughput " + signedPct(*best.DeltaPct)
		if best.CILowPct != nil && best.CIHighPct != nil {
			h += " [" + signedPct(*best.CILowPct) + ", " + signedPct(*best.CIHighPct) + "]"
		}
		return h + " " + where(bestStep)
	case bestUnconf != nil:
		return "throughput " + signedPct(*bestUnconf.DeltaPct) + " " + where(unconfStep) + " (unconfirmed: too few trials)"
	}
	return "no significant change in throughput"
}

// signedPct writes a change in % with its sign and a true minus sign,
// whole percents from 10% up and one decimal below.
func signedPct(v float64) string {
	return signedNum(v, "%")
}

func signedNum(v float64, unit string) string {
	d := 1
	if math.Abs(v) >= 10 {
		d = 0
	}
	s := strconv.FormatFloat(v, 'f', d, 64)
	if s == "-0" || s == "-0.0" {
		s = strings.TrimPrefix(s, "-")
	}
	switch {
	case strings.HasPrefix(s, "-"):
		s = "−" + s[1:]
	case s != "0" && s != "0.0":
		s = "+" + s
	}
	return s + unit
}

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

// abPanel is one facet of the Δ% chart: up to maxGroups matched steps of
// one target role and workload.
type abPanel struct {
	title string
	bars  []compare.DeltaBar
	steps []string // step labels, one per group, in order
}

// maxGroups is the most steps one Δ% panel holds: with seven metrics per
// step, more would make bars (and their rotated labels) thinner than the
// label type.
const maxGroups = 6

// abDeltas draws compare's Δ% per metric per matched step as grouped bars,
// one panel per target role and workload (split past maxGroups steps).
func abDeltas(c *compare.Comparison) (*Figure, string) {
	var bars []compare.DeltaBar
	for _, b := range c.DeltaBars() {
		if slices.Contains(ABMetrics, b.Metric) && !math.IsNaN(b.DeltaPct) && !math.IsInf(b.DeltaPct, 0) {
			bars = append(bars, b)
		}
	}
	if len(bars) == 0 {
		return nil, "skipped: no metric has a percentage change (nothing measured on both sides with a non-zero baseline)"
	}
	var metrics []string // the ABMetrics present, in order
	for _, m := range ABMetrics {
		if slices.ContainsFunc(bars, func(b compare.DeltaBar) bool { return b.Metric == m }) {
			metrics = append(metrics, m)
		}
	}
	roles := map[string]bool{}
	for _, s := range c.Steps {
		roles[s.Target] = true
	}
	stepLabel := abStepLabeler(c.Steps)

	// Panels in step order: compare already sorts by role, workload,
	// pool, clients and concurrency.
	keyOf := func(s *compare.Step) (key, title string) {
		key, title = s.Workload, s.Workload
		if len(roles) > 1 {
			key = s.Target + "\x00" + s.Workload
			title = s.Target + " · " + s.Workload
		}
		if title == "" {
			title = "all steps"
		}
		return key, title
	}
	// A workload with more than maxGroups steps is split into panels of
	// equal size (7 steps become 4 + 3, not 6 + 1).
	total := map[string]int{}
	for _, s := range c.Steps {
		k, _ := keyOf(s)
		total[k]++
	}
	var panels []*abPanel
	byKey := map[string][]*abPanel{}
	var stepOrder []string
	for _, s := range c.Steps {
		full := compare.Label(s)
		stepOrder = append(stepOrder, full)
		key, title := keyOf(s)
		chunks := (total[key] + maxGroups - 1) / maxGroups
		size := (total[key] + chunks - 1) / chunks
		ps := byKey[key]
		if len(ps) == 0 || len(ps[len(ps)-1].steps) == size {
			if chunks > 1 {
				title += fmt.Sprintf(" (%d of %d)", len(ps)+1, chunks)
			}
			ps = append(ps, &abPanel{title: title})
			byKey[key] = ps
			panels = append(panels, ps[len(ps)-1])
		}
		pn := ps[len(ps)-1]
		pn.steps = append(pn.steps, full)
	}
	for _, b := range bars {
		for _, pn := range panels {
			if slices.Contains(pn.steps, b.Step) {
				pn.bars = append(pn.bars, b)
				break
			}
		}
	}

	// One y range for all panels so equal changes look equal.
	ylo, yhi := 0.0, 0.0
	for _, b := range bars {
		ylo, yhi = math.Min(ylo, b.DeltaPct), math.Max(yhi, b.DeltaPct)
		if !math.IsNaN(b.CILowPct) {
			ylo, yhi = math.Min(ylo, math.Min(b.CILowPct, b.CIHighPct)), math.Max(yhi, math.Max(b.CILowPct, b.CIHighPct))
		}
	}
	span := yhi - ylo
	if span == 0 {
		span = 1
	}
	// Room for the rotated value labels beyond the longest bars.
	const labelRoom = 0.22
	if yhi > 0 || ylo == 0 {
		yhi += span * labelRoom
	}
	if ylo < 0 {
		ylo -= span * labelRoom
	}

	metricColor := map[string]color.NRGBA{}
	for i, m := range ABMetrics {
		metricColor[m] = seriesColor(i)
	}
	slot := 0.84 / float64(len(metrics))
	var plots []*gplot.Plot
	var data []SeriesData
	seriesAt := map[string]int{}
	anyFaded, anyUnconfirmed, anyCI, anyCPU, anySignificant := false, false, false, false, false
	cpuExample := ""
	for _, pn := range panels {
		p := newPanel("", "change vs baseline")
		p.Title.Text = pn.title
		p.Title.TextStyle.Font = font.From(boldFont, legendSize)
		g := plotter.NewGrid()
		g.Vertical.Color = nil
		p.Add(g)
		ab := &abBars{groups: len(pn.steps)}
		for _, b := range pn.bars {
			gi := slices.Index(pn.steps, b.Step)
			mi := slices.Index(metrics, b.Metric)
			x := float64(gi) - 0.42 + slot*(float64(mi)+0.5)
			br := abBar{x: x, w: slot * 0.86, y: b.DeltaPct, clr: metricColor[b.Metric], solid: b.Significant, labelSide: 1}
			if b.DeltaPct < 0 {
				br.labelSide = -1
			}
			if !math.IsNaN(b.CILowPct) && !math.IsNaN(b.CIHighPct) {
				br.ci, br.lo, br.hi = true, b.CILowPct, b.CIHighPct
				anyCI = true
			}
			status := "~"
			switch {
			case b.Significant:
				status = "changed"
				anySignificant = true
				br.label = signedPct(b.DeltaPct)
				if b.Unit == "%" {
					// CPU is told in points, as the study did.
					br.label = signedNum(b.Delta, " pt")
					anyCPU = true
					if cpuExample == "" {
						cpuExample = fmt.Sprintf(" (e.g. %s %s pts = %s)", abMetricText[b.Metric], signedNum(b.Delta, ""), signedPct(b.DeltaPct))
					}
				}
			case b.Status == compare.StatusUnconfirmed:
				status = "unconfirmed"
				br.label = signedPct(b.DeltaPct) + "?"
				if b.Unit == "%" {
					br.label = signedNum(b.Delta, " pt?")
				}
				anyUnconfirmed = true
			default:
				br.label = "~"
				anyFaded = true
			}
			ab.bars = append(ab.bars, br)
			dp := DataPoint{X: float64(slices.Index(stepOrder, b.Step)), Y: round6(b.DeltaPct), Low: round6(b.DeltaPct), High: round6(b.DeltaPct),
				Label: b.Step + " · " + status}
			if br.ci {
				dp.Low, dp.High = round6(b.CILowPct), round6(b.CIHighPct)
			}
			si, ok := seriesAt[b.Metric]
			if !ok {
				si = len(data)
				seriesAt[b.Metric] = si
				data = append(data, SeriesData{Name: b.Metric, Role: "delta %"})
			}
			data[si].Points = append(data[si].Points, dp)
		}
		p.Add(ab)
		names := make([]string, len(pn.steps))
		for i, s := range pn.steps {
			names[i] = stepLabel[s]
		}
		ticks := make(gplot.ConstantTicks, len(names))
		for i, n := range names {
			ticks[i] = gplot.Tick{Value: float64(i), Label: n}
		}
		p.X.Tick.Marker = ticks
		p.X.Tick.Length = 0
		p.X.Min, p.X.Max = -0.5, float64(len(pn.steps))-0.5
		p.Y.Min, p.Y.Max = ylo, yhi
		p.Y.Tick.Marker = pctTicks{}
		plots = append(plots, p)
	}
	// Data series in metric order, whatever panel met them first.
	slices.SortStableFunc(data, func(a, b SeriesData) int {
		return slices.Index(ABMetrics, a.Name) - slices.Index(ABMetrics, b.Name)
	})

	var legend []LegendEntry
	for _, m := range metrics {
		legend = append(legend, LegendEntry{Text: abMetricText[m], Thumbs: []gplot.Thumbnailer{barThumb{clr: metricColor[m], solid: true}}})
	}
	grey := color.NRGBA{0x55, 0x55, 0x55, 0xff}
	if anySignificant {
		legend = append(legend, LegendEntry{Text: "significant change", Thumbs: []gplot.Thumbnailer{barThumb{clr: grey, solid: true}}})
	}
	if anyFaded {
		legend = append(legend, LegendEntry{Text: "~ not significant", Thumbs: []gplot.Thumbnailer{barThumb{clr: grey}}})
	}
	if anyUnconfirmed {
		legend = append(legend, LegendEntry{Text: "? untested (too few trials)", Thumbs: []gplot.Thumbnailer{barThumb{clr: grey}}})
	}
	if anyCI {
		legend = append(legend, LegendEntry{Text: "interval of the change", Thumbs: []gplot.Thumbnailer{whiskerThumb{}}})
	}

	oneFile := sameInputs(c)
	title := "Change per metric and step, candidate vs baseline — " + abShortName(c.Candidate, oneFile) + " vs " + abShortName(c.Baseline, oneFile)
	cap := "Bars: change of the candidate's median over its trials against the baseline's, in % of the baseline."
	if anyCI {
		cap += fmt.Sprintf(" Whiskers: the %s%% interval of the change (rank test; Welch's t with few trials).", strconv.FormatFloat((1-c.Alpha)*100, 'f', -1, 64))
	}
	switch {
	case anyFaded && anyUnconfirmed:
		cap += " Faded bars are not significant (~) or untested (?, too few trials)."
	case anyFaded:
		cap += " Faded bars are not significant (~)."
	case anyUnconfirmed:
		cap += " Faded bars are untested (?): too few trials to tell a change from noise."
	}
	if anyCPU {
		cap += " CPU bars are relative too; their labels give the change in percentage points" + cpuExample + "."
	}
	cap += " Server-side latencies and errors are in the table."

	cols, w, h := abLayout(len(plots), maxStepsPerPanel(panels)*len(metrics))
	return &Figure{
		Name: FigABDeltas, Title: abWrapTitle(title), Caption: cap, Panels: plots, Cols: cols, Legend: legend, Width: w, Height: h,
		Data: FigureData{Name: FigABDeltas, Title: title, XLabel: "matched step", YLabel: "change vs baseline (%)", Series: data},
	}, ""
}

func maxStepsPerPanel(ps []*abPanel) int {
	n := 0
	for _, p := range ps {
		n = max(n, len(p.steps))
	}
	return n
}

// abLayout picks the columns and size of the Δ% figure: each bar needs
// about 10pt for its rotated label, a panel at least 3in; up to three
// columns, as wide as about 13in, and 3.3in per row of panels.
func abLayout(panels, barsPerPanel int) (cols int, w, h vg.Length) {
	const legendW = 1.9 * vg.Inch
	panelW := max(3*vg.Inch, vg.Length(barsPerPanel)*vg.Points(10)+vg.Points(60))
	cols = max(1, min(3, panels, int((13*vg.Inch-legendW)/panelW)))
	rows := (panels + cols - 1) / cols
	w = max(DefaultWidth, vg.Length(cols)*panelW+legendW+vg.Points(30))
	h = DefaultHeight
	if rows > 1 {
		h = vg.Length(rows)*3.3*vg.Inch + 1.3*vg.Inch
	}
	return cols, w, h
}

// abStepLabeler labels each step for its group's tick: the concurrency,
// and pool or clients only when they vary (the panel title has the rest).
func abStepLabeler(steps []*compare.Step) map[string]string {
	pools, clients := map[string]bool{}, map[int]bool{}
	for _, s := range steps {
		pools[s.Pool] = true
		clients[s.Clients] = true
	}
	out := map[string]string{}
	for _, s := range steps {
		l := "C=" + strconv.Itoa(s.Concurrency)
		if len(pools) > 1 {
			l += "\npool=" + s.Pool
		}
		if len(clients) > 1 {
			l += "\nclients=" + strconv.Itoa(s.Clients)
		}
		out[compare.Label(s)] = l
	}
	return out
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
