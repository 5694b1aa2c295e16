package threshold

import (
	"strings"
	"testing"
)

// TestParseRanges: every metric takes its declared range's ends and
// refuses what lies past them, naming the metric and the value as a
// token (the audit's ops>1e308, ops>9223372036854775808, errors<1e308).
func TestParseRanges(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64 // accepted with this value; -1: refused
		part string  // the refusal names this
	}{
		{"ops>1000000000", 1e9, ""}, // maxRate itself
		{"ops>1000000001", -1, `ops: "1000000001" is not a rate from 0 to 1000000000 ops/s`},
		{"ops>1e308", -1, `ops: "1e308" is not a rate`},
		{"ops>9223372036854775808", -1, `ops: "9223372036854775808" is not a rate`},
		{"calls>=1e10", -1, `calls: "1e10" is not a rate from 0 to 1000000000 calls/s`},
		{"calls>0", 0, ""},
		{"p99<1h", 3.6e6, ""},
		{"p99<1h0m0.000001s", -1, "not between 0 and 1h"},
		{"pool_wait<-1ms", -1, "not between 0 and 1h"},
		{"p50<2562047h", -1, "not between 0 and 1h"},
		{"errors<100000000000000", 1e14, ""}, // maxErrors
		{"errors<1e14", 1e14, ""},
		{"errors<100000000000001", -1, `errors: "100000000000001" is not a count from 0 to 100000000000000`},
		{"errors<1e308", -1, `errors: "1e308" is not a count`},
		{"errors<100%", 100, ""},
		{"errors<100.0001%", -1, "not a share from 0% to 100%"},
		{"connections<=1000000000", 1e9, ""},
		{"connections<=1000000001", -1, `connections takes a whole number of connections from 0 to 1000000000, not "1000000001"`},
		{"knee>=100000", 1e5, ""},
		{"knee>=100001", -1, `knee takes a whole number of workers from 0 to 100000, not "100001"`},
		{"knee>=9223372036854775808", -1, "knee takes a whole number"},
	} {
		th, err := Parse(tc.in)
		switch {
		case tc.want < 0 && err == nil:
			t.Errorf("Parse(%q) accepted %g %s", tc.in, th.Value, th.unit())
		case tc.want < 0 && (!strings.HasPrefix(err.Error(), "threshold ") || !strings.Contains(err.Error(), tc.part)):
			t.Errorf("Parse(%q) = %q; want it to name the threshold and %q", tc.in, err, tc.part)
		case tc.want >= 0 && err != nil:
			t.Errorf("Parse(%q): %v", tc.in, err)
		case tc.want >= 0 && th.Value != tc.want:
			t.Errorf("Parse(%q) = %g, want %g", tc.in, th.Value, tc.want)
		}
	}
}

// TestParseLongValue: a 100-kB value is named by a short token with its
// length, never echoed whole.
func TestParseLongValue(t *testing.T) {
	long := "ops>" + strings.Repeat("9", 100_000)
	_, err := Parse(long)
	if err == nil {
		t.Fatal("accepted")
	}
	if msg := err.Error(); len(msg) > 300 || !strings.Contains(msg, "(100004 bytes)") {
		t.Errorf("error of %d bytes: %.300q", len(msg), msg)
	}
}
