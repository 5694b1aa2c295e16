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
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/poolsweep/poolsweep/compare"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// abMetrics are the metrics of the Δ% chart, in the order of their bars.
// Server-side latencies and errors stay in the comparison table: their
// percentages are either redundant with the client's or meaningless (a
// change from zero errors).
var abMetrics = []string{
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

// pctTicks labels a Δ% axis at a nice step with signed percentages.
type pctTicks struct{}

func (pctTicks) Ticks(min, max float64) []gplot.Tick {
	if !(max > min) {
		return []gplot.Tick{{Value: min, Label: textfmt.SignedPct(min)}}
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

// whiskerReach is how far, in multiples of the largest change, an interval
// may stretch the Δ% axis.
const whiskerReach = 3

// abDeltas draws compare's Δ% per metric per matched step as grouped bars,
// one panel per target role and workload (split past maxGroups steps).
func abDeltas(c *compare.Comparison) (*Figure, string) {
	var bars []compare.DeltaBar
	for _, b := range c.DeltaBars() {
		if slices.Contains(abMetrics, b.Metric) && !math.IsNaN(b.DeltaPct) && !math.IsInf(b.DeltaPct, 0) {
			bars = append(bars, b)
		}
	}
	if len(bars) == 0 {
		return nil, "skipped: no metric has a percentage change (nothing measured on both sides with a non-zero baseline)"
	}
	var metrics []string // the abMetrics present, in order
	for _, m := range abMetrics {
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

	// One y range for all panels so equal changes look equal. Intervals
	// widen it only up to whiskerReach times the largest change (and at
	// least ±10%): one wild interval, such as a p99 from three noisy
	// trials, would otherwise flatten every bar to the zero line. Whiskers
	// past the range are cut at the panel's edge; the table has them.
	maxAbs := 0.0
	for _, b := range bars {
		maxAbs = math.Max(maxAbs, math.Abs(b.DeltaPct))
	}
	reach := math.Max(whiskerReach*maxAbs, 10)
	ylo, yhi := 0.0, 0.0
	cut := false
	for _, b := range bars {
		ylo, yhi = math.Min(ylo, b.DeltaPct), math.Max(yhi, b.DeltaPct)
		if !math.IsNaN(b.CILowPct) {
			lo, hi := math.Min(b.CILowPct, b.CIHighPct), math.Max(b.CILowPct, b.CIHighPct)
			cut = cut || lo < -reach || hi > reach
			ylo, yhi = math.Min(ylo, math.Max(lo, -reach)), math.Max(yhi, math.Min(hi, reach))
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
	for i, m := range abMetrics {
		metricColor[m] = seriesColor(i)
	}
	slot := 0.84 / float64(len(metrics))
	var plots []*gplot.Plot
	var data []seriesData
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
				br.label = textfmt.SignedPct(b.DeltaPct)
				if b.Unit == "%" {
					// CPU is told in points, as the study did.
					br.label = textfmt.SignedWith(b.Delta, " pt")
					anyCPU = true
					if cpuExample == "" {
						cpuExample = fmt.Sprintf(" (e.g. %s %s pts = %s)", abMetricText[b.Metric], textfmt.SignedWith(b.Delta, ""), textfmt.SignedPct(b.DeltaPct))
					}
				}
			case b.Status == compare.StatusUnconfirmed:
				status = "unconfirmed"
				br.label = textfmt.SignedPct(b.DeltaPct) + "?"
				if b.Unit == "%" {
					br.label = textfmt.SignedWith(b.Delta, " pt?")
				}
				anyUnconfirmed = true
			default:
				br.label = "~"
				anyFaded = true
			}
			ab.bars = append(ab.bars, br)
			dp := dataPoint{X: float64(slices.Index(stepOrder, b.Step)), Y: round6(b.DeltaPct), Low: round6(b.DeltaPct), High: round6(b.DeltaPct),
				Label: b.Step + " · " + status}
			if br.ci {
				dp.Low, dp.High = round6(b.CILowPct), round6(b.CIHighPct)
			}
			si, ok := seriesAt[b.Metric]
			if !ok {
				si = len(data)
				seriesAt[b.Metric] = si
				data = append(data, seriesData{Name: b.Metric, Role: "delta %"})
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
	slices.SortStableFunc(data, func(a, b seriesData) int {
		return slices.Index(abMetrics, a.Name) - slices.Index(abMetrics, b.Name)
	})

	var legend []legendEntry
	for _, m := range metrics {
		legend = append(legend, legendEntry{Text: abMetricText[m], Thumbs: []gplot.Thumbnailer{barThumb{clr: metricColor[m], solid: true}}})
	}
	grey := color.NRGBA{0x55, 0x55, 0x55, 0xff}
	if anySignificant {
		legend = append(legend, legendEntry{Text: "significant change", Thumbs: []gplot.Thumbnailer{barThumb{clr: grey, solid: true}}})
	}
	if anyFaded {
		legend = append(legend, legendEntry{Text: "~ not significant", Thumbs: []gplot.Thumbnailer{barThumb{clr: grey}}})
	}
	if anyUnconfirmed {
		legend = append(legend, legendEntry{Text: "? untested (too few trials)", Thumbs: []gplot.Thumbnailer{barThumb{clr: grey}}})
	}
	if anyCI {
		legend = append(legend, legendEntry{Text: "interval of the change", Thumbs: []gplot.Thumbnailer{whiskerThumb{}}})
	}

	oneFile := c.OneFile()
	title := "Change per metric and step, candidate vs baseline — " + c.Candidate.ShortName(oneFile) + " vs " + c.Baseline.ShortName(oneFile)
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
	if cut {
		cap += " Whiskers that reach past the chart are cut at its edge."
	}
	cap += " Server-side latencies and errors are in the table."

	cols, w, h := abLayout(len(plots), maxStepsPerPanel(panels)*len(metrics))
	return &Figure{
		Name: figABDeltas, Title: abWrapTitle(title), Caption: cap, Panels: plots, Cols: cols, Legend: legend, Width: w, Height: h,
		Data: figureData{Name: figABDeltas, Title: title, XLabel: "matched step", YLabel: "change vs baseline (%)", Series: data},
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
	w = max(defaultWidth, vg.Length(cols)*panelW+legendW+vg.Points(30))
	h = defaultHeight
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
