package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/poolsweep/poolsweep/internal/stats"
)

// timeBreakdown shows, per step level, the mean op latency split into pool
// checkout wait, server time (the server's own read/write latency, weighted
// by the op mix) and the rest (network, driver, client scheduling); and,
// where the results carry it, the server's view of the knee below each
// series: its in-flight operations by Little's law against the client's
// in-flight calls.
func (fc *figContext) timeBreakdown() ([]Figure, string) {
	type row struct {
		x                  float64
		pool, server, rest float64
		inFlight           *float64 // median server in-flight ops; nil: not reported
		trials             int      // trials that reported in-flight
		clientInFlight     float64  // K × C
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
			var pools, servers, rests, flights []float64
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
				if f, ok := serverInFlight(s); ok {
					flights = append(flights, f)
				}
			}
			if len(pools) > 0 {
				r := row{x: fc.mode.of(l), pool: stats.Mean(pools), server: stats.Mean(servers), rest: stats.Mean(rests), clientInFlight: l.inFlight, trials: len(flights)}
				if len(flights) > 0 {
					v := stats.Median(flights)
					r.inFlight = &v
				}
				rows = append(rows, r)
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
	anyInFlight := false
	for _, pn := range panels {
		for _, r := range pn.rows {
			anyInFlight = anyInFlight || r.inFlight != nil
		}
	}
	parts := []struct {
		role string
		clr  color.Color
	}{
		{"pool wait", okabeIto[1]},
		{"server", okabeIto[0]},
		{"rest", color.Gray{Y: 0xaa}},
	}
	xLabel := strings.NewReplacer(", log₂)", ")", " (log₂)", "").Replace(fc.mode.label())
	var bars, flights []*gplot.Plot
	var data []seriesData
	var legend []legendEntry
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
			sd := seriesData{Name: pn.c.label, Role: part.role}
			for i, r := range pn.rows {
				sd.Points = append(sd.Points, dataPoint{X: round6(r.x), Y: round6(vals[k][i])})
			}
			data = append(data, sd)
			if pi == 0 {
				legend = append(legend, legendEntry{Text: part.role, Thumbs: []gplot.Thumbnailer{b}})
			}
		}
		p.NominalX(names...)
		p.X.Label.Text = xLabel
		p.Y.Min = 0
		p.Y.Max *= 1.05
		bars = append(bars, p)
		if !anyInFlight {
			continue
		}

		// The server's view of the knee, on the same x categories.
		q := newPanel(xLabel, "in flight (ops, calls)")
		q.Title.Text = "server in-flight — " + shortLabel(pn.c)
		q.Add(plotter.NewGrid())
		var srv, cli plotter.XYs
		sd := seriesData{Name: pn.c.label, Role: "server in-flight"}
		cd := seriesData{Name: pn.c.label, Role: "client in-flight"}
		for i, r := range pn.rows {
			cli = append(cli, plotter.XY{X: float64(i), Y: r.clientInFlight})
			cd.Points = append(cd.Points, dataPoint{X: round6(r.x), Y: round6(r.clientInFlight)})
			if r.inFlight != nil {
				srv = append(srv, plotter.XY{X: float64(i), Y: *r.inFlight})
				sd.Points = append(sd.Points, dataPoint{X: round6(r.x), Y: round6(*r.inFlight), N: r.trials})
			}
		}
		cl := line(cli, color.Gray{Y: 0x66}, 1.3, dashUSL)
		q.Add(cl)
		if len(srv) > 0 {
			sl, ss := line(srv, okabeIto[0], 2, nil), scatter(srv, okabeIto[0], draw.CircleGlyph{}, 3)
			q.Add(sl, ss)
			data = append(data, sd)
			legend = legendOnce(legend, legendEntry{Text: "server in-flight (Little's law)", Thumbs: []gplot.Thumbnailer{sl, ss}})
		} else {
			q.Add(notice{"server in-flight not reported for this series"})
		}
		data = append(data, cd)
		legend = legendOnce(legend, legendEntry{Text: "client in-flight calls (K × C)", Thumbs: []gplot.Thumbnailer{cl}})
		q.NominalX(names...)
		q.X.Label.Text = xLabel
		q.Y.Min = 0
		q.Y.Max *= 1.1
		flights = append(flights, q)
	}
	// One y scale per row kind, so that side-by-side series compare by
	// height.
	sameY(bars)
	sameY(flights)
	// Rows of up to two series: their breakdowns, then (with in-flight
	// data) their in-flight panels beneath, column for column.
	cols := min(len(bars), 2)
	var plots []*gplot.Plot
	rows := 0
	for i := 0; i < len(bars); i += cols {
		j := min(i+cols, len(bars))
		plots = append(plots, padRow(bars[i:j], cols)...)
		rows++
		if len(flights) > 0 {
			plots = append(plots, padRow(flights[i:j], cols)...)
			rows++
		}
	}
	h := defaultHeight
	if rows > 1 {
		h = vg.Length(rows)*3*vg.Inch + 1.2*vg.Inch
	}
	cap := "Pool wait: driver checkout (CMAP events); server: the server's own read/write latency weighted by the op mix; rest: network, driver and client."
	if clamped > 0 {
		cap += fmt.Sprintf(" In %d step(s) pool + server exceeded the client's op latency; rest shown as 0.", clamped)
	}
	if anyInFlight {
		cap += " Server in-flight: operations inside the server by Little's law (its ops/s × its mean latency), median over trials;" +
			" where it stops rising while the client's in-flight calls (dashed) keep rising, the extra calls wait outside the server."
	} else {
		cap += " Server in-flight (Little's law): not reported in these results."
	}
	var shown []*curve
	for _, pn := range panels {
		shown = append(shown, pn.c)
	}
	title := "Where time went per op — " + fc.subject(shown)
	return []Figure{{
		Name: figTimeBreakdown, Title: wrapTitle(title), Caption: cap, Panels: plots, Cols: cols, Legend: legend, Height: h,
		Data: figureData{Name: figTimeBreakdown, Title: title, YLabel: "mean per op (ms)", Series: data},
	}}, note
}

// sameY gives panels the largest y range among them.
func sameY(ps []*gplot.Plot) {
	hi := 0.0
	for _, p := range ps {
		hi = math.Max(hi, p.Y.Max)
	}
	for _, p := range ps {
		p.Y.Max = hi
	}
}

// padRow fills a row of panels to cols with empty tiles.
func padRow(ps []*gplot.Plot, cols int) []*gplot.Plot {
	out := append([]*gplot.Plot(nil), ps...)
	for len(out) < cols {
		out = append(out, nil)
	}
	return out
}

// serverInFlight is the server's in-flight operations over a step's window
// (Little's law, as the telemetry recorded it): the total, else the sum
// over the hosts that reported it. ok is false when none did.
func serverInFlight(s *sweepStep) (float64, bool) {
	if s.Server == nil {
		return 0, false
	}
	if t := s.Server.Total; t != nil && t.InFlight != nil {
		return *t.InFlight, true
	}
	var sum float64
	n := 0
	for _, h := range s.Server.Hosts {
		if h != nil && h.InFlight != nil {
			sum += *h.InFlight
			n++
		}
	}
	return sum, n > 0
}

// notice is a panel's one line of text in place of data.
type notice struct{ text string }

func (n notice) Plot(c draw.Canvas, _ *gplot.Plot) {
	st := textStyle(font.From(sansFont, annotSize), greyText, draw.XCenter, draw.YCenter)
	c.FillText(st, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2}, n.text)
}

func (notice) DataRange() (xmin, xmax, ymin, ymax float64) { return 0, 1, 0, 1 }

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
			v := stats.Mean(rs)
			rd = &v
		}
		if len(ws) > 0 {
			v := stats.Mean(ws)
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

// legendOnce adds e unless the legend has an entry of its text already
// (every panel draws the same kinds of series).
func legendOnce(ls []legendEntry, e legendEntry) []legendEntry {
	if slices.ContainsFunc(ls, func(l legendEntry) bool { return l.Text == e.Text }) {
		return ls
	}
	return append(ls, e)
}
