package textfmt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestToken(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{"\x1b[2J", `"\x1b[2J"`},
		{strings.Repeat("x", 40), `"` + strings.Repeat("x", 40) + `"`},
		{strings.Repeat("x", 41), `"` + strings.Repeat("x", 40) + `"… (41 bytes)`},
		{strings.Repeat("é", 50), `"` + strings.Repeat("é", 40) + `"… (100 bytes)`},
	} {
		if got := Token(tt.in); got != tt.want {
			t.Errorf("Token(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func FuzzToken(f *testing.F) {
	f.Add(strings.Repeat("a\x00", 100_000))
	f.Fuzz(func(t *testing.T, s string) {
		got := Token(s)
		// At most TokenMax runes, each escaped to at most 10 bytes
		// (\U0010ffff), the quotes and the length note.
		if len(got) > TokenMax*10+40 || !utf8.ValidString(got) || strings.ContainsAny(got, "\x00\x1b\r\n") {
			t.Errorf("Token(%d bytes) = %q", len(s), got)
		}
	})
}
