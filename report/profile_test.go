package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// profileRun is a run of profile steps (sweep --profile) against target
// "sim": a cold pool (minPoolSize 0, maxConnecting 2) whose p99 spikes
// to 400 ms as a burst meets it and whose connections rise 2 an
// interval, and a warm one (minPoolSize 20) flat at 2 ms; 2 trials,
// 8 s: idle 2 s, 1000 calls/s 6 s.
func profileRun() *results.Results {
	const iv, n = 0.1, 80
	r := &results.Results{Path: "profile/results.jsonl", Header: results.RunHeader{Kind: results.KindRun, Schema: results.SchemaVersion,
		RunID: "profile-sim", StartedAt: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC),
		Workload: results.WorkloadInfo{Name: "read", Mix: map[string]float64{"read": 1}, OpsPerCall: 1},
		Plan:     results.PlanInfo{Concurrency: []int{5000}, Pool: "20", Pools: []int{20}, Clients: 1, Trials: 2, DurationS: 8, OpTimeoutS: 5, Steps: 4},
		Targets: []results.TargetHeader{{Name: "sim", URI: "mongodb://127.0.0.1:27018/", Topology: "standalone", ServerKind: "simulator",
			Hosts: []string{"127.0.0.1:27018"}}}}}
	for trial := 1; trial <= 2; trial++ {
		for _, cold := range []bool{true, false} {
			minPool := 20
			if cold {
				minPool = 0
			}
			st := results.StepResult{Kind: results.KindStep, Target: "sim", Workload: "read", PoolSetting: "20", MaxPoolSize: 20, Clients: 1,
				Concurrency: 5000, Trial: trial, DurationS: 8, Mode: results.ModeProfile,
				PoolOptions: &results.PoolOptions{MinPoolSize: minPool, MaxConnecting: 2, Cold: cold},
				Profile: &results.ProfileStats{Spec: "idle:2s,rate:1000:6s", PeakRate: 1000,
					Phases:   []results.ProfilePhase{{Kind: "idle", StartS: 0, EndS: 2}, {Kind: "rate", StartS: 2, EndS: 8, From: 1000, To: 1000}},
					Timeline: results.Timeline{IntervalS: iv, Intervals: make([]results.TimelineInterval, n)}}}
			worst, created := 2.0, int64(0)
			for i := range st.Profile.Timeline.Intervals {
				in := &st.Profile.Timeline.Intervals[i]
				in.Open = 20
				if cold {
					in.Open = min(20, max(0, 2*(i-19)))
				}
				if i < 20 {
					continue
				}
				in.Offered, in.Calls, in.Ops, in.InUse = 100, 100, 100, min(in.Open, 10)
				p99 := 2.0
				if cold && i < 30 {
					p99 = 400 / float64(i-19)
				}
				worst = max(worst, p99)
				in.P99MS = &p99
			}
			if cold {
				created = 20
			}
			st.Profile.Summary = results.ProfileSummary{WorstP99MS: &worst, ConnectionsCreated: created}
			r.Steps = append(r.Steps, st)
		}
	}
	return r
}

// TestReportTimeline: a report of profile steps beside closed-loop ones
// shows the timeline figure with its caption and a table of the profile
// steps' summaries; the closed-loop table leaves them out.
func TestReportTimeline(t *testing.T) {
	pair, prof := fixture(t, "pair.jsonl"), profileRun()
	rs := []*results.Results{pair, prof}
	rep, _ := build(t, rs, analyzed(pair), nil)
	h := selfContainedHTML(t, rep)
	for _, want := range []string{`<figure id="timeline">`, "<figcaption>Per 100-ms interval", `<table class="steps profile">`,
		"<th>time to fill (s)</th>", "<th>maxConnecting</th>", "<td>cold</td>", "<td>400.00</td>"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	// Four profile rows, and no profile step in the closed-loop table (whose
	// rows carry a concurrency of 5000 only from the profile steps).
	if n := strings.Count(h, "<td>cold</td>") + strings.Count(h, "<td>warm</td>"); n != 4 {
		t.Errorf("%d profile rows, want 4", n)
	}
	if strings.Contains(h, "<td>5000</td>") {
		t.Error("a profile step in the closed-loop table")
	}
	dir := t.TempDir()
	if *lookDir != "" {
		dir = *lookDir
	}
	md := filepath.Join(dir, "timeline.md")
	if err := rep.Write(md, Markdown); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"](timeline_files/timeline.png)", "| time to fill (s) |", "Profile steps (sweep --profile)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "timeline_files", "timeline.svg")); err != nil {
		t.Error(err)
	}
	if *lookDir != "" {
		if err := rep.Write(filepath.Join(dir, "timeline.html"), HTML); err != nil {
			t.Fatal(err)
		}
	}
	// Without profile steps: neither the figure nor the table.
	rep, _ = build(t, []*results.Results{pair}, analyzed(pair), nil)
	var plain bytes.Buffer
	if err := rep.WriteHTML(&plain); err != nil {
		t.Fatal(err)
	}
	if s := plain.String(); strings.Contains(s, `id="timeline"`) || strings.Contains(s, "Profile steps") {
		t.Error("a timeline or profile table without profile steps")
	}
}

// TestReportEvents: a report of profile steps with events shows the
// events table, one row per step's event with its summary; an event not
// performed says so, and the timeline figure marks the events.
func TestReportEvents(t *testing.T) {
	prof := profileRun()
	for i := range prof.Steps {
		st := &prof.Steps[i]
		srv, limit := 30, 800
		ev := results.StepEvent{EventSpec: results.EventSpec{Spec: "5s=stepdown", AtS: 5, Action: results.EventStepDown},
			FiredS: 5.01, EndS: new(6.5), Via: results.EventViaStepDown, Host: "127.0.0.1:27018",
			Summary: &results.EventSummary{TimeToRecoverS: new(1.75), Errors: results.ErrorCounts{Server: 212, NotWritablePrimary: 210},
				RetriedOK: 17, ConnectionsCreated: 20, ConnectionsClosed: 20, PoolClears: 1, P99DuringMS: new(480.0), DegradedAfter: new(false),
				PeakConnections: []results.HostPeak{{Host: "127.0.0.1:27019", Peak: 20, ServerPeak: &srv, Limit: &limit}}}}
		if st.Trial == 2 && !st.PoolOptions.Cold {
			ev = results.StepEvent{EventSpec: ev.EventSpec, FiredS: 5.01, Via: results.EventViaStepDown, Error: "replSetStepDown: not authorized"}
		}
		st.Profile.Events = []results.StepEvent{ev}
	}
	rep, _ := build(t, []*results.Results{prof}, analyzed(prof), nil)
	h := selfContainedHTML(t, rep)
	for _, want := range []string{`<table class="steps events">`, "<th>recover (s)</th>", "<td>5s=stepdown</td>", "<td>1.75</td>",
		"<td>212 (212 server of which 210 not writable primary)</td>", "<td>127.0.0.1:27019 30 of 800</td>", "<td>not performed: replSetStepDown: not authorized</td>",
		"Events under load (sweep --event)", "step-down"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if n := strings.Count(h, "<td>5s=stepdown</td>"); n != 4 {
		t.Errorf("%d event rows, want 4", n)
	}
	dir := t.TempDir()
	if *lookDir != "" {
		dir = *lookDir
		if err := rep.Write(filepath.Join(dir, "events.html"), HTML); err != nil {
			t.Fatal(err)
		}
	}
	md := filepath.Join(dir, "events.md")
	if err := rep.Write(md, Markdown); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "| recover (s) |") || !strings.Contains(string(b), "| 5s=stepdown |") {
		t.Errorf("Markdown lacks the events table")
	}
}

// The profile steps' table has the driver's options (retry, the wait for
// a server, the heartbeat) as the steps recorded them, and leaves the
// columns out for a file from before they were recorded.
func TestProfileTableDriverOptions(t *testing.T) {
	if tb := profileStepTable(profileRun()); strings.Contains(strings.Join(tb.Head, "|"), "heartbeat") {
		t.Errorf("a file from before the driver's options has their columns: %q", tb.Head)
	}
	r := profileRun()
	for i := range r.Steps {
		o := *r.Steps[i].PoolOptions
		o.RetryReads, o.RetryWrites, o.ServerSelectionTimeoutMS, o.HeartbeatMS = "off", "on", 5000, 500
		r.Steps[i].PoolOptions = &o
	}
	tb := profileStepTable(r)
	head, row := strings.Join(tb.Head, "|"), strings.Join(tb.Rows[0], "|")
	if !strings.Contains(head, "retryReads/Writes|serverSelection (ms)|heartbeat (ms)") || !strings.Contains(row, "off/on|5000|500") {
		t.Errorf("head %q row %q", head, row)
	}
}
