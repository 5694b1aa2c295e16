package plot

import (
	"cmp"
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
	"gonum.org/v1/plot/vg/draw"

	"github.com/poolsweep/poolsweep/internal/runinfo"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// figTimeline is the figure of profile steps (sweep --profile): calls/s,
// p99 and connections against time, one line per pool setting, with the
// profile's phases marked. One per target and profile: "timeline", or
// "timeline-TARGET" when the results hold several.
const figTimeline = "timeline"

// Roles of the timeline's series in its figureData.
const (
	roleTimelineCalls   = "calls/s"
	roleTimelineOffered = "offered"
	roleTimelineP99     = "p99"
	roleTimelineOpen    = "open"
	roleTimelineInUse   = "in use"
)

// markPhase is the kind of a timeline's phase marks: one per phase, at
// its start (X, seconds) with its end in Y and its words in Label.
const markPhase = "phase"

// markEvent is the kind of a timeline's event marks (sweep --event): one
// per event, at the earliest time it was fired in the steps drawn (X)
// with the latest time its trigger ended in Y (the step's end where one
// step ended first), and its words in Label.
const markEvent = "event"

// timelineColumns bounds the points of one drawn series: a timeline
// longer than twice this is drawn in this many columns (about one per
// pixel of a PNG's data area), so that a 20,000-interval step costs what
// a 2,000-interval one does. Rates are the column's mean; p99 and
// connections keep the column's lowest and highest interval, so that a
// spike one interval wide is never lost.
const timelineColumns = 900

// legendWrap is the longest line of a setting's name in the legend, in
// characters: about 2 inches of legend type.
const legendWrap = 30

// logSpread is the ratio of the highest to the lowest p99 drawn above
// which the p99 panel has a log axis: below it a linear one shows the
// changes better.
const logSpread = 20

// tlSetting is one pool setting of a timeline: its steps, one per trial.
type tlSetting struct {
	workload, pool string
	opts           results.PoolOptions
	label          string
	steps          []*results.StepResult
}

// tlGroup is what one timeline figure draws: the profile steps of one
// target under one profile.
type tlGroup struct {
	target, spec string
	header       *results.TargetHeader
	phases       []results.ProfilePhase
	settings     []*tlSetting
}

// tlEvent is one event as the figure marks it: from its earliest firing
// to its trigger's latest end over the steps drawn (the step's end where
// one ended first).
type tlEvent struct {
	from, to float64
	words    string
}

// events are g's events, in their order in the steps, each spanning every
// step's firing and end; an event no step could perform is not marked.
func (g *tlGroup) events() []tlEvent {
	var out []tlEvent
	idx := map[string]int{}
	for _, s := range g.settings {
		for _, st := range s.steps {
			stepEnd := float64(len(st.Profile.Timeline.Intervals)) * st.Profile.Timeline.IntervalS
			for _, ev := range st.Profile.Events {
				if ev.Error != "" {
					continue
				}
				end := stepEnd
				if ev.EndS != nil {
					end = *ev.EndS
				}
				k, ok := idx[ev.Spec]
				if !ok {
					idx[ev.Spec] = len(out)
					out = append(out, tlEvent{from: ev.FiredS, to: end, words: eventWords(ev.EventSpec)})
					continue
				}
				out[k].from, out[k].to = min(out[k].from, ev.FiredS), max(out[k].to, end)
			}
		}
	}
	return out
}

// eventWords name an event for its label: "step-down", "slow ×10 5s",
// "freeze 5s", "reset", "router restart".
func eventWords(ev results.EventSpec) string {
	switch ev.Action {
	case results.EventStepDown:
		return "step-down"
	case results.EventSlow:
		return "slow ×" + humanNumber(ev.Factor) + " " + humanNumber(ev.DurationS) + "s"
	case results.EventFreeze:
		return "freeze " + humanNumber(ev.DurationS) + "s"
	case results.EventRouterRestart:
		return "router restart"
	}
	return textfmt.Short(ev.Action)
}

// drawable says st is a profile step the timeline draws: measured over
// its whole profile with every agent, with a timeline to show.
func drawable(st *results.StepResult) bool {
	return st.Mode == results.ModeProfile && st.Profile != nil && st.Profile.Timeline.IntervalS > 0 &&
		len(st.Profile.Timeline.Intervals) > 0 && st.Measured() && !st.Partial
}

// timelineGroups groups rs's profile steps by target and profile, and
// each group's steps by setting (workload, pool setting, clients and
// pool options): steps of one setting in several files are its trials,
// as analyze forms series across files. left counts the profile steps
// left out (interrupted, the target failed, an agent missing).
func timelineGroups(rs []*results.Results) (groups []*tlGroup, left int) {
	byGroup := map[string]*tlGroup{}
	bySetting := map[string]*tlSetting{}
	for _, r := range rs {
		for i := range r.Steps {
			st := &r.Steps[i]
			if st.Mode != results.ModeProfile {
				continue
			}
			if !drawable(st) {
				left++
				continue
			}
			gk := st.Target + "\x00" + st.Profile.Spec
			g := byGroup[gk]
			if g == nil {
				g = &tlGroup{target: st.Target, spec: st.Profile.Spec, phases: st.Profile.Phases}
				for ti := range r.Header.Targets {
					if r.Header.Targets[ti].Name == st.Target {
						g.header = &r.Header.Targets[ti]
					}
				}
				byGroup[gk] = g
				groups = append(groups, g)
			}
			var opts results.PoolOptions
			if st.PoolOptions != nil {
				opts = *st.PoolOptions
			}
			sk := fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%+v", gk, st.Workload, st.PoolSetting, max(st.Clients, 1), opts)
			s := bySetting[sk]
			if s == nil {
				s = &tlSetting{workload: st.Workload, pool: st.PoolSetting, opts: opts}
				bySetting[sk] = s
				g.settings = append(g.settings, s)
			}
			s.steps = append(s.steps, st)
		}
	}
	for _, g := range groups {
		for _, s := range g.settings {
			slices.SortStableFunc(s.steps, func(a, b *results.StepResult) int { return cmp.Compare(a.Trial, b.Trial) })
		}
		slices.SortStableFunc(g.settings, func(a, b *tlSetting) int {
			return cmp.Or(cmp.Compare(a.workload, b.workload), cmp.Compare(runinfo.PoolRank(a.pool), runinfo.PoolRank(b.pool)),
				cmp.Compare(a.opts.MinPoolSize, b.opts.MinPoolSize), cmp.Compare(a.opts.MaxConnecting, b.opts.MaxConnecting),
				cmp.Compare(a.opts.MaxIdleMS, b.opts.MaxIdleMS), cmp.Compare(a.opts.TimeoutMS, b.opts.TimeoutMS),
				cmp.Compare(a.opts.RetryReads, b.opts.RetryReads), cmp.Compare(a.opts.ServerSelectionTimeoutMS, b.opts.ServerSelectionTimeoutMS),
				cmp.Compare(a.opts.HeartbeatMS, b.opts.HeartbeatMS),
				-cmp.Compare(boolInt(a.opts.Cold), boolInt(b.opts.Cold)))
		})
		labelSettings(g.settings)
	}
	return groups, left
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// labelSettings names each setting by what sets it apart from the
// others: its workload label when those differ (a series label carries
// the pool options it ran with), else the pool options recorded with its
// steps that differ; maxPoolSize always.
func labelSettings(ss []*tlSetting) {
	differ := func(f func(*tlSetting) string) bool {
		return slices.ContainsFunc(ss, func(s *tlSetting) bool { return f(s) != f(ss[0]) })
	}
	byWorkload := differ(func(s *tlSetting) string { return s.workload })
	for _, s := range ss {
		parts := []string{"pool=" + s.pool}
		if byWorkload {
			parts = append([]string{s.workload}, parts...)
		} else {
			for _, o := range poolOptionWords {
				if differ(func(x *tlSetting) string { return o.short(x.opts) }) && o.short(s.opts) != "" {
					parts = append(parts, o.short(s.opts))
				}
			}
		}
		s.label = strings.Join(parts, " ")
	}
}

// poolOptionWords say each of PoolOptions' options, short for a legend
// and long for a caption.
var poolOptionWords = []struct {
	short, long func(results.PoolOptions) string
}{
	{func(o results.PoolOptions) string { return "minPool=" + strconv.Itoa(o.MinPoolSize) },
		func(o results.PoolOptions) string { return "minPoolSize " + strconv.Itoa(o.MinPoolSize) }},
	{func(o results.PoolOptions) string { return "maxConnecting=" + strconv.Itoa(o.MaxConnecting) },
		func(o results.PoolOptions) string { return "maxConnecting " + strconv.Itoa(o.MaxConnecting) }},
	{func(o results.PoolOptions) string { return "maxIdle=" + msOrNone(o.MaxIdleMS) },
		func(o results.PoolOptions) string { return "maxIdleTimeMS " + msOrNone(o.MaxIdleMS) }},
	{func(o results.PoolOptions) string { return "timeout=" + msOrNone(o.TimeoutMS) },
		func(o results.PoolOptions) string { return "timeoutMS " + msOrNone(o.TimeoutMS) }},
	{func(o results.PoolOptions) string { return coldWord(o.Cold) }, func(o results.PoolOptions) string { return coldWord(o.Cold) + " pools" }},
	// The driver's options: "" where the file is from before they were
	// recorded, and then left out.
	{retryWords(""), retryWords("retryReads ")},
	{func(o results.PoolOptions) string {
		return recordedWord("serverSelection=", o.ServerSelectionTimeoutMS)
	},
		func(o results.PoolOptions) string {
			return recordedWord("serverSelectionTimeoutMS ", o.ServerSelectionTimeoutMS)
		}},
	{func(o results.PoolOptions) string { return recordedWord("heartbeat=", o.HeartbeatMS) },
		func(o results.PoolOptions) string { return recordedWord("heartbeatFrequencyMS ", o.HeartbeatMS) }},
}

// retryWords says retryReads and retryWrites: one word when they agree.
func retryWords(long string) func(results.PoolOptions) string {
	return func(o results.PoolOptions) string {
		switch {
		case o.RetryReads == "":
			return ""
		case o.RetryReads == o.RetryWrites && long == "":
			return "retry=" + o.RetryReads
		case long == "":
			return "retryReads=" + o.RetryReads + " retryWrites=" + o.RetryWrites
		}
		return long + o.RetryReads + ", retryWrites " + o.RetryWrites
	}
}

// recordedWord is prefix and a length in ms, or "" where none was
// recorded.
func recordedWord(prefix string, ms int64) string {
	if ms == 0 {
		return ""
	}
	return prefix + strconv.FormatInt(ms, 10) + "ms"
}

func msOrNone(ms int64) string {
	if ms == 0 {
		return "none"
	}
	return strconv.FormatInt(ms, 10) + "ms"
}

func coldWord(cold bool) string {
	if cold {
		return "cold"
	}
	return "warm"
}

// commonOptions says the pool options every setting of g shares, for
// the caption; empty when the steps recorded none.
func (g *tlGroup) commonOptions() string {
	recorded := false
	for _, s := range g.settings {
		for _, st := range s.steps {
			recorded = recorded || st.PoolOptions != nil
		}
	}
	if !recorded {
		return ""
	}
	var out []string
	for _, o := range poolOptionWords {
		if !slices.ContainsFunc(g.settings, func(s *tlSetting) bool { return o.short(s.opts) != o.short(g.settings[0].opts) }) {
			if w := o.long(g.settings[0].opts); w != "" {
				out = append(out, w)
			}
		}
	}
	return strings.Join(out, ", ")
}

// timelineFigs draws a timeline figure per target and profile when
// timeline is wanted; when there is nothing to draw and it was asked for
// by name, a note says why.
func timelineFigs(rs []*results.Results, want map[string]bool, named bool) ([]Figure, []string) {
	if !want[figTimeline] {
		return nil, nil
	}
	groups, left := timelineGroups(rs)
	var notes []string
	if left > 0 {
		notes = append(notes, fmt.Sprintf("%s: %d profile step(s) left out: interrupted, the target failed or an agent was missing", figTimeline, left))
	}
	if len(groups) == 0 {
		if named && left == 0 {
			notes = append(notes, figTimeline+": skipped: no profile steps (sweep --profile)")
		}
		return nil, notes
	}
	var figs []Figure
	used := map[string]bool{}
	for i, g := range groups {
		name := figTimeline
		if len(groups) > 1 {
			name += "-" + slug(g.target)
			// One target under two profiles, or two targets whose names
			// make the same slug ("a b", "a-b"): each file its own name.
			base := strings.TrimSuffix(name, "-")
			for k := i + 1; used[name] || strings.HasSuffix(name, "-"); k++ {
				name = base + "-" + strconv.Itoa(k)
			}
		}
		used[name] = true
		figs = append(figs, timelineFigure(name, g))
	}
	return figs, notes
}

// tlSeries is one drawn series: its points in segments (a gap where its
// intervals had no value) and the data behind them.
type tlSeries struct {
	segs []plotter.XYs
	data seriesData
}

func (s *tlSeries) add(x, y float64) {
	s.segs[len(s.segs)-1] = append(s.segs[len(s.segs)-1], plotter.XY{X: x, Y: y})
	s.data.Points = append(s.data.Points, dataPoint{X: round6(x), Y: round6(y)})
}

// gap ends the current segment.
func (s *tlSeries) gap() {
	if len(s.segs[len(s.segs)-1]) > 0 {
		s.segs = append(s.segs, nil)
	}
}

func newSeries(name, role string) *tlSeries {
	return &tlSeries{segs: []plotter.XYs{nil}, data: seriesData{Name: name, Role: role}}
}

// columns splits n intervals into the columns drawn: each interval its
// own when n is at most twice timelineColumns, else timelineColumns runs
// of about equal length.
func columns(n int) [][2]int {
	k := 1
	if n > 2*timelineColumns {
		k = (n + timelineColumns - 1) / timelineColumns
	}
	out := make([][2]int, 0, (n+k-1)/k)
	for lo := 0; lo < n; lo += k {
		out = append(out, [2]int{lo, min(n, lo+k)})
	}
	return out
}

// rateSeries draws a per-interval count as a rate: each column's mean.
func rateSeries(name, role string, tl *results.Timeline, count func(*results.TimelineInterval) int64) *tlSeries {
	s := newSeries(name, role)
	for _, c := range columns(len(tl.Intervals)) {
		var n int64
		for i := c[0]; i < c[1]; i++ {
			n += count(&tl.Intervals[i])
		}
		s.add(float64(c[0]+c[1])/2*tl.IntervalS, float64(n)/(float64(c[1]-c[0])*tl.IntervalS))
	}
	return s
}

// extremeSeries draws a per-interval value that may be absent: each
// column's lowest and highest interval, in time order at their own
// intervals' middles (one point when they are one interval), so a spike
// survives any decimation; a column with no value is a gap, not a zero.
func extremeSeries(name, role string, tl *results.Timeline, value func(*results.TimelineInterval) (float64, bool)) *tlSeries {
	s := newSeries(name, role)
	mid := func(i int) float64 { return (float64(i) + 0.5) * tl.IntervalS }
	for _, c := range columns(len(tl.Intervals)) {
		lo, hi := -1, -1
		var vlo, vhi float64
		for i := c[0]; i < c[1]; i++ {
			v, ok := value(&tl.Intervals[i])
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			if lo < 0 || v < vlo {
				lo, vlo = i, v
			}
			if hi < 0 || v > vhi {
				hi, vhi = i, v
			}
		}
		switch {
		case lo < 0:
			s.gap()
		case lo == hi:
			s.add(mid(lo), vlo)
		case lo < hi:
			s.add(mid(lo), vlo)
			s.add(mid(hi), vhi)
		default:
			s.add(mid(hi), vhi)
			s.add(mid(lo), vlo)
		}
	}
	return s
}

// tlStep is one step's drawn series.
type tlStep struct {
	calls, p99, open, inUse *tlSeries
}

func stepSeries(s *tlSetting, st *results.StepResult) tlStep {
	tl := &st.Profile.Timeline
	name := s.label + " trial " + strconv.Itoa(st.Trial)
	return tlStep{
		calls: rateSeries(name, roleTimelineCalls, tl, func(iv *results.TimelineInterval) int64 { return iv.Calls }),
		p99: extremeSeries(name, roleTimelineP99, tl, func(iv *results.TimelineInterval) (float64, bool) {
			if iv.P99MS == nil {
				return 0, false
			}
			return *iv.P99MS, true
		}),
		open:  extremeSeries(name, roleTimelineOpen, tl, func(iv *results.TimelineInterval) (float64, bool) { return float64(iv.Open), true }),
		inUse: extremeSeries(name, roleTimelineInUse, tl, func(iv *results.TimelineInterval) (float64, bool) { return float64(iv.InUse), true }),
	}
}

var (
	dashOffered = []vg.Length{vg.Points(5), vg.Points(3)}
	dashInUse   = []vg.Length{vg.Points(3), vg.Points(2)}
	dashPhase   = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
	idleShade   = color.NRGBA{R: 0x90, G: 0x90, B: 0x90, A: 0x38}
	phaseGrey   = color.Gray{Y: 0x80}
	offeredGrey = color.Gray{Y: 0x44}
)

// drawSeries adds s's segments to p in clr; a segment of one point is a
// dot, since a line needs two.
func drawSeries(p *gplot.Plot, s *tlSeries, clr color.Color, width float64, dashes []vg.Length) {
	for _, seg := range s.segs {
		switch len(seg) {
		case 0:
		case 1:
			p.Add(scatter(seg, clr, draw.CircleGlyph{}, width))
		default:
			p.Add(line(seg, clr, width, dashes))
		}
	}
}

// timelineFigure draws one group: three panels over one time axis
// (calls/s with the offered rate, p99, connections), one colour per
// setting, every trial drawn: the first bold, the others thin.
func timelineFigure(name string, g *tlGroup) Figure {
	xlabel := "time since the profile began (s)"
	calls, p99, conns := newPanel("", "calls/s"), newPanel("", "p99 (ms)"), newPanel(xlabel, "connections")
	panels := []*gplot.Plot{calls, p99, conns}
	evs := g.events()
	for _, p := range panels {
		p.Add(plotter.NewGrid())
		p.Add(&phaseMarks{phases: g.phases, labels: p == calls})
		p.Add(&eventMarks{events: evs, labels: p == calls})
	}
	var data []seriesData
	var legend []legendEntry
	end := 0.0
	for _, ph := range g.phases {
		end = max(end, ph.EndS)
	}
	trials := 0
	var p99s []float64
	topCalls, topConns := 0.0, 0.0
	// Other trials first, thin, so every first trial lies on top of them.
	type drawn struct {
		clr   color.NRGBA
		first bool
		s     tlStep
	}
	var all []drawn
	for si, s := range g.settings {
		clr := seriesColor(si)
		trials = max(trials, len(s.steps))
		for ti, st := range s.steps {
			ss := stepSeries(s, st)
			all = append(all, drawn{clr, ti == 0, ss})
			end = max(end, float64(len(st.Profile.Timeline.Intervals))*st.Profile.Timeline.IntervalS)
			data = append(data, ss.calls.data, ss.p99.data, ss.open.data, ss.inUse.data)
			for _, pt := range ss.calls.data.Points {
				topCalls = max(topCalls, pt.Y)
			}
			for _, pt := range ss.p99.data.Points {
				p99s = append(p99s, pt.Y)
			}
			for _, pt := range ss.open.data.Points {
				topConns = max(topConns, pt.Y)
			}
			for _, pt := range ss.inUse.data.Points {
				topConns = max(topConns, pt.Y)
			}
		}
		// Wrapped, so that a setting told apart by several options keeps
		// the legend narrow and the panels wide: each further line is an
		// entry of its own without a swatch, since the legend makes every
		// entry as tall as its tallest.
		for i, ln := range strings.Split(textfmt.Wrap(s.label, legendWrap), "\n") {
			e := legendEntry{Text: ln}
			if i == 0 {
				e.Thumbs = []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: clr, Width: vg.Points(2.5)}}}
			}
			legend = append(legend, e)
		}
	}
	// A p99 of zero or below has no place on a log axis: it is drawn at
	// the axis's floor (its data keeps the value recorded).
	if p99Axis(p99, p99s) {
		for _, d := range all {
			for _, seg := range d.s.p99.segs {
				for i := range seg {
					seg[i].Y = max(seg[i].Y, p99.Y.Min)
				}
			}
		}
	}
	for _, pass := range []bool{false, true} {
		for _, d := range all {
			if d.first != pass {
				continue
			}
			clr, w := color.Color(d.clr), 1.6
			if !d.first {
				clr, w = withAlpha(d.clr, 0x80), 0.6
			}
			drawSeries(calls, d.s.calls, clr, w, nil)
			drawSeries(p99, d.s.p99, clr, w, nil)
			drawSeries(conns, d.s.open, clr, w, nil)
			drawSeries(conns, d.s.inUse, clr, w, dashInUse)
		}
	}
	// The offered rate is the first setting's first trial's: every step
	// was offered the same profile.
	first := g.settings[0]
	offered := rateSeries("offered", roleTimelineOffered, &first.steps[0].Profile.Timeline, func(iv *results.TimelineInterval) int64 { return iv.Offered })
	drawSeries(calls, offered, offeredGrey, 1.2, dashOffered)
	data = append([]seriesData{offered.data}, data...)
	for _, pt := range offered.data.Points {
		topCalls = max(topCalls, pt.Y)
	}

	for _, p := range panels {
		p.X.Min, p.X.Max = 0, end
		p.X.Tick.Marker = plainTicks{}
	}
	for _, p := range panels[:2] {
		p.X.Tick.Marker = unlabelled{plainTicks{}}
	}
	// Headroom over the highest line for the phase labels.
	calls.Y.Min, calls.Y.Max = 0, max(topCalls, 1)*1.22
	if len(evs) > 0 {
		// Room for a second line of labels: the events' below the phases'.
		calls.Y.Max = max(topCalls, 1) * 1.4
	}
	calls.Y.Tick.Marker = humanTicks{}
	conns.Y.Min, conns.Y.Max = 0, max(topConns, 1)*1.08
	conns.Y.Tick.Marker = humanTicks{}

	marks := make([]mark, 0, len(g.phases))
	for _, ph := range g.phases {
		marks = append(marks, mark{Kind: markPhase, X: round6(ph.StartS), Y: round6(ph.EndS), Label: phaseWords(ph)})
	}
	for _, ev := range evs {
		marks = append(marks, mark{Kind: markEvent, X: round6(ev.from), Y: round6(ev.to), Label: ev.words})
	}
	grey := color.Gray{Y: 0x44}
	legend = append(legend,
		legendEntry{Text: "offered rate (top)", Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: offeredGrey, Width: vg.Points(1.2), Dashes: dashOffered}}}},
		legendEntry{Text: "open (bottom, solid)", Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: grey, Width: vg.Points(1.6)}}}},
		legendEntry{Text: "in use (bottom, dashed)", Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: grey, Width: vg.Points(1.6), Dashes: dashInUse}}}})
	if trials > 1 {
		legend = append(legend,
			legendEntry{Text: "first trial", Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: grey, Width: vg.Points(1.6)}}}},
			legendEntry{Text: "other trials", Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: withAlpha(color.NRGBA{R: 0x44, G: 0x44, B: 0x44, A: 0xff}, 0x80), Width: vg.Points(0.6)}}}})
	}
	if slices.ContainsFunc(g.phases, func(ph results.ProfilePhase) bool { return ph.Kind == "idle" }) {
		legend = append(legend, legendEntry{Text: "idle spell", Thumbs: []gplot.Thumbnailer{boxThumb{idleShade}}})
	}
	if len(evs) > 0 {
		legend = append(legend,
			legendEntry{Text: "event fired", Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: eventColor, Width: vg.Points(1.5)}}}},
			legendEntry{Text: "until its trigger ended", Thumbs: []gplot.Thumbnailer{boxThumb{eventShade}}})
	}
	if len(g.phases) > 1 {
		legend = append(legend, legendEntry{Text: "phase boundary", Thumbs: []gplot.Thumbnailer{lineThumb{draw.LineStyle{Color: phaseGrey, Width: vg.Points(1), Dashes: dashPhase}}}})
	}

	// The profile as given, escaped, and cut where a trace's long path
	// would push the title past two lines.
	title := "Timeline of profile " + textfmt.CapLineAt(textfmt.Escape(g.spec), 80) + " — " + g.subject()
	return Figure{
		Name: name, Title: wrapTitle(title), Caption: g.caption(trials, len(evs) > 0), Panels: panels, Cols: 1, Align: true,
		Legend: legend, Width: 10 * vg.Inch, Height: 9 * vg.Inch,
		Data: figureData{Name: name, Title: title, XLabel: xlabel, YLabel: "calls/s; p99 (ms); connections", Series: data, Marks: marks},
	}
}

// p99Axis scales the p99 panel: log when the values drawn spread over
// more than logSpread, so a cold burst's spike and the steady state both
// read; linear from zero otherwise. It says whether the axis is log.
func p99Axis(p *gplot.Plot, ys []float64) bool {
	lo, hi := math.Inf(1), 0.0
	for _, y := range ys {
		if y > 0 {
			lo = min(lo, y)
		}
		hi = max(hi, y)
	}
	if hi <= 0 {
		p.Y.Min, p.Y.Max = 0, 1
		return false
	}
	if hi/lo > logSpread {
		p.Y.Scale = gplot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
		p.Y.Label.Text = "p99 (ms, log)"
		p.Y.Min, p.Y.Max = lo/1.3, hi*1.3
		return true
	}
	p.Y.Min, p.Y.Max = min(0, slices.Min(ys))*1.08, hi*1.08
	p.Y.Tick.Marker = humanTicks{}
	return false
}

// subject is the "workload … on target" part of the title.
func (g *tlGroup) subject() string {
	var wls []string
	for _, s := range g.settings {
		// The workload once: each setting's own options are the legend's.
		if w := results.PoolLabelBase(s.workload); w != "" && !slices.Contains(wls, w) {
			wls = append(wls, w)
		}
	}
	t := g.target
	if g.header != nil {
		if n := runinfo.ServerKind(g.header); n != "" {
			t += " (" + n + ")"
		}
	}
	if len(wls) == 0 {
		return t
	}
	return "workload " + textfmt.List(wls, ", ") + " on " + t
}

func (g *tlGroup) caption(trials int, events bool) string {
	iv := g.settings[0].steps[0].Profile.Timeline.IntervalS
	s := fmt.Sprintf("Per %s-ms interval, by each call's intended start: calls/s carried (the grey dashed line is the rate offered), "+
		"p99 corrected for coordinated omission (a gap where no call started), and connections open (solid) and in use (dashed) over every client. ",
		humanNumber(iv*1000))
	if trials > 1 {
		s += "Every trial is drawn: the first bold, the others thin. "
	}
	s += "Shaded: idle spells; dotted: phase boundaries. "
	if events {
		s += "Each event is a red line where it was fired (its earliest firing over the steps drawn), labelled, and shaded in red until its trigger ended (its latest end; the step's end where the step ended first). "
	}
	s += "A long timeline is drawn in at most " + strconv.Itoa(timelineColumns) +
		" columns: calls/s as each column's mean, p99 and connections as its lowest and highest interval, so no spike is lost."
	if o := g.commonOptions(); o != "" {
		s += " Every setting: " + o + "."
	}
	return s
}

// phaseWords names a phase for its label: "idle", "2000/s", "ramp
// 0→2000/s", "sine 100–2000/s", "trace".
func phaseWords(ph results.ProfilePhase) string {
	switch ph.Kind {
	case "idle":
		return "idle"
	case "rate":
		return humanNumber(ph.From) + "/s"
	case "ramp":
		return "ramp " + humanNumber(ph.From) + "→" + humanNumber(ph.To) + "/s"
	case "sine":
		return "sine " + humanNumber(ph.From) + "–" + humanNumber(ph.To) + "/s"
	}
	return textfmt.Short(ph.Kind)
}

// phaseMarks shades the idle spells and draws a dotted line at each
// boundary between phases, over the whole height of a panel whatever
// its scale; with labels, each phase's words at the panel's top, where
// they fit.
type phaseMarks struct {
	phases []results.ProfilePhase
	labels bool
}

func (m *phaseMarks) Plot(c draw.Canvas, plt *gplot.Plot) {
	trX, _ := plt.Transforms(&c)
	clip := func(x vg.Length) vg.Length { return min(max(x, c.Min.X), c.Max.X) }
	for _, ph := range m.phases {
		if ph.Kind != "idle" {
			continue
		}
		x0, x1 := clip(trX(ph.StartS)), clip(trX(ph.EndS))
		if x1 > x0 {
			c.SetColor(idleShade)
			c.Fill(vg.Rectangle{Min: vg.Point{X: x0, Y: c.Min.Y}, Max: vg.Point{X: x1, Y: c.Max.Y}}.Path())
		}
	}
	ls := draw.LineStyle{Color: phaseGrey, Width: vg.Points(1), Dashes: dashPhase}
	for i, ph := range m.phases {
		if i == 0 {
			continue
		}
		if x := trX(ph.StartS); x > c.Min.X && x < c.Max.X {
			c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
		}
	}
	if !m.labels {
		return
	}
	ts := textStyle(font.From(sansFont, annotSize), greyText, draw.XCenter, draw.YTop)
	pad := vg.Points(4)
	for _, ph := range m.phases {
		x0, x1 := clip(trX(ph.StartS)), clip(trX(ph.EndS))
		words := phaseWords(ph)
		// A label wider than its phase would run into its neighbour's:
		// the caption and the title's profile name it instead.
		if ts.Width(words)+2*pad > x1-x0 {
			continue
		}
		c.FillText(ts, vg.Point{X: (x0 + x1) / 2, Y: c.Max.Y - pad}, words)
	}
}

var (
	eventColor = color.NRGBA{R: 0xc0, G: 0x20, B: 0x20, A: 0xff}
	eventShade = color.NRGBA{R: 0xe0, G: 0x40, B: 0x30, A: 0x26}
)

// eventMarks shades each event's span and draws a solid line where it was
// fired, over the whole height of a panel; with labels, its words just
// right of the line, below the phases' labels.
type eventMarks struct {
	events []tlEvent
	labels bool
}

func (m *eventMarks) Plot(c draw.Canvas, plt *gplot.Plot) {
	trX, _ := plt.Transforms(&c)
	clip := func(x vg.Length) vg.Length { return min(max(x, c.Min.X), c.Max.X) }
	ls := draw.LineStyle{Color: eventColor, Width: vg.Points(1.5)}
	ts := textStyle(font.From(sansFont, annotSize), eventColor, draw.XLeft, draw.YTop)
	pad := vg.Points(4)
	for _, ev := range m.events {
		x0, x1 := clip(trX(ev.from)), clip(trX(ev.to))
		if x1 > x0 {
			c.SetColor(eventShade)
			c.Fill(vg.Rectangle{Min: vg.Point{X: x0, Y: c.Min.Y}, Max: vg.Point{X: x1, Y: c.Max.Y}}.Path())
		}
		x := trX(ev.from)
		if x < c.Min.X || x > c.Max.X {
			continue
		}
		c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
		if m.labels {
			// Below the phase labels' line; at the right edge a label
			// goes left of its line instead of off the panel.
			ts.XAlign = draw.XLeft
			at := x + pad
			if at+ts.Width(ev.words) > c.Max.X {
				ts.XAlign, at = draw.XRight, x-pad
			}
			c.FillText(ts, vg.Point{X: at, Y: c.Max.Y - pad - ts.Height(ev.words) - pad}, ev.words)
		}
	}
}

// unlabelled keeps a ticker's ticks but not their labels: the upper
// panels of a shared time axis.
type unlabelled struct{ gplot.Ticker }

func (u unlabelled) Ticks(min, max float64) []gplot.Tick {
	ts := u.Ticker.Ticks(min, max)
	for i := range ts {
		ts[i].Label = ""
	}
	return ts
}

// plainTicks are humanTicks labelled as plain numbers: seconds read
// "1200", not "1.2k".
type plainTicks struct{}

func (plainTicks) Ticks(min, max float64) []gplot.Tick {
	ts := humanTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = plainNumber(ts[i].Value)
		}
	}
	return ts
}

// boxThumb is a legend swatch of a shaded area.
type boxThumb struct{ Color color.Color }

func (t boxThumb) Thumbnail(c *draw.Canvas) {
	c.SetColor(t.Color)
	c.Fill(c.Rectangle.Path())
}

// profileStepCount is how many profile steps rs hold.
func profileStepCount(rs []*results.Results) int {
	n := 0
	for _, r := range rs {
		for i := range r.Steps {
			if r.Steps[i].Mode == results.ModeProfile {
				n++
			}
		}
	}
	return n
}
