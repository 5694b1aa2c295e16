package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// kneeLine is what one knee summary line says.
type kneeLine struct {
	target                 string
	concurrency, low, high int
	qps                    string // as printed, %.0f
	found                  bool
}

var summaryLine = regexp.MustCompile("`knee: (\\S+) concurrency=(\\d+) ops/s=(\\d+) \\(([^`]*)\\)`")
var summaryRange = regexp.MustCompile(`range (\d+)–(\d+)`)

// reportKnees reads the knees of a Markdown report from its summary lines.
func reportKnees(t *testing.T, md string) map[string]kneeLine {
	t.Helper()
	out := map[string]kneeLine{}
	for _, m := range summaryLine.FindAllStringSubmatch(md, -1) {
		c, _ := strconv.Atoi(m[2])
		k := kneeLine{target: m[1], concurrency: c, low: c, high: c, qps: m[3], found: true}
		if r := summaryRange.FindStringSubmatch(m[4]); r != nil {
			k.low, _ = strconv.Atoi(r[1])
			k.high, _ = strconv.Atoi(r[2])
		}
		out[m[1]+" "+strings.SplitN(m[4], ",", 2)[0]] = k // "target pool=P"
	}
	return out
}

// TestReportAgreesWithAnalyze: on the same files and options, the report's
// knees (and verdicts) are analyze --format json's, and the options change
// them (so the report cannot be passing by ignoring them).
func TestReportAgreesWithAnalyze(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pair := filepath.Join("..", "..", "plot", "testdata", "pair.jsonl")
	grid := filepath.Join("..", "..", "plot", "testdata", "grid.jsonl")
	// A second run of the pair's targets: analyze takes its steps as more
	// trials of the same series, and so must the report.
	b, err := os.ReadFile(pair)
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "again.jsonl")
	if err := os.WriteFile(again, []byte(strings.Replace(string(b), `"run_id":"pair-sim"`, `"run_id":"pair-again"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		files []string
		opts  []string
	}{
		{"one file, defaults", []string{pair}, nil},
		{"one file, options", []string{pair}, []string{"--plateau", "0.6", "--min-gain", "0.5", "--slo-p99", "20ms"}},
		{"three files, options", []string{pair, grid, again}, []string{"--plateau", "0.6", "--min-gain", "0.5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"analyze", "--format", "json"}, tc.files...), tc.opts...)
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("analyze: exit %d: %s", code, stderr)
			}
			var an struct {
				Series []struct {
					Target, Pool, Verdict string
					Knee                  struct {
						Found                  bool
						Concurrency, Low, High int
						QPS                    float64
					}
				}
			}
			if err := json.Unmarshal([]byte(stdout), &an); err != nil {
				t.Fatal(err)
			}
			md := filepath.Join(t.TempDir(), "report.md")
			args = append(append([]string{"report", "--format", "markdown", "-o", md}, tc.files...), tc.opts...)
			if code, _, stderr := runCLI(t, args...); code != 0 {
				t.Fatalf("report: exit %d: %s", code, stderr)
			}
			text, err := os.ReadFile(md)
			if err != nil {
				t.Fatal(err)
			}
			got := reportKnees(t, string(text))
			plain := strings.NewReplacer(`\`, "").Replace(string(text))
			if len(got) != len(an.Series) {
				t.Errorf("report has %d knee lines, analyze %d series", len(got), len(an.Series))
			}
			for _, s := range an.Series {
				k, ok := got[s.Target+" pool="+s.Pool]
				if !s.Knee.Found {
					continue
				}
				want := kneeLine{target: s.Target, concurrency: s.Knee.Concurrency, low: s.Knee.Low, high: s.Knee.High,
					qps: strconv.FormatFloat(s.Knee.QPS, 'f', 0, 64), found: true}
				if !ok || k != want {
					t.Errorf("%s pool=%s: report knee %+v, analyze %+v", s.Target, s.Pool, k, want)
				}
				if !strings.Contains(plain, s.Verdict) {
					t.Errorf("%s pool=%s: analyze's verdict %q is not in the report", s.Target, s.Pool, s.Verdict)
				}
			}
		})
	}
	// The options matter on this input: the knee of standalone moves.
	_, def, _ := runCLI(t, "analyze", "--format", "json", pair)
	_, opt, _ := runCLI(t, "analyze", "--format", "json", pair, "--plateau", "0.6", "--min-gain", "0.5")
	if def == opt {
		t.Error("the options do not change analyze's output on this input: the test proves nothing")
	}
}
