package main

import (
	"encoding/json"
	"github.com/poolsweep/poolsweep/internal/errext"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A sweep and a storm run of one simulator spec (accept_cost=2ms): the
// acceptor's answer is 500 connections/s (testdata/README.md).
const (
	acceptRun   = "testdata/sim-accept.jsonl"
	acceptStorm = "testdata/storm-accept.jsonl"
)

// TestFleetWithStorm: fleet --storm puts the storm's saturation beside the
// knee and turns it into the fleet's restart time, N·(P+2) connections
// over the accept rate the storms measured: within 10 % of the
// simulator's construction, N·(P+2)·accept_cost.
func TestFleetWithStorm(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI(t, "fleet", acceptRun, "--instances", "40", "--storm", acceptStorm)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	knee := strings.Index(stdout, "  - knee: ")
	setup := strings.Index(stdout, "  - connection setup, maxConnecting 2: the server's accept rate levels off at")
	if knee < 0 || setup < knee || strings.Count(stdout[knee:setup], "\n  - ") != 1 {
		t.Errorf("the storm's saturation is not beside the knee:\n%s", stdout)
	}
	// The text wraps: its words, one space apart.
	words := strings.Join(strings.Fields(stdout), " ")
	m := regexp.MustCompile(`restart, maxConnecting 2: 40 instances × \(maxPoolSize (\d+) \+ 2 monitoring\) = (\d+) connections per host, set up at the measured (\d+) connections/s[^:]*: a restart of the whole fleet takes about (\d+) ms`).FindStringSubmatch(words)
	if m == nil {
		t.Fatalf("no restart line:\n%s", stdout)
	}
	pool, _ := strconv.Atoi(m[1])
	conns, _ := strconv.Atoi(m[2])
	ms, _ := strconv.ParseFloat(m[4], 64)
	if conns != 40*(pool+2) {
		t.Errorf("%d connections for 40 × (%d + 2)", conns, pool)
	}
	if c := float64(conns) * 2; ms < 0.9*c || ms > 1.1*c {
		t.Errorf("restart %g ms, the construction's %g ms (2 ms each)", ms, c)
	}
	code, stdout, _ = runCLI(t, "fleet", acceptRun, "--instances", "40", "--storm", acceptStorm, "--format", "json")
	var p struct {
		Series []struct {
			Setup *struct {
				Restarts []struct {
					Seconds float64 `json:"seconds"`
				} `json:"restarts"`
			} `json:"connection_setup"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(stdout), &p); code != 0 || err != nil || len(p.Series) != 1 || p.Series[0].Setup == nil || len(p.Series[0].Setup.Restarts) != 2 {
		t.Errorf("json: exit %d, %v\n%s", code, err, stdout)
	}
	t.Logf("\n%s", stdout)
}

// TestReportFleetSection: report --instances adds fleet's plan (with the
// storm beside the knee) to the HTML and Markdown reports.
func TestReportFleetSection(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fleetOut := func(args ...string) string {
		code, stdout, stderr := runCLI(t, append([]string{"fleet", acceptRun}, args...)...)
		if code != 0 {
			t.Fatalf("fleet: exit %d: %s", code, stderr)
		}
		return stdout
	}
	text := fleetOut("--instances", "40", "--storm", acceptStorm)
	rec := regexp.MustCompile(`recommendation: (.*)`).FindStringSubmatch(text)[1]
	for _, format := range []string{"html", "markdown"} {
		out := filepath.Join(dir, "report."+format)
		code, _, stderr := runCLI(t, "report", acceptRun, "--instances", "40", "--storm", acceptStorm, "--format", format, "-o", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		if format == "html" {
			page = htmlText(page)
		}
		// The report shows fleet's own recommendation, word for word.
		for _, want := range []string{"Fleet", "maxPoolSize", "conns/host", rec, "a restart of the whole fleet takes about"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s report lacks %q", format, want)
			}
		}
	}
	// Without --instances, no fleet section.
	out := filepath.Join(dir, "plain.html")
	if code, _, stderr := runCLI(t, "report", acceptRun, "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); strings.Contains(string(b), `<section id="fleet">`) {
		t.Error("a fleet section without --instances")
	}
}

// htmlText undoes the page's escaping of text ("&#39;", "&#43;").
func htmlText(s string) string {
	return regexp.MustCompile(`&#(\d+);`).ReplaceAllStringFunc(s, func(m string) string {
		n, _ := strconv.Atoi(m[2 : len(m)-1])
		return string(rune(n))
	})
}

// TestFleetStormBadInput: files that do not go together, or in the wrong
// place, exit 2 with one line naming the flag or the file.
func TestFleetStormBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.html")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"fleet", recordedRun, "--instances", "4", "--storm", acceptStorm}, "--storm: " + acceptStorm + " measured another deployment"},
		{[]string{"fleet", acceptRun, "--instances", "4", "--storm", acceptRun}, "--storm: " + acceptRun + " holds a sweep's steps, not storms"},
		{[]string{"fleet", acceptRun, "--instances", "4", "--storm", "/nonexistent.jsonl"}, "--storm: "},
		{[]string{"fleet", acceptStorm, "--instances", "4"}, "a storm run (poolsweep storm), not a sweep's results"},
		{[]string{"analyze", acceptStorm}, "a storm run (poolsweep storm)"},
		{[]string{"report", acceptStorm, "-o", out}, "a storm run (poolsweep storm)"},
		{[]string{"report", acceptRun, "--storm", acceptStorm, "-o", out}, "--storm: plans a fleet, which needs --instances"},
		{[]string{"report", acceptRun, "--max-connections", "100", "-o", out}, "--max-connections: plans a fleet, which needs --instances"},
		{[]string{"report", acceptRun, "--instances", "0", "-o", out}, "--instances"},
		{[]string{"report", recordedRun, "--instances", "4", "--storm", acceptStorm, "-o", out}, "--storm: "},
	} {
		code, stdout, stderr := runCLI(t, tt.args...)
		wantUsageLine(t, tt.args, code, stdout, stderr, tt.want)
	}
	if _, err := os.Lstat(out); err == nil {
		t.Error("a report was written from bad input")
	}
}

// TestSweepReportFleetSection: sweep --instances --storm writes the fleet
// section into the report.html it writes; fleet flags without
// --instances, or a --storm file that is not a storm run, are refused
// before anything starts.
func TestSweepReportFleetSection(t *testing.T) {
	t.Parallel()
	storm, err := filepath.Abs(acceptStorm)
	if err != nil {
		t.Fatal(err)
	}
	notStorm, _ := filepath.Abs(acceptRun)
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--storm", storm}, "--storm: plans a fleet, which needs --instances"},
		{[]string{"--instances", "4", "--storm", notStorm}, "holds a sweep's steps, not storms"},
		{[]string{"--instances", "4", "--storm", filepath.Join(dir, "absent.jsonl")}, "--storm: "},
	} {
		out := filepath.Join(dir, "refused")
		args := append([]string{"sweep", "--target", "sim=sim:slots=8,service=2ms,accept_cost=2ms", "--out", out}, tt.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != errext.ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stdout %q stderr %q (want exit 2 and one line naming %q)", tt.args, code, stdout, stderr, tt.want)
		}
		if _, err := os.Lstat(out); err == nil {
			t.Errorf("%v: the output directory was made", tt.args)
		}
	}
	_, path := simSweep(t, "--target", "sim=sim:slots=8,service=2ms,accept_cost=2ms", "--concurrency", "1..16x2",
		"--warmup", "200ms", "--duration", "500ms", "--instances", "4", "--storm", storm)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(path), "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := htmlText(string(b))
	for _, want := range []string{`<section id="fleet">`, "fleet of 4 instances: sim", "<strong>Recommendation:</strong> 4 instances: maxPoolSize",
		"connection setup, maxConnecting 2: the server's accept rate levels off at", "a restart of the whole fleet takes"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
