package render

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

func f(v float64) *float64 { return &v }

// closed is a closed-loop step of target t at concurrency c.
func closed(t string, c int) results.StepResult {
	return results.StepResult{Kind: results.KindStep, Target: t, Workload: "api", PoolSetting: "match",
		Concurrency: c, MaxPoolSize: c, Clients: 1, Connections: c, Trial: 1, OpsPerS: 1000, CallsPerS: 500}
}

// open is an open-loop step of target t at rate calls/s.
func open(t string, rate int) results.StepResult {
	s := closed(t, 4)
	s.Mode, s.Rate = results.ModeOpen, rate
	s.Open = &results.OpenLoopStats{OfferedPerS: float64(rate), AchievedPerS: float64(rate)}
	return s
}

func run(steps ...results.StepResult) *results.Results {
	return &results.Results{Header: results.RunHeader{Kind: results.KindRun}, Steps: steps}
}

// summary is Summary of res with an analysis that holds nothing: the
// tables alone.
func summary(t *testing.T, res *results.Results) string {
	t.Helper()
	var b bytes.Buffer
	if err := Summary(&b, res, &analysis.Analysis{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// hasRow says whether a line of out holds the cells of row, whatever the
// columns' widths.
func hasRow(out, row string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.Join(strings.Fields(l), " ") == row {
			return true
		}
	}
	return false
}

func TestRate(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{0.4, "0"},         // rounds, never "0.4"
		{9999, "9999"},     // whole numbers up to 10,000
		{10000, "10.0k"},   // then thousands with one decimal
		{99949, "99.9k"},   //
		{100000, "100k"},   // and whole thousands from 100,000
		{1234567, "1235k"}, // no millions unit
	} {
		if got := Rate(tc.v); got != tc.want {
			t.Errorf("Rate(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := Millis(2.333); got != "2.33ms" {
		t.Errorf("Millis(2.333) = %q", got)
	}
}

// TestMarks: the closed-loop table lists every mark a step has; the
// open-loop table one, the target's failure before an interruption (the
// two tables have always differed so).
func TestMarks(t *testing.T) {
	pc := &results.PrimaryChange{Before: "a:1", After: "b:1", Changes: 1}
	tf := &results.TargetFailed{Failed: true, Reason: "killed"}
	for _, tc := range []struct {
		name              string
		interrupted       bool
		primary           *results.PrimaryChange
		failed            *results.TargetFailed
		wantClosed, wantO string
	}{
		{"clean", false, nil, nil, "", ""},
		{"interrupted", true, nil, nil, " (interrupted)", " (interrupted)"},
		{"primary change", false, pc, nil, " (" + pc.Text() + ")", ""},
		{"target failed", false, nil, tf, " (target failed)", " (target failed)"},
		{"all three", true, pc, tf, " (interrupted) (" + pc.Text() + ") (target failed)", " (target failed)"},
	} {
		s := closed("t", 1)
		s.Interrupted, s.PrimaryChange, s.TargetFailed = tc.interrupted, tc.primary, tc.failed
		if got := closedMark(s); got != tc.wantClosed {
			t.Errorf("%s: closed mark %q, want %q", tc.name, got, tc.wantClosed)
		}
		if got := openMark(s); got != tc.wantO {
			t.Errorf("%s: open mark %q, want %q", tc.name, got, tc.wantO)
		}
	}
}

func TestTicketsText(t *testing.T) {
	for _, tc := range []struct {
		name string
		tk   *results.TicketCounts
		want string
	}{
		{"not reported", nil, "n/r"},
		{"no sides", &results.TicketCounts{}, "n/r"},
		{"both sides, never added", &results.TicketCounts{Read: &results.TicketSide{InUse: f(3), Available: f(5)}, Write: &results.TicketSide{InUse: f(8), Available: f(0)}}, "r 3.0/5.0 w 8.0/0.0"},
		{"one side", &results.TicketCounts{Write: &results.TicketSide{InUse: f(1), Available: f(7)}}, "w 1.0/7.0"},
		{"a side without its free count", &results.TicketCounts{Read: &results.TicketSide{InUse: f(1)}}, "n/r"},
		{"a file from before per-side tickets", &results.TicketCounts{InUse: f(2), Available: f(126)}, "2.0/126.0"},
	} {
		if got := ticketsText(tc.tk); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestTelemetryTable: the per-window table appears only when something
// was sampled; a step the sampler never saw says "not sampled", and a
// field the server did not report is "n/r" with a footnote naming the
// server's kind and each such field once.
func TestTelemetryTable(t *testing.T) {
	if out := summary(t, run(closed("a", 1))); strings.Contains(out, "per window") {
		t.Errorf("a run without telemetry has a telemetry table:\n%s", out)
	}
	unsampled := closed("a", 1)
	unsampled.Client = &results.ClientTelemetry{CPUPct: 42}
	bare := closed("b", 2)
	bare.Server = &results.ServerTelemetry{Total: &results.ServerSample{ReadLatencyUS: f(220), WriteLatencyUS: f(385)}, SamplerErrors: 3}
	cluster := closed("c", 4)
	cluster.Server = &results.ServerTelemetry{
		Total: &results.ServerSample{CPUPct: f(50), RSSMB: f(100), ReadLatencyUS: f(1), WriteLatencyUS: f(2),
			Connections: &results.ConnCounts{Current: f(12)}},
		// The shards' queue and tickets, not the routers' (which have none).
		ShardTotal: &results.ServerSample{Queue: &results.QueueCounts{Readers: f(1.5), Writers: f(0.5)},
			Tickets: &results.TicketCounts{Read: &results.TicketSide{InUse: f(3), Available: f(5)}}},
	}
	res := run(unsampled, bare, cluster)
	res.Header.Targets = []results.TargetHeader{{Name: "b", ServerKind: "ferretdb"}, {Name: "c", ServerKind: "mongodb"}}
	out := summary(t, res)
	_, window, _ := strings.Cut(out, "per window")
	for _, want := range []string{
		"a 1 1 1 not sampled - - - - - - 42 -",
		"b 2 2 1 n/r n/r 220 385 n/r n/r n/r - 3",
		"c 4 4 1 50 100 1 2 2.0 r 3.0/5.0 12 - 0",
	} {
		if !hasRow(window, want) {
			t.Errorf("telemetry lacks the row %q:\n%s", want, out)
		}
	}
	if foot := "n/r = not reported by ferretdb: CPU, RSS, connections, queue, tickets (a window with no reads or writes also has no latency)\n"; !strings.Contains(out, foot) {
		t.Errorf("telemetry lacks the footnote %q:\n%s", foot, out)
	}
	if strings.Contains(out, "not reported by mongodb") {
		t.Errorf("a footnote for a server that reported everything:\n%s", out)
	}
}

// TestHostPools: the pools per host appear when some step kept pools to
// several servers, with each host's name escaped and an unknown role as
// "-".
func TestHostPools(t *testing.T) {
	one := closed("rs", 1)
	one.Pool.Hosts = []results.HostPool{{Host: "a:27017", Role: "primary"}}
	if out := summary(t, run(one)); strings.Contains(out, "pools per host") {
		t.Errorf("one host per step: a pools-per-host table:\n%s", out)
	}
	two := closed("rs", 2)
	two.Pool.Hosts = []results.HostPool{{Host: "a:27017", Role: "primary", ConnectionsOpen: 2, InUseMax: 2, Checkouts: 90},
		{Host: "b\x1b[2J:27017", ConnectionsOpen: 1, CheckoutFailed: 4, ConnectionsLost: 5}}
	out := summary(t, run(one, two))
	if !strings.Contains(out, "pools per host") {
		t.Fatalf("no pools per host:\n%s", out)
	}
	for _, want := range []string{"rs 2 2 1 a:27017 primary 2 2 90 0.00ms 0 0", `rs 2 2 1 b\x1b[2J:27017 - 1 0 0 0.00ms 4 5`} {
		if !hasRow(out, want) {
			t.Errorf("pools per host lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("a host's escape sequence reached the terminal")
	}
}

// TestWorkloadColumn: a run of several mixes gets a workload column in
// the step table, and its telemetry rows name the series.
func TestWorkloadColumn(t *testing.T) {
	a, b := closed("t", 1), closed("t", 1)
	b.Workload = "scan"
	a.Client, b.Client = &results.ClientTelemetry{}, &results.ClientTelemetry{}
	res := run(b, a)
	if out := summary(t, res); strings.Contains(out, "workload") {
		t.Errorf("one mix: a workload column:\n%s", out)
	}
	res.Header.Workload.Mixes = []string{"api", "scan"}
	out := summary(t, res)
	if !strings.Contains(out, "workload  target  C  P") || !strings.Contains(out, "t · scan") {
		t.Errorf("several mixes: no workload column or series names:\n%s", out)
	}
	// The steps are listed by workload within a target: api before scan.
	if strings.Index(out, "     api") > strings.Index(out, "    scan") {
		t.Errorf("steps out of order:\n%s", out)
	}
}

// TestNotesAndWarningsOnce: a run's target notes and the reader's
// warnings are printed once, escaped, whether the run is closed loop,
// open loop alone or both; in a run of both they come before the
// open-loop table.
func TestNotesAndWarningsOnce(t *testing.T) {
	warn := "cut off\x1b[31m last line\nsecond line"
	for _, tc := range []struct {
		name  string
		steps []results.StepResult
	}{
		{"closed", []results.StepResult{closed("t", 1)}},
		{"open alone", []results.StepResult{open("t", 100)}},
		{"both", []results.StepResult{open("t", 100), closed("t", 1)}},
	} {
		res := run(tc.steps...)
		res.Header.Targets = []results.TargetHeader{{Name: "t", Note: "FerretDB's numbers, not MongoDB's"}}
		res.Warnings = []string{warn, strings.Repeat("é", 1000)}
		out := summary(t, res)
		wantWarn := "warning: " + textfmt.Line(warn) + "\n"
		if n := strings.Count(out, wantWarn); n != 1 {
			t.Errorf("%s: warning printed %d times, want once:\n%s", tc.name, n, out)
		}
		if n := strings.Count(out, "note: t: FerretDB's numbers, not MongoDB's\n"); n != 1 {
			t.Errorf("%s: note printed %d times", tc.name, n)
		}
		if strings.Contains(out, "\x1b") || strings.Contains(out, "second line") {
			t.Errorf("%s: a warning's control bytes or second line reached the terminal:\n%s", tc.name, out)
		}
		if !strings.Contains(out, "… (2000 bytes)\n") {
			t.Errorf("%s: a long warning is not cut:\n%s", tc.name, out)
		}
		if i := strings.Index(out, "open loop ("); i >= 0 && tc.name == "both" && strings.Index(out, wantWarn) > i {
			t.Errorf("%s: the warnings come after the open-loop table:\n%s", tc.name, out)
		}
	}
}

type failing struct{ n int }

func (w *failing) Write(p []byte) (int, error) {
	if w.n--; w.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestWriteError: a writer that fails makes Summary, Text and the
// deployment renderers return its error.
func TestWriteError(t *testing.T) {
	res := read(t, pairRun)
	a := analysis.Of([]*results.Results{res}, knee.DefaultOptions())
	for name, render := range map[string]func(w *failing) error{
		"summary":   func(w *failing) error { return Summary(w, res, a) },
		"open":      func(w *failing) error { return Summary(w, read(t, openRun), &analysis.Analysis{}) },
		"text":      func(w *failing) error { return Text(w, a) },
		"short":     func(w *failing) error { return deploymentsShort(w, a.Curves) },
		"full":      func(w *failing) error { return Deployments(w, a.Curves) },
		"markdown":  func(w *failing) error { return DeploymentsMarkdown(w, a.Curves) },
		"json":      func(w *failing) error { return JSON(w, a) },
		"late fail": func(w *failing) error { w.n = 3; return Summary(w, res, a) },
	} {
		if err := render(&failing{}); err == nil {
			t.Errorf("%s: no error from a failing writer", name)
		}
	}
}
