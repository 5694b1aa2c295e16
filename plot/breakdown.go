package plot

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// timeBreakdown shows, per step level, the mean op latency split into pool
// checkout wait, server time (the server's own read/write latency, weighted
// by the op mix) and the rest (network, driver, client scheduling).
func (fc *figContext) timeBreakdown() ([]Figure, string) {
	type row struct {
		x                  float64
		pool, server, rest float64
	}
	type panel struct {
		c    *curve
		rows []row
	}
	var panels []panel
	clamped := 0
	for _, c := range fc.curves {
		var rows []row
		for i := range c.levels {
			l := &c.levels[i]
			var pools, servers, rests []float64
			for _, s := range l.steps {
				srv, ok := serverLatencyMs(s)
				if !ok {
					continue
				}
				op := opMeanMs(s)
				pw := s.Pool.CheckoutWait.Mean
				rest := op - pw - srv
				if rest < 0 {
					clamped++
					rest = 0
				}
				pools, servers, rests = append(pools, pw), append(servers, srv), append(rests, rest)
			}
			if len(pools) > 0 {
				rows = append(rows, row{x: fc.mode.of(l), pool: mean(pools), server: mean(servers), rest: mean(rests)})
			}
		}
		if len(rows) > 0 {
			panels = append(panels, panel{c, rows})
		}
	}
	if len(panels) == 0 {
		return nil, "skipped: no step carries server latency telemetry (read/write latency from the server sampler)"
	}
	note := ""
	if len(panels) > 4 {
		note = fmt.Sprintf("drew the first 4 of %d series with telemetry", len(panels))
		panels = panels[:4]
	}
	parts := []struct {
		role string
		clr  color.Color
	}{
		{"pool wait", okabeIto[1]},
		{"server", okabeIto[0]},
		{"rest", color.Gray{Y: 0xaa}},
	}
	var plots []*gplot.Plot
	var data []SeriesData
	var legend []LegendEntry
	for pi, pn := range panels {
		p := newPanel(fc.mode.label(), "mean per op (ms)")
		p.Title.Text = pn.c.label
		p.Add(plotter.NewGrid())
		vals := make([]plotter.Values, 3)
		var names []string
		for _, r := range pn.rows {
			vals[0] = append(vals[0], r.pool)
			vals[1] = append(vals[1], r.server)
			vals[2] = append(vals[2], r.rest)
			names = append(names, fmtX(r.x))
		}
		var below *plotter.BarChart
		w := vg.Points(math.Min(28, 300/float64(len(pn.rows))))
		for k, part := range parts {
			b, err := plotter.NewBarChart(vals[k], w)
			if err != nil {
				continue
			}
			b.Color = part.clr
			b.LineStyle.Width = 0
			if below != nil {
				b.StackOn(below)
			}
			below = b
			p.Add(b)
			sd := SeriesData{Name: pn.c.label, Role: part.role}
			for i, r := range pn.rows {
				sd.Points = append(sd.Points, DataPoint{X: round6(r.x), Y: round6(vals[k][i])})
			}
			data = append(data, sd)
			if pi == 0 {
				legend = append(legend, LegendEntry{Text: part.role, Thumbs: []gplot.Thumbnailer{b}})
			}
		}
		p.NominalX(names...)
		p.X.Label.Text = strings.NewReplacer(", log₂)", ")", " (log₂)", "").Replace(fc.mode.label())
		p.Y.Min = 0
		p.Y.Max *= 1.05
		plots = append(plots, p)
	}
	cols := min(len(plots), 2)
	rows := (len(plots) + cols - 1) / cols
	h := DefaultHeight
	if rows > 1 {
		h = vg.Length(rows)*3.2*vg.Inch + vg.Inch
	}
	cap := "Pool wait: driver checkout (CMAP events); server: the server's own read/write latency weighted by the op mix; rest: network, driver and client."
	if clamped > 0 {
		cap += fmt.Sprintf(" In %d step(s) pool + server exceeded the client's op latency; rest shown as 0.", clamped)
	}
	var shown []*curve
	for _, pn := range panels {
		shown = append(shown, pn.c)
	}
	title := "Where time went per op — " + fc.subject(shown)
	return []Figure{{
		Name: FigTimeBreakdown, Title: wrapTitle(title), Caption: cap, Panels: plots, Cols: cols, Legend: legend, Height: h,
		Data: FigureData{Name: FigTimeBreakdown, Title: title, YLabel: "mean per op (ms)", Series: data},
	}}, note
}

// opMeanMs is a step's mean latency per op: the op types' means weighted by
// their counts, or the call mean divided by ops per call when the step has
// no per-type breakdown.
func opMeanMs(s *sweepStep) float64 {
	var n, sum float64
	for _, t := range s.OpsByType {
		n += float64(t.Count)
		sum += float64(t.Count) * t.Latency.Mean
	}
	if n > 0 {
		return sum / n
	}
	if s.Calls > 0 && s.Ops > 0 {
		return s.Latency.Mean * float64(s.Calls) / float64(s.Ops)
	}
	return s.Latency.Mean
}

// serverLatencyMs is the server's mean op latency in ms, reads (find, scan)
// and writes (update, insert) weighted by the step's op counts. ok is false
// when the server did not report the latency this mix needs.
func serverLatencyMs(s *sweepStep) (float64, bool) {
	if s.Server == nil {
		return 0, false
	}
	rd, wr := sampleRW(s.Server.Total)
	if rd == nil && wr == nil {
		// No total: average the hosts that did report.
		var rs, ws []float64
		for _, h := range s.Server.Hosts {
			if h == nil {
				continue
			}
			if h.ReadLatencyUS != nil {
				rs = append(rs, *h.ReadLatencyUS)
			}
			if h.WriteLatencyUS != nil {
				ws = append(ws, *h.WriteLatencyUS)
			}
		}
		if len(rs) > 0 {
			v := mean(rs)
			rd = &v
		}
		if len(ws) > 0 {
			v := mean(ws)
			wr = &v
		}
	}
	reads, writes := readWriteCounts(s)
	if reads+writes == 0 {
		reads = 1 // no breakdown: use whatever the server gave
	}
	var sum float64
	switch {
	case reads > 0 && rd == nil, writes > 0 && wr == nil:
		if rd == nil && wr == nil {
			return 0, false
		}
		// One side missing: use the side we have for all ops rather than
		// drop the step; the caption's "server" is then approximate.
		v := rd
		if v == nil {
			v = wr
		}
		return *v / 1000, true
	}
	if reads > 0 {
		sum += reads * *rd
	}
	if writes > 0 {
		sum += writes * *wr
	}
	return sum / (reads + writes) / 1000, true
}
