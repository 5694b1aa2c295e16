package loadprofile

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/poolsweep/poolsweep/results"
)

// FuzzParse: no spec panics or hangs Parse; its error is one line
// beginning with the flag; what it accepts is within the bounds, its
// String parses back, and its first arrivals come in order.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"idle:30s,rate:2000:60s", "ramp:0:100:1m", "sine:0:10:1s:10s", "trace:t.csv", "rate:1e7:24h",
		"rate:0.001:1ms", ",", "sine:1:1:100ms:1ms", "trace:late.csv,idle:1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		p, err := Parse(spec, traceOf(testTraces))
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "--profile: ") || strings.ContainsAny(msg, "\n\r") || (utf8.ValidString(spec) && !utf8.ValidString(msg)) {
				t.Fatalf("error %q", msg)
			}
			return
		}
		if p.Duration() > MaxDuration || p.Peak() > MaxRate || p.Calls() < 1 || len(p.Phases) > MaxPhases {
			t.Fatalf("%q: out of bounds", spec)
		}
		if _, err := Parse(p.String(), traceOf(testTraces)); err != nil {
			t.Fatalf("%q: String %q does not parse: %v", spec, p.String(), err)
		}
		for _, kind := range []string{results.ArrivalsUniform, results.ArrivalsPoisson} {
			s := p.Arrivals(kind, 0, 2, 1)
			prev := time.Duration(-1)
			for range 100 {
				at, ok := s.Next()
				if !ok {
					break
				}
				if at < prev || at > p.Duration() {
					t.Fatalf("%q %s: arrival %s after %s", spec, kind, at, prev)
				}
				prev = at
			}
		}
	})
}

// FuzzParseTrace: no file's text panics ParseTrace; its error is one
// line naming the file; what it accepts holds a trace's rules.
func FuzzParseTrace(f *testing.F) {
	for _, s := range []string{"t_s,rate\n0,120\n1,135.5\n2,0\n", "0,5\n4,5\n3.5,1\n9,0\n", "\ufeff0,1\r\n1,0", "0,NaN\n", ",\n,\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pts, err := ParseTrace("t.csv", data)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "t.csv:") || strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("error %q", msg)
			}
			return
		}
		if err := checkTrace(pts); err != nil {
			t.Fatalf("accepted a trace that breaks its rules: %v", err)
		}
	})
}
