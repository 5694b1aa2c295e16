package textfmt

import (
	"errors"
	"strings"
	"testing"
)

func TestSignedPct(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{-17.04, "−17%"}, // whole percents from 10%, with a true minus sign
		{10, "+10%"},     // the same number is "+10%" everywhere, never "+10.0%"
		{9.96, "+10%"},   // rounds to 10: whole, not "+10.0%"
		{9.94, "+9.9%"},  // below 10: one decimal
		{3.14, "+3.1%"},
		{-0.5, "−0.5%"},
		{-0.04, "0.0%"}, // rounds to zero: no sign
		{0, "0.0%"},     // zero has no sign
		{150, "+150%"},
	}
	for _, tt := range tests {
		if got := SignedPct(tt.v); got != tt.want {
			t.Errorf("SignedPct(%g) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestSigned(t *testing.T) {
	tests := []struct {
		v    float64
		d    int
		want string
	}{
		{610.4, 0, "+610"},
		{-220.6, 0, "−221"},
		{3.14, 1, "+3.1"},
		{-0.04, 1, "0.0"},
		{0.4, 0, "0"},
	}
	for _, tt := range tests {
		if got := Signed(tt.v, tt.d); got != tt.want {
			t.Errorf("Signed(%g, %d) = %q, want %q", tt.v, tt.d, got, tt.want)
		}
	}
}

func TestMsAndThousands(t *testing.T) {
	for v, want := range map[float64]string{123.4: "123", 12.34: "12.3", 1.234: "1.23", 0.05: "0.05"} {
		if got := Ms(v); got != want {
			t.Errorf("Ms(%g) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]string{15013.4: "15,013", 999: "999", 1000: "1,000", -1200: "-1,200", 0: "0", 1234567: "1,234,567"} {
		if got := Thousands(v); got != want {
			t.Errorf("Thousands(%g) = %q, want %q", v, got, want)
		}
	}
}

func TestWrapIndentCapitalise(t *testing.T) {
	got := Wrap("the quick brown fox jumps over the lazy dog", 10)
	if got != "the quick\nbrown fox\njumps over\nthe lazy\ndog" {
		t.Errorf("Wrap: %q", got)
	}
	for _, line := range strings.Split(Wrap("µµµµ µµµµ µµµµ", 9), "\n") {
		if len([]rune(line)) > 9 {
			t.Errorf("Wrap counts bytes, not runes: %q", line)
		}
	}
	if got := Wrap("averylongword x", 4); got != "averylongword\nx" {
		t.Errorf("long word: %q", got)
	}
	if got := Indent("a\nb", "  "); got != "  a\n  b" {
		t.Errorf("Indent: %q", got)
	}
	for in, want := range map[string]string{"knee at 8": "Knee at 8", "": "", "élan": "Élan", "8 levels": "8 levels"} {
		if got := Capitalise(in); got != want {
			t.Errorf("Capitalise(%q) = %q, want %q", in, got, want)
		}
	}
}

type failing struct{ n int }

func (f *failing) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestErrWriter(t *testing.T) {
	f := &failing{}
	ew := NewErrWriter(f)
	ew.Printf("a %d\n", 1)
	ew.Printf("b\n")
	if ew.Err == nil || f.n != 1 {
		t.Errorf("err %v after %d writes, want the first error and no further writes", ew.Err, f.n)
	}
}
