package sim

import (
	"errors"
	"testing"
)

// FuzzParseSpec: ParseSpec never panics, refuses only with ErrSpec, and a
// spec it accepts round-trips through its canonical String form, which is
// itself stable. Seeds: testdata/fuzz/FuzzParseSpec.
func FuzzParseSpec(f *testing.F) {
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSpec(in)
		if err != nil {
			if !errors.Is(err, ErrSpec) {
				t.Fatalf("ParseSpec(%q): error %v does not wrap ErrSpec", in, err)
			}
			return
		}
		canon := s.String()
		s2, err := ParseSpec(canon)
		if err != nil {
			t.Fatalf("ParseSpec(%q) = %+v, but its String %q does not parse: %v", in, s, canon, err)
		}
		if s2 != s {
			t.Fatalf("ParseSpec(%q) = %+v; its String %q parses to %+v", in, s, canon, s2)
		}
		if s2.String() != canon {
			t.Fatalf("String is not stable: %q then %q", canon, s2.String())
		}
	})
}
