package decimal

import (
	"errors"
	"testing"
)

// TestParse: decimals are read; what a person does not mean by a number,
// or a float64 cannot hold as a normal number, is refused with its kind.
func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		err  error
	}{
		{"5", 5, nil}, {"0.5", 0.5, nil}, {"-2.5e3", -2500, nil}, {"0", 0, nil}, {"-0", 0, nil}, {"0e-400", 0, nil},
		{"2.2250738585072014e-308", 0x1p-1022, nil},
		{"1e-320", 0, ErrRange}, {"-4.9e-324", 0, ErrRange}, {"1e-400", 0, ErrRange}, {"1e309", 0, ErrRange},
		{"NaN", 0, ErrNotDecimal}, {"Inf", 0, ErrNotDecimal}, {"0x1p-3", 0, ErrNotDecimal}, {"1_000", 0, ErrNotDecimal},
		{"", 0, ErrNotDecimal}, {" 5", 0, ErrNotDecimal}, {"5%", 0, ErrNotDecimal}, {"1e", 0, ErrNotDecimal}, {"--1", 0, ErrNotDecimal},
	} {
		v, err := Parse(tt.in)
		if !errors.Is(err, tt.err) || err == nil && v != tt.want {
			t.Errorf("%q: %v, %v; want %v, %v", tt.in, v, err, tt.want, tt.err)
		}
	}
}
