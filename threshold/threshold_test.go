package threshold

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Threshold
	}{
		// The examples.
		{"p99<20ms@64", Threshold{Metric: p99, Op: "<", Value: 20, Where: atLevel, Level: 64}},
		{"ops>5000@knee", Threshold{Metric: Ops, Op: ">", Value: 5000, Where: atKnee}},
		{"errors<0.1%", Threshold{Metric: Errors, Op: "<", Value: 0.1, Share: true}},
		{"knee>=32", Threshold{Metric: Knee, Op: ">=", Value: 32}},
		// Spellings with a unit, spaces, upper case; durations in ms.
		{"ops/s >= 100 @ 8", Threshold{Metric: Ops, Op: ">=", Value: 100, Where: atLevel, Level: 8}},
		{"calls/s>10", Threshold{Metric: calls, Op: ">", Value: 10}},
		{"P50<=1.5s@every", Threshold{Metric: p50, Op: "<=", Value: 1500}},
		{"pool_wait<250us@KNEE", Threshold{Metric: poolWait, Op: "<", Value: 0.25, Where: atKnee}},
		{"connections<=64@all", Threshold{Metric: Connections, Op: "<=", Value: 64}},
		// An error count, not a share.
		{"errors<=0", Threshold{Metric: Errors, Op: "<=", Value: 0}},
	} {
		got, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		tc.want.Text = strings.TrimSpace(tc.in)
		if got != tc.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in, part string // the error must name the threshold and this part
	}{
		{"", "empty"},
		{"p99 20ms", "no comparison"},
		{"p95<20ms", `unknown metric "p95"`},
		{"p99<20", `a duration such as 20ms`}, // a latency needs its unit
		{"p99<", "no value after <"},          // nothing to compare with
		{"p99<<20ms", `"<20ms" after < is not a value`},
		{"p99=<20ms", `unknown metric "p99="`}, // = is not an operator of its own
		{"p99<2h", "not between 0 and 1h"},
		{"ops>fast", "a rate per second"},
		{"ops>-5", "a rate per second"},
		{"ops>NaN", "a rate per second"},
		{"ops>0x10", "a rate per second"},
		{"ops>1e400", "a rate per second"},
		{"ops>1e-320", "a rate per second"},               // a denormal (internal/decimal)
		{"ops>1e-400", "a rate per second"},               // underflows to 0: not 0
		{"errors<1e-320%", "not a share from 0% to 100%"}, // a denormal share
		{"ops>1_000", "a rate per second"},
		{"errors<101%", "not a share from 0% to 100%"},
		{"errors<1.5", "a count (10) or a share"},
		{"knee>=3.5", "a whole number"},
		{"knee>=32@64", "takes no @64"},
		{"p99<20ms@", "nothing after @"},
		{"p99<20ms@0", "@0 is not a concurrency level"},
		{"p99<20ms@peak", "@peak is not a concurrency level"},
		{"p99<20ms@99999999999", "is not a concurrency level"},
		{"p99<20ms@64@knee", "is not a concurrency level"},
	} {
		_, err := Parse(tc.in)
		if err == nil {
			t.Errorf("Parse(%q) accepted it", tc.in)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "threshold ") || !strings.Contains(msg, tc.part) {
			t.Errorf("Parse(%q) = %q; want it to name the threshold and %q", tc.in, msg, tc.part)
		}
	}
}

func TestHolds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		v    float64
		want bool
	}{
		{"p99<20ms", 19.99, true},
		{"p99<20ms", 20, false}, // strict
		{"p99<=20ms", 20, true},
		{"ops>5000", 5000, false},
		{"ops>=5000", 5000, true},
		{"ops>5000", 5000.1, true},
	} {
		th, err := Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := th.holds(tc.v); got != tc.want {
			t.Errorf("%s holds for %g = %v, want %v", tc.in, tc.v, got, tc.want)
		}
	}
}
