package results

import "testing"

func TestParseAxisValue(t *testing.T) {
	for _, c := range []struct {
		name  string
		axis  Axis
		value string
		ok    bool
	}{
		{"w1", AxisWriteConcern, "1", true},                                    // the spelling
		{"w:1", AxisWriteConcern, "1", true},                                   // the shell's
		{"w=majority", AxisWriteConcern, "majority", true},                     // the label's
		{"Majority", AxisWriteConcern, "majority", true},                       // any case
		{"secondarypreferred", AxisReadPreference, "secondaryPreferred", true}, // any case
		{"rp=nearest", AxisReadPreference, "nearest", true},                    // the label's
		{"w", "", "", false},                                                   // no value
		{"w2", "", "", false},                                                  // not an axis value swept
		{"standalone", "", "", false},                                          // a target's name
	} {
		a, v, ok := ParseAxisValue(c.name)
		if a != c.axis || v != c.value || ok != c.ok {
			t.Errorf("ParseAxisValue(%q) = %q, %q, %v; want %q, %q, %v", c.name, a, v, ok, c.axis, c.value, c.ok)
		}
	}
}

func TestLabelWithout(t *testing.T) {
	for _, c := range []struct {
		rp, wc string
		axis   Axis
		want   string
	}{
		{"", "majority", AxisWriteConcern, "mix 0:50:50"},            // the write concern's series pair across it
		{"nearest", "1", AxisWriteConcern, "mix 0:50:50 rp=nearest"}, // the other axis stays
		{"nearest", "1", AxisReadPreference, "mix 0:50:50 w=1"},      // from the middle
		{"primary", "", AxisWriteConcern, "mix 0:50:50 rp=primary"},  // not swept: unchanged
		{"primaryPreferred", "", AxisReadPreference, "mix 0:50:50"},  // no prefix confusion with primary
	} {
		s := StepResult{Workload: SeriesLabel("mix 0:50:50", c.rp, c.wc), ReadPreference: c.rp, WriteConcern: c.wc}
		if got := s.WorkloadWithout(c.axis); got != c.want {
			t.Errorf("%q without its %s = %q, want %q", s.Workload, c.axis, got, c.want)
		}
	}
	// A label ending in a longer value keeps it: "rp=primary" is not a
	// prefix of "rp=primaryPreferred".
	if got := LabelWithout("read rp=primaryPreferred", AxisReadPreference, "primary"); got != "read rp=primaryPreferred" {
		t.Errorf("LabelWithout took a prefix: %q", got)
	}
}
