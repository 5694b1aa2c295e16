package plot

import (
	"errors"
	"fmt"
	"image/color"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// figSteady is the figure of one step's batch series: drawn
// only when asked for (Options.Steady), never among AllFigures.
const figSteady = "steady"

// Mark kinds of the steady figure: where MSER-5 truncated the warm-up, and
// the window's start and end (X in seconds after the warm-up began).
const (
	markTruncation  = "truncation"
	markWindowStart = "window-start"
	markWindowEnd   = "window-end"
)

// SteadyStep picks the step whose batch series the steady figure draws:
// its concurrency (a closed-loop step) or its offered rate (Rate > 0: an
// open-loop step, whose series is its achieved rate), its trial (0: the
// first one), its target (empty: the only one) and its pool setting
// (empty: the only one).
type SteadyStep struct {
	Concurrency int
	Rate        int
	Trial       int
	Target      string
	Pool        string
}

// level names the step's level in messages: "concurrency 16", "rate 1000/s".
func (sel SteadyStep) level() string {
	if sel.Rate > 0 {
		return fmt.Sprintf("rate %d/s", sel.Rate)
	}
	return fmt.Sprintf("concurrency %d", sel.Concurrency)
}

// ParseSteadyStep reads "[TARGET:]C[,trial]" or, for an open-loop step,
// "[TARGET:]R/s[,trial]" as the command line gives it.
func ParseSteadyStep(s string) (SteadyStep, error) {
	s = strings.TrimSpace(s)
	target := ""
	if i := strings.LastIndex(s, ":"); i >= 0 {
		target, s = s[:i], s[i+1:]
		if target == "" {
			return SteadyStep{}, errors.New("an empty target name before ':' (TARGET:C[,trial])")
		}
	}
	c, t, hasTrial := strings.Cut(s, ",")
	c, open := strings.CutSuffix(strings.TrimSpace(c), "/s")
	n, err := strconv.Atoi(c)
	if err != nil || n < 1 || n > 1_000_000_000 || (!open && n > 1_000_000) {
		return SteadyStep{}, fmt.Errorf("%s is not a concurrency level or an offered rate (C, R/s, C,trial or R/s,trial)", textfmt.Token(s))
	}
	sel := SteadyStep{Concurrency: n, Target: target}
	if open {
		sel = SteadyStep{Rate: n, Target: target}
	}
	if hasTrial {
		if sel.Trial, err = strconv.Atoi(strings.TrimSpace(t)); err != nil || sel.Trial < 1 || sel.Trial > 1_000_000 {
			return SteadyStep{}, fmt.Errorf("%s is not a trial number (C,trial with trial from 1)", textfmt.Token(t))
		}
	}
	return sel, nil
}

// findSteadyStep is the one step sel names in rs, or why there is none.
func findSteadyStep(rs []*results.Results, sel SteadyStep) (*results.StepResult, error) {
	var found []*results.StepResult
	for _, r := range rs {
		for i := range r.Steps {
			s := &r.Steps[i]
			if s.Rate != sel.Rate || (sel.Rate == 0 && s.Concurrency != sel.Concurrency) || (sel.Trial > 0 && s.Trial != sel.Trial) ||
				(sel.Target != "" && s.Target != sel.Target) || (sel.Pool != "" && s.PoolSetting != sel.Pool) {
				continue
			}
			if sel.Trial == 0 && len(found) > 0 && found[0].Target == s.Target && found[0].PoolSetting == s.PoolSetting {
				continue // the first trial of this series
			}
			found = append(found, s)
		}
	}
	switch {
	case len(found) == 0:
		return nil, fmt.Errorf("no step at %s%s", sel.level(), trialText(sel.Trial))
	case len(found) > 1:
		return nil, fmt.Errorf("%d steps at %s%s (targets or pool settings differ): name the target as TARGET:C or TARGET:R/s", len(found), sel.level(), trialText(sel.Trial))
	}
	if found[0].Steady == nil || len(found[0].Steady.WindowRates) == 0 {
		return nil, fmt.Errorf("the step at %s%s kept no batch series (a file from before poolsweep kept them)", sel.level(), trialText(sel.Trial))
	}
	return found[0], nil
}

func trialText(t int) string {
	if t == 0 {
		return ""
	}
	return fmt.Sprintf(" trial %d", t)
}

// steadyFigure draws one step's batch rates against time since its
// warm-up began: the warm-up's and the window's series, MSER-5's
// truncation point, the window's start and end, and the window's mean ±
// half-width as a band. Everything is the step's record: what the rules
// decided while it ran.
func steadyFigure(rs []*results.Results, sel SteadyStep) (Figure, error) {
	s, err := findSteadyStep(rs, sel)
	if err != nil {
		return Figure{}, err
	}
	st := s.Steady
	d := newDrawing("seconds since the warm-up began", "calls/s per "+humanNumber(st.SeriesBatchS*1000)+" ms batch")
	if st.SeriesBatchS <= 0 {
		return Figure{}, errors.New("steady figure: the step's series has no batch length")
	}
	start := 0.0
	if st.WindowStartS != nil {
		start = *st.WindowStartS
	}
	series := func(name string, xs []float64, from float64) plotter.XYs {
		xys := make(plotter.XYs, len(xs))
		sd := seriesData{Name: name, Role: "calls/s"}
		for i, v := range xs {
			x := from + (float64(i)+0.5)*st.SeriesBatchS // the batch's middle
			xys[i] = plotter.XY{X: x, Y: v}
			sd.Points = append(sd.Points, dataPoint{X: round6(x), Y: v})
		}
		d.data = append(d.data, sd)
		return xys
	}
	end := start + float64(len(st.WindowRates))*st.SeriesBatchS
	if st.MeanPerS != nil && st.HalfWidthPerS != nil {
		lo, hi := *st.MeanPerS-*st.HalfWidthPerS, *st.MeanPerS+*st.HalfWidthPerS
		band := &plotter.Polygon{XYs: []plotter.XYs{{{X: start, Y: lo}, {X: end, Y: lo}, {X: end, Y: hi}, {X: start, Y: hi}}},
			Color: withAlpha(seriesColor(0), 0x40)}
		band.LineStyle.Width = 0
		mean := line(plotter.XYs{{X: start, Y: *st.MeanPerS}, {X: end, Y: *st.MeanPerS}}, seriesColor(0), 1, nil)
		d.p.Add(band, mean)
		d.data = append(d.data, seriesData{Name: "window mean ± half-width", Role: "interval",
			Points: []dataPoint{{X: round6(start), Y: *st.MeanPerS, Low: lo, High: hi}, {X: round6(end), Y: *st.MeanPerS, Low: lo, High: hi}}})
		d.lineLegend(fmt.Sprintf("window mean %s ± %s calls/s (±%.1f %% at %.0f %%)", humanNumber(*st.MeanPerS), humanNumber(*st.HalfWidthPerS), *st.HalfWidthPct, st.Confidence*100),
			draw.LineStyle{Color: withAlpha(seriesColor(0), 0x80), Width: vg.Points(6)})
	}
	if len(st.WarmupRates) > 0 {
		d.curve(series("warm-up", st.WarmupRates, 0), seriesColor(1), seriesGlyph(1), "warm-up batches")
	}
	d.curve(series("window", st.WindowRates, start), seriesColor(0), seriesGlyph(0), "window batches")
	top := 0.0
	for _, xs := range [][]float64{st.WarmupRates, st.WindowRates} {
		for _, v := range xs {
			top = max(top, v)
		}
	}
	vertical := func(kind string, x float64, clr color.Color, dashes []vg.Length, label string) {
		ln := line(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top * 1.05}}, clr, 1.5, dashes)
		d.p.Add(ln)
		d.marks = append(d.marks, mark{Kind: kind, Series: "window", X: round6(x), Label: label})
		d.lineLegend(label, ln.LineStyle)
	}
	if st.TruncationS != nil {
		vertical(markTruncation, *st.TruncationS, color.NRGBA{R: 0xcc, A: 0xff}, nil, "MSER-5 truncation at "+humanNumber(*st.TruncationS)+" s")
	}
	grey := color.Gray{Y: 0x70}
	vertical(markWindowStart, start, grey, []vg.Length{vg.Points(4), vg.Points(3)}, "window start, "+humanNumber(start)+" s")
	vertical(markWindowEnd, end, grey, []vg.Length{vg.Points(1.5), vg.Points(2)}, "window end, "+humanNumber(end)+" s")
	d.p.X.Min, d.p.Y.Min = 0, 0

	title := fmt.Sprintf("Batch series of %s, concurrency %d, trial %d", s.Target, s.Concurrency, s.Trial)
	if s.Rate > 0 {
		title = fmt.Sprintf("Achieved rate of %s, offered %d/s, pool %s, trial %d", s.Target, s.Rate, s.PoolSetting, s.Trial)
	}
	caption := fmt.Sprintf("warm-up %s (%s), window %s (%s); %d batch means of %d × %s s",
		st.WarmupMode, st.WarmupEnd, st.WindowMode, st.WindowEnd, st.Batches, st.BatchSize, humanNumber(st.BatchS))
	if st.SeriesBatchS != st.BatchS {
		caption += fmt.Sprintf("; drawn in %s-s batches", humanNumber(st.SeriesBatchS))
	}
	return d.figure(figSteady, title, caption), nil
}
