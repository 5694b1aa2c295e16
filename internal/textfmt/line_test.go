package textfmt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	long := strings.Repeat("é", 1000) // 2,000 bytes
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", "a step failed", "a step failed"},
		{"trimmed", "  padded \n", "padded"},
		{"first line only, marked", "first\nsecond", "first …"},
		{"control bytes escaped", "red\x1b[31m\r", `red\x1b[31m`},
		{"tab escaped", "a\tb", `a\tb`},
		{"at the limit, whole", strings.Repeat("a", LineMax), strings.Repeat("a", LineMax)},
		{"cut at a rune boundary, length said", long, strings.Repeat("é", LineMax/2) + "… (2000 bytes)"},
	} {
		if got := Line(tc.in); got != tc.want {
			t.Errorf("%s: Line(%.40q) = %.60q, want %.60q", tc.name, tc.in, got, tc.want)
		}
	}
	// An odd cut lands inside a rune: it moves back to the rune's start.
	got := CapLine("a" + long)
	if !utf8.ValidString(got) || !strings.HasPrefix(got, "a"+strings.Repeat("é", (LineMax-1)/2)+"…") || !strings.HasSuffix(got, "… (2001 bytes)") {
		t.Errorf("CapLine cut inside a rune or lost the length: %.80q…", got)
	}
}
