package plot

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/results"
)

// profileSpec is the synthetic profile's shape, as fractions of the
// step: idle, a burst to 1000/s, idle again, and a second burst.
var profileShape = []results.ProfilePhase{
	{Kind: "idle", StartS: 0, EndS: 0.2},
	{Kind: "rate", StartS: 0.2, EndS: 0.6, From: 1000, To: 1000},
	{Kind: "idle", StartS: 0.6, EndS: 0.75},
	{Kind: "rate", StartS: 0.75, EndS: 1, From: 1000, To: 1000},
}

// profileStep is a synthetic profile step of n intervals of 0.1 s
// through profileShape. A cold setting (cold: true) starts empty and
// opens 2 connections per interval from the first burst up to 20, its
// p99 spiking to about 400 ms as the burst meets the empty pool and
// falling back to 2 ms as the pool fills; a warm one holds 20 open and
// a flat 2 ms p99. Idle intervals start no call: no p99. trial shifts
// the p99 a little so trials differ.
func profileStep(target string, cold bool, minPool, trial, n int) results.StepResult {
	const iv = 0.1
	total := float64(n) * iv
	phases := make([]results.ProfilePhase, len(profileShape))
	for i, ph := range profileShape {
		ph.StartS, ph.EndS = ph.StartS*total, ph.EndS*total
		phases[i] = ph
	}
	burst := phases[1].StartS
	opts := &results.PoolOptions{MinPoolSize: minPool, MaxConnecting: 2, Cold: cold}
	st := results.StepResult{Kind: results.KindStep, Target: target, Workload: "read", PoolSetting: "20", MaxPoolSize: 20, Clients: 1,
		Concurrency: 5000, Trial: trial, StartedAt: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), DurationS: total,
		OpsByType: map[string]results.OpTypeStats{}, Mode: results.ModeProfile, PoolOptions: opts,
		Profile: &results.ProfileStats{Spec: fmt.Sprintf("idle:%gs,rate:1000:%gs,idle:%gs,rate:1000:%gs", 0.2*total, 0.4*total, 0.15*total, 0.25*total), PeakRate: 1000, Phases: phases,
			Timeline: results.Timeline{IntervalS: iv, Intervals: make([]results.TimelineInterval, n)}}}
	for i := range st.Profile.Timeline.Intervals {
		t := (float64(i) + 0.5) * iv
		loaded := slices.ContainsFunc(phases, func(ph results.ProfilePhase) bool { return ph.Kind == "rate" && t >= ph.StartS && t < ph.EndS })
		in := &st.Profile.Timeline.Intervals[i]
		in.Open = 20
		if cold {
			in.Open = max(minPool, min(20, 2*int(math.Max(0, (t-burst)/iv+1))))
		}
		if !loaded {
			continue
		}
		in.Offered, in.Calls, in.Ops = 100, 100, 100
		in.InUse = min(in.Open, 10)
		p99 := 2 + 0.05*float64(trial)
		if cold && minPool < 10 {
			p99 += 400 * math.Exp(-(t-burst)/0.3)
		}
		in.P99MS = &p99
		p50 := p99 / 2
		in.P50MS = &p50
	}
	return st
}

// profileResults is a profile run: a cold setting and a warm one,
// trials interleaved.
func profileResults(trials, n int) *results.Results {
	plan := results.PlanInfo{Concurrency: []int{5000}, Pool: "20", Pools: []int{20}, Clients: 1, Trials: trials, DurationS: float64(n) / 10, OpTimeoutS: 5}
	r := &results.Results{Path: "testdata/profile.jsonl", Header: header("profile-sim", "read", map[string]float64{"read": 100}, 1, plan,
		results.TargetHeader{Name: "sim", URI: "mongodb://127.0.0.1:27018/", Topology: "standalone", ServerVersion: "8.0.0-poolsweep-sim",
			ServerKind: "simulator", Hosts: []string{"127.0.0.1:27018"}, SimSpec: "slots=8,service=2ms"})}
	for trial := 1; trial <= trials; trial++ {
		r.Steps = append(r.Steps, profileStep("sim", true, 0, trial, n), profileStep("sim", false, 20, trial, n))
	}
	return r
}

// timelineOf draws rs's figures with an analysis that has no curve, as
// the knee analysis has for results of profile steps alone, and returns
// the timeline figures.
func timelineOf(t *testing.T, rs ...*results.Results) ([]Figure, []string) {
	t.Helper()
	figs, notes, err := Figures(rs, &analysis.Analysis{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return figs, notes
}

func TestTimelineFigureData(t *testing.T) {
	r := profileResults(2, 60)
	figs, notes := timelineOf(t, r)
	data := checkFigureData(t, "timeline", figs, notes, []string{figTimeline})
	d := data[0]
	cold, warm := "pool=20 minPool=0 cold trial 1", "pool=20 minPool=20 warm trial 1"
	for _, name := range []string{cold, warm, "pool=20 minPool=0 cold trial 2", "pool=20 minPool=20 warm trial 2"} {
		for _, role := range []string{roleTimelineCalls, roleTimelineP99, roleTimelineOpen, roleTimelineInUse} {
			if seriesOf(d, name, role) == nil {
				t.Errorf("no %s series of %q", role, name)
			}
		}
	}
	// The cold setting's spike is drawn, and the warm one stays flat.
	peak := func(name string) float64 {
		m := 0.0
		for _, p := range seriesOf(d, name, roleTimelineP99).Points {
			m = max(m, p.Y)
		}
		return m
	}
	if c, w := peak(cold), peak(warm); c < 300 || w > 3 {
		t.Errorf("worst p99 drawn: cold %g ms, warm %g ms; want the cold spike over 300 and the warm under 3", c, w)
	}
	// Connections rise as the cold pool opens them.
	open := seriesOf(d, cold, roleTimelineOpen).Points
	if open[0].Y != 0 || open[len(open)-1].Y != 20 {
		t.Errorf("cold open connections from %g to %g, want 0 to 20", open[0].Y, open[len(open)-1].Y)
	}
	if len(d.Marks) != len(profileShape) || d.Marks[1].Label != "1.0k/s" || d.Marks[2].Label != "idle" {
		t.Errorf("phase marks %+v, want the four phases", d.Marks)
	}
	// The idle spells: no p99 point (a gap, never a zero), zero calls/s.
	for _, p := range seriesOf(d, cold, roleTimelineP99).Points {
		if p.Y <= 0 || p.X < 1.2 || (p.X > 3.6 && p.X < 4.5) {
			t.Errorf("p99 point %+v in an idle spell or at zero", p)
		}
	}
	f := &figs[0]
	if len(f.Panels) != 3 || !f.Align || f.Cols != 1 {
		t.Errorf("%d panels in %d columns (align %v), want 3 stacked and aligned", len(f.Panels), f.Cols, f.Align)
	}
	if !strings.Contains(f.Caption, "Every setting: maxConnecting 2, maxIdleTimeMS none, timeoutMS none.") {
		t.Errorf("caption %q does not name the options every setting shares", f.Caption)
	}
}

// The p99 line breaks where intervals have no p99, in the picture as in
// the data: one segment per loaded phase.
func TestTimelineGapsNotZeros(t *testing.T) {
	st := profileStep("sim", true, 0, 1, 60)
	s := stepSeries(&tlSetting{label: "x"}, &st).p99
	var segs int
	for _, seg := range s.segs {
		if len(seg) > 0 {
			segs++
		}
	}
	if segs != 2 {
		t.Errorf("%d p99 segments, want 2 (the two bursts, apart)", segs)
	}
	// A setting whose intervals never had a p99 draws no p99 at all.
	for i := range st.Profile.Timeline.Intervals {
		st.Profile.Timeline.Intervals[i].P99MS = nil
	}
	if s := stepSeries(&tlSetting{label: "x"}, &st).p99; len(s.data.Points) != 0 {
		t.Errorf("%d p99 points from intervals with none", len(s.data.Points))
	}
	// Drawn whole, it still draws (an empty p99 panel) rather than fail.
	r := profileResults(1, 60)
	for i := range r.Steps[0].Profile.Timeline.Intervals {
		r.Steps[0].Profile.Timeline.Intervals[i].P99MS = nil
	}
	figs, _ := timelineOf(t, r)
	if err := figs[0].writePNG(&bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
}

// A p99 of zero or below on a log axis (the cold spike makes it log) is
// drawn at the axis's floor, not a panic, and its data keeps the value.
func TestTimelineP99AtOrBelowZero(t *testing.T) {
	r := profileResults(1, 60)
	zero, neg := 0.0, -1.0
	r.Steps[0].Profile.Timeline.Intervals[30].P99MS = &zero
	r.Steps[0].Profile.Timeline.Intervals[31].P99MS = &neg
	figs, _ := timelineOf(t, r)
	if err := figs[0].writePNG(&bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := figs[0].WriteSVG(&bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	pts := seriesOf(figs[0].Data, "pool=20 minPool=0 cold trial 1", roleTimelineP99).Points
	if !slices.ContainsFunc(pts, func(p dataPoint) bool { return p.Y == -1 }) {
		t.Error("the recorded -1 ms is not in the figure's data")
	}
}

// A long timeline is drawn in at most 2 × timelineColumns points a
// series, and a spike one interval wide survives the decimation.
func TestTimelineDecimationKeepsSpikes(t *testing.T) {
	const n = 20000
	st := profileStep("sim", false, 20, 1, n)
	spikeAt := n/2 + 7
	spike := 5000.0
	st.Profile.Timeline.Intervals[spikeAt].P99MS = &spike
	st.Profile.Timeline.Intervals[spikeAt+1].Open = 3 // a dip in open connections
	ss := stepSeries(&tlSetting{label: "x"}, &st)
	for _, s := range []*tlSeries{ss.calls, ss.p99, ss.open, ss.inUse} {
		if len(s.data.Points) > 2*timelineColumns {
			t.Errorf("%s: %d points, want at most %d", s.data.Role, len(s.data.Points), 2*timelineColumns)
		}
	}
	has := func(s *tlSeries, y float64) bool {
		return slices.ContainsFunc(s.data.Points, func(p dataPoint) bool { return p.Y == y })
	}
	if !has(ss.p99, spike) {
		t.Error("the one-interval p99 spike was lost in decimation")
	}
	if !has(ss.open, 3) {
		t.Error("the one-interval dip in open connections was lost in decimation")
	}
	// The rate is the column's mean: 1000 calls/s in a loaded stretch.
	mid := ss.calls.data.Points[len(ss.calls.data.Points)*2/5]
	if math.Abs(mid.Y-1000) > 1e-6 {
		t.Errorf("calls/s mid-burst %g, want 1000", mid.Y)
	}
}

func TestTimelineEmptyCases(t *testing.T) {
	// Closed-loop results: no timeline, and no note unless asked for.
	pair, _ := loadInputs(t)
	figs, notes, err := Figures([]*results.Results{pair}, analyzed(pair), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if strings.HasPrefix(f.Name, figTimeline) {
			t.Errorf("figure %s from results without profile steps", f.Name)
		}
	}
	for _, n := range notes {
		if strings.Contains(n, figTimeline) {
			t.Errorf("note %q for a figure not asked for", n)
		}
	}
	_, notes, err = Figures([]*results.Results{pair}, analyzed(pair), Options{Figures: []string{figThroughput, figTimeline}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(notes, "timeline: skipped: no profile steps (sweep --profile)") {
		t.Errorf("notes %q: want the timeline's skip note when asked for by name", notes)
	}
	// Profile steps alone: the timeline, and a note for the rest.
	figs, notes = timelineOf(t, profileResults(1, 60))
	if len(figs) != 1 || figs[0].Name != figTimeline || len(notes) != 1 || !strings.Contains(notes[0], "no closed-loop steps") {
		t.Errorf("figures %d, notes %q; want the timeline alone and a note", len(figs), notes)
	}
	// An interrupted profile step is left out, with a note; with no other
	// there is no figure.
	r := profileResults(1, 60)
	r.Steps = r.Steps[:1]
	r.Steps[0].Interrupted = true
	figs, notes = timelineOf(t, r)
	if len(figs) != 0 || !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "1 profile step(s) left out") }) {
		t.Errorf("figures %d, notes %q; want none and a note", len(figs), notes)
	}
}

// Two targets make two files, each named after its target, which
// WriteFiles may write.
func TestTimelineNames(t *testing.T) {
	r := profileResults(1, 60)
	// A second target, one whose name makes the same slug, one whose name
	// makes none after one named like a number, and the first target under
	// another profile.
	r.Steps = append(r.Steps, profileStep("sharded b", true, 0, 1, 60), profileStep("sharded-b", true, 0, 1, 60),
		profileStep("4", true, 0, 1, 60), profileStep("日本", true, 0, 1, 60), profileStep("sim", true, 0, 1, 70))
	figs, _ := timelineOf(t, r)
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
		if !MayWrite(f.Name+".png") || !MayWrite(f.Name+".svg") {
			t.Errorf("MayWrite refuses %s", f.Name)
		}
	}
	if !slices.Equal(names, []string{"timeline-sim", "timeline-sharded-b", "timeline-sharded-b-3", "timeline-4", "timeline-5", "timeline-sim-6"}) {
		t.Errorf("names %v", names)
	}
}

// Settings told apart by their workload label (a series label carries
// the pool options) are named by it; the options recorded are then not
// repeated.
func TestTimelineSettingLabels(t *testing.T) {
	r := profileResults(1, 60)
	r.Steps[0].Workload, r.Steps[1].Workload = "read maxConnecting=2", "read maxConnecting=16"
	figs, _ := timelineOf(t, r)
	var got []string
	for _, e := range figs[0].Legend[:2] {
		got = append(got, e.Text)
	}
	if !slices.Equal(got, []string{"read maxConnecting=16 pool=20", "read maxConnecting=2 pool=20"}) {
		t.Errorf("legend %q", got)
	}
}

func TestTimelinePNGDecodes(t *testing.T) {
	figs, _ := timelineOf(t, profileResults(2, 300))
	var b bytes.Buffer
	if err := figs[0].writePNG(&b); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w != 10*pngDPI {
		t.Errorf("width %d px, want %d", w, 10*pngDPI)
	}
	var s bytes.Buffer
	if err := figs[0].WriteSVG(&s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"p99 (ms, log)", "connections", "time since the profile began (s)", "idle spell"} {
		if !strings.Contains(s.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

// BenchmarkTimelineFigure draws 4 settings × 3 trials as PNG, with a
// short timeline (600 intervals) and the longest a profile step holds
// (20,000): the decimation keeps the long one near the short one's cost.
func BenchmarkTimelineFigure(b *testing.B) {
	for _, n := range []int{600, 20000} {
		b.Run(fmt.Sprintf("intervals=%d", n), func(b *testing.B) {
			r := profileResults(3, n)
			for trial := 1; trial <= 3; trial++ {
				r.Steps = append(r.Steps, profileStep("sim", true, 5, trial, n), profileStep("sim", true, 10, trial, n))
			}
			for b.Loop() {
				figs, _, err := Figures([]*results.Results{r}, &analysis.Analysis{}, Options{Figures: []string{figTimeline}})
				if err != nil {
					b.Fatal(err)
				}
				if err := figs[0].writePNG(&bytes.Buffer{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// eventResults is a steady 1000 calls/s for 30 s on a replica set, two
// settings, with a step-down at 10 s: 3 s without a primary (no call
// completes), a second of refilling the pools at 300 ms, and the steady
// state again; the first setting's clients saw the new primary at 13.0 s,
// the second's at 13.4 s.
func eventResults() *results.Results {
	r := profileResults(1, 300)
	r.Steps = nil
	for k, maxConn := range []int{2, 16} {
		st := profileStep("sim", false, 20, 1, 300)
		st.PoolOptions.MaxConnecting = maxConn
		st.Profile.Spec = "rate:1000:30s"
		st.Profile.Phases = []results.ProfilePhase{{Kind: "rate", StartS: 0, EndS: 30, From: 1000, To: 1000}}
		for i := range st.Profile.Timeline.Intervals {
			in := &st.Profile.Timeline.Intervals[i]
			t := float64(i) * 0.1
			p99 := 2.0
			in.Offered, in.Calls, in.Ops, in.Open, in.InUse = 100, 100, 100, 20, 10
			switch {
			case t >= 10 && t < 13:
				in.Calls, in.Ops, in.Open, in.InUse = 0, 0, 0, 0
				in.Errors = &results.ErrorCounts{Server: 100, NotWritablePrimary: 100}
				continue
			case t >= 13 && t < 14:
				p99 = 300
				in.Open = min(20, 2*(i-129)*(1+k))
			}
			in.P99MS = &p99
		}
		end := 13.0 + 0.4*float64(k)
		st.Profile.Events = []results.StepEvent{
			{EventSpec: results.EventSpec{Spec: "10s=stepdown", AtS: 10, Action: results.EventStepDown}, FiredS: 10.002 + 0.001*float64(k), EndS: &end,
				Via: results.EventViaStepDown, Host: "127.0.0.1:27018"},
			{EventSpec: results.EventSpec{Spec: "20s=slow=10:5s", AtS: 20, Action: results.EventSlow, Factor: 10, DurationS: 5}, FiredS: 20.001,
				EndS: new(25.001), Via: results.EventViaSimulator},
		}
		r.Steps = append(r.Steps, st)
	}
	return r
}

// The figure marks each event: a mark in its data from the earliest
// firing to the latest end, a line and a label in the picture, shaded
// apart from idle spells, and a caption and legend that say so.
func TestTimelineEventMarks(t *testing.T) {
	figs, _ := timelineOf(t, eventResults())
	if len(figs) != 1 || figs[0].Name != figTimeline {
		t.Fatalf("%d figures, want the timeline", len(figs))
	}
	var evs []mark
	for _, m := range figs[0].Data.Marks {
		if m.Kind == markEvent {
			evs = append(evs, m)
		}
	}
	want := []mark{{Kind: markEvent, X: 10.002, Y: 13.4, Label: "step-down"}, {Kind: markEvent, X: 20.001, Y: 25.001, Label: "slow ×10 5s"}}
	if !slices.Equal(evs, want) {
		t.Errorf("event marks %+v, want %+v", evs, want)
	}
	f := &figs[0]
	if !strings.Contains(f.Caption, "Each event is a red line where it was fired") {
		t.Errorf("caption %q does not explain the event marks", f.Caption)
	}
	var s bytes.Buffer
	if err := f.WriteSVG(&s); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"step-down", "slow ×10 5s", "event fired", "until its trigger ended"} {
		if !strings.Contains(s.String(), w) {
			t.Errorf("SVG lacks %q", w)
		}
	}
	// An event not performed is not marked.
	r := eventResults()
	for i := range r.Steps {
		r.Steps[i].Profile.Events[1].Error = "not performed"
	}
	figs, _ = timelineOf(t, r)
	for _, m := range figs[0].Data.Marks {
		if m.Kind == markEvent && m.Label != "step-down" {
			t.Errorf("an event no step performed is marked: %+v", m)
		}
	}
}

// Settings of one workload label that differ only in the driver's
// options (runs merged from files of their own) are named by those
// options, and the options they share are in the caption; a file from
// before they were recorded names none of them.
func TestTimelineDriverOptionLabels(t *testing.T) {
	r := profileResults(1, 60)
	for i, retry := range []string{"on", "off"} {
		o := *r.Steps[i].PoolOptions
		o.Cold, o.MinPoolSize = false, 0
		o.RetryReads, o.RetryWrites, o.ServerSelectionTimeoutMS, o.HeartbeatMS = retry, retry, 5000, 500
		r.Steps[i].PoolOptions = &o
	}
	figs, _ := timelineOf(t, r)
	var got []string
	for _, e := range figs[0].Legend[:2] {
		got = append(got, e.Text)
	}
	if !slices.Equal(got, []string{"pool=20 retry=off", "pool=20 retry=on"}) {
		t.Errorf("legend %q", got)
	}
	if c := figs[0].Caption; !strings.Contains(c, "serverSelectionTimeoutMS 5000ms, heartbeatFrequencyMS 500ms") || strings.Contains(c, "retryReads") {
		t.Errorf("caption %q", c)
	}
	old, _ := timelineOf(t, profileResults(1, 60))
	if c := old[0].Caption; strings.Contains(c, "serverSelection") || strings.Contains(c, "heartbeat") || strings.Contains(c, "retry") {
		t.Errorf("a file from before the driver's options names them: %q", c)
	}
}
