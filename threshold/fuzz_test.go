package threshold

import (
	"strings"
	"testing"
)

// FuzzParse: any text either parses into a threshold that holds its own
// text and a value within its metric's Range, or is refused with an error
// naming it in a short line; never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"p99<20ms@64", "ops>5000@knee", "errors<0.1%", "knee>=32", "pool_wait<=1s@every", "connections<10@1", "p99<<", "@", "<@>",
		"ops>1e308", "ops>9223372036854775808", "errors<1e308", "errors<100000000000000", "knee>=100001", "calls>1000000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := Parse(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "threshold ") {
				t.Fatalf("Parse(%q): error %q does not name the threshold", s, err)
			}
			if len(err.Error()) > 600 {
				t.Fatalf("Parse(%q): an error of %d bytes", s, len(err.Error()))
			}
			return
		}
		if lo, hi, unit := Range(th.Metric, th.Share); th.Value < lo || th.Value > hi || unit != th.unit() {
			t.Fatalf("Parse(%q) = %g %s, outside its range %g to %g %s", s, th.Value, th.unit(), lo, hi, unit)
		}
		if th.Text != strings.TrimSpace(s) || th.Value < 0 || th.Value != th.Value {
			t.Fatalf("Parse(%q) = %+v", s, th)
		}
		if th.Where == atLevel && th.Level < 1 {
			t.Fatalf("Parse(%q): level %d", s, th.Level)
		}
		if again, err := Parse(th.Text); err != nil || again != th {
			t.Fatalf("Parse(%q) again = %+v, %v", th.Text, again, err)
		}
	})
}
