package textfmt

import (
	"strings"
	"testing"
)

func TestShort(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"4294967296", "4294967296"},
		{"a\x1bb", `a\x1bb`},
		{strings.Repeat("9", 40), strings.Repeat("9", 40)},
		{strings.Repeat("9", 41), `"` + strings.Repeat("9", 40) + `"… (41 bytes)`},
	} {
		if got := Short(tt.in); got != tt.want {
			t.Errorf("Short(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
