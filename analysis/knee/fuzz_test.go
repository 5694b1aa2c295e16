package knee

import (
	"bytes"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// safeForTerminal reports whether s can be printed as is: valid UTF-8 and
// no control character but the line breaks and tabs allowed.
func safeForTerminal(s, allowed string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) && !strings.ContainsRune(allowed, r) {
			return false
		}
		if unicode.Is(unicode.Bidi_Control, r) {
			return false
		}
	}
	return true
}

// FuzzReadCSV checks that no input crashes the CSV reader or the analysis
// after it, that every error names its line and is safe to print, and that
// what is accepted holds only valid measurements. Seeds live in
// testdata/fuzz/FuzzReadCSV; CI runs
// go test -run=^$ -fuzz=FuzzReadCSV -fuzztime=5s ./analysis/knee
func FuzzReadCSV(f *testing.F) {
	if b, err := os.ReadFile("../../testdata/seeds-003.csv"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("concurrency,qps,p99_ms,trial,target,pool,clients,workload\n8,1000,2.5,1,a,match,2,read\n16,1900,3.1,1,a,match,2,read\n"))
	f.Add([]byte("\ufeffConnections, QPS ,note\n64.0,45000,x\n"))
	f.Add([]byte("concurrency,qps\n1,0x10\n"))
	f.Add([]byte("\x1b]0;t\x07concurrency,qps\n1,5\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		ss, err := ReadCSV(bytes.NewReader(in), "f.csv")
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.File != "f.csv" {
				t.Fatalf("error %q is not an InputError for f.csv", err)
			}
			if !safeForTerminal(err.Error(), "") {
				t.Fatalf("error is not safe to print: %q", err.Error())
			}
			return
		}
		if len(ss) == 0 {
			t.Fatal("no error and no series")
		}
		o := DefaultOptions()
		o.Bootstrap = 20
		for _, s := range ss {
			if !textfmt.IsPrintable(s.Target) || !textfmt.IsPrintable(s.Workload) || !textfmt.IsPrintable(s.Pool) || s.Clients < 1 {
				t.Fatalf("series accepted with bad labels: %+v", s)
			}
			for _, p := range s.Points {
				if p.Concurrency < 1 || p.Concurrency > maxCSVConcurrency || !(p.QPS >= 0) || math.IsInf(p.QPS, 0) ||
					(p.HasP99 && (!(p.P99Ms >= 0) || math.IsInf(p.P99Ms, 0))) {
					t.Fatalf("invalid point accepted: %+v", p)
				}
			}
			r := Analyze(s, o)
			if r.Peak.QPS > 0 && r.Recommendation.Concurrency < 1 {
				t.Fatalf("recommendation %+v with a peak of %g ops/s", r.Recommendation, r.Peak.QPS)
			}
			var text, js bytes.Buffer
			if err := WriteText(&text, []Report{r}); err != nil {
				t.Fatal(err)
			}
			if err := WriteJSON(&js, []Report{r}); err != nil {
				t.Fatal(err)
			}
			if !safeForTerminal(text.String(), "\n") || !safeForTerminal(Summary(r), "") {
				t.Fatalf("output is not safe to print:\n%q", text.String())
			}
		}
	})
}
