// Package decimal reads a number a user typed, in a flag or a threshold:
// the one rule for what a number is. strconv.ParseFloat reads more than a
// person means by a number (hex floats, underscores, infinities, NaN) and
// quietly turns a value too small for a float64 into 0; a denormal value
// (1e-320) turns to 0 or infinity in the arithmetic it feeds. None of
// these is taken.
package decimal

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Errors Parse returns: the text is not a decimal number, or it is one no
// float64 holds as a normal number.
var (
	ErrNotDecimal = errors.New("not a finite decimal number")
	ErrRange      = errors.New("too large or too near 0 for a number")
)

// SmallestNormal is the smallest magnitude of a nonzero number taken.
const SmallestNormal = 0x1p-1022

// Parse reads s: digits, one point, an exponent, a sign; finite; 0 or at
// least SmallestNormal in magnitude.
func Parse(s string) (float64, error) {
	if s == "" || strings.Trim(s, "0123456789.eE+-") != "" {
		return 0, ErrNotDecimal
	}
	v, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, ErrRange
	}
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, ErrNotDecimal
	}
	// ParseFloat rounds what underflows to 0 without an error: 1e-400
	// is not 0.
	mantissa, _, _ := strings.Cut(strings.ToLower(s), "e")
	if v == 0 && strings.ContainsAny(mantissa, "123456789") || v != 0 && math.Abs(v) < SmallestNormal {
		return 0, ErrRange
	}
	return v, nil
}
