package threshold

import (
	"strings"
	"testing"
)

// FuzzParse: any text either parses into a threshold that holds its own
// text, or is refused with an error naming it; never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"p99<20ms@64", "ops>5000@knee", "errors<0.1%", "knee>=32", "pool_wait<=1s@every", "connections<10@1", "p99<<", "@", "<@>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := Parse(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "threshold ") {
				t.Fatalf("Parse(%q): error %q does not name the threshold", s, err)
			}
			return
		}
		if th.Text != strings.TrimSpace(s) || th.Value < 0 || th.Value != th.Value {
			t.Fatalf("Parse(%q) = %+v", s, th)
		}
		if th.Where == AtLevel && th.Level < 1 {
			t.Fatalf("Parse(%q): level %d", s, th.Level)
		}
		if again, err := Parse(th.Text); err != nil || again != th {
			t.Fatalf("Parse(%q) again = %+v, %v", th.Text, again, err)
		}
	})
}
