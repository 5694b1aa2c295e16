package textfmt

import (
	"errors"
	"testing"
)

func TestEscape(t *testing.T) {
	tests := []struct {
		in, escape, quote string
	}{
		{"sim", "sim", `"sim"`}, // clean names are unchanged
		{"mix 50:50:0 – µs", "mix 50:50:0 – µs", `"mix 50:50:0 – µs"`}, // printable Unicode is kept
		{"a\x1b[2Jb", `a\x1b[2Jb`, `"a\x1b[2Jb"`},                      // an ANSI escape cannot clear the screen
		{"x\ny\tz\r", `x\ny\tz\r`, `"x\ny\tz\r"`},                      // line breaks cannot forge lines
		{"evil\u202etxt", `evil\u202etxt`, `"evil\u202etxt"`},          // bidi override cannot reorder text
		{"bad\xffbyte", `bad\xffbyte`, `"bad\xffbyte"`},                // invalid UTF-8 is shown as bytes
		{"", "", `""`},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.escape {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.escape)
		}
		if got := Quote(tt.in); got != tt.quote {
			t.Errorf("Quote(%q) = %q, want %q", tt.in, got, tt.quote)
		}
		if IsPrintable(tt.in) != (tt.in == tt.escape) {
			t.Errorf("IsPrintable(%q) = %v", tt.in, IsPrintable(tt.in))
		}
	}
}

func TestEscapeError(t *testing.T) {
	base := errors.New("open x\x1b[2J.csv: no such file")
	err := EscapeError(base)
	if err.Error() != `open x\x1b[2J.csv: no such file` || !errors.Is(err, base) {
		t.Errorf("got %q (is %v)", err, errors.Is(err, base))
	}
	if EscapeError(nil) != nil {
		t.Error("EscapeError(nil) is not nil")
	}
}
