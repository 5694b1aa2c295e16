package textfmt

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Wrap breaks s into lines of at most width runes at spaces; a word longer
// than width gets a line of its own. Runs of spaces and line breaks in s
// become single spaces.
func Wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(s) {
		wl := utf8.RuneCountInString(word)
		if i > 0 {
			if n+1+wl > width {
				b.WriteByte('\n')
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(word)
		n += wl
	}
	return b.String()
}

// Indent puts prefix before every line of s.
func Indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// Capitalise upper-cases the first letter of s (a rune, not a byte).
func Capitalise(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 || r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// ErrWriter keeps the first write error so that rendering code can write
// line after line and check once at the end (Err).
type ErrWriter struct {
	W   io.Writer
	Err error
}

// NewErrWriter writes to w.
func NewErrWriter(w io.Writer) *ErrWriter { return &ErrWriter{W: w} }

// Write writes p unless an earlier write failed.
func (e *ErrWriter) Write(p []byte) (int, error) {
	if e.Err != nil {
		return 0, e.Err
	}
	n, err := e.W.Write(p)
	e.Err = err
	return n, err
}

// Printf formats to the writer unless an earlier write failed.
func (e *ErrWriter) Printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

// Ms writes a latency in milliseconds (the number only, callers add the
// unit they show) with the precision that suits its size: 3 significant
// digits from 1 ms up ("123", "12.3", "1.23"), two decimals below.
func Ms(ms float64) string {
	switch {
	case ms >= 100:
		return strconv.FormatFloat(ms, 'f', 0, 64)
	case ms >= 10:
		return strconv.FormatFloat(ms, 'f', 1, 64)
	default:
		return strconv.FormatFloat(ms, 'f', 2, 64)
	}
}

// Minus is the sign of a negative change: U+2212, as prose typesetting and
// the seeds' study ("−17%") write it, never confused with a hyphen.
const Minus = "−"

// Signed writes a change with an explicit sign and the given decimals: "+3",
// "−610", "+3.1". A value that rounds to zero has no sign ("0", "0.0"): a
// sign would claim a direction the number does not show.
func Signed(v float64, decimals int) string {
	s := strconv.FormatFloat(math.Abs(v), 'f', decimals, 64)
	if strings.Trim(s, "0.") == "" {
		return s
	}
	if v < 0 {
		return Minus + s
	}
	return "+" + s
}

// SignedPct is the one rule for signed percentages in poolsweep's text,
// tables and figures: a sign as Signed gives it (U+2212 for minus, none on
// zero), whole percents once the value rounds to 10% or more ("+10%",
// "−17%"), one decimal below ("+9.4%", "−0.5%", "0.0%"). Precision follows
// size because one decimal of a 17% change is noise, while below 10% it is
// what tells 0.5% from 1%.
func SignedPct(v float64) string { return SignedWith(v, "%") }

// SignedWith is v with its sign by the SignedPct rule (whole from 9.95 up,
// one decimal below) and unit after it: "+12 pts", "−3.5 ms".
func SignedWith(v float64, unit string) string {
	if math.Abs(v) >= 9.95 {
		return Signed(v, 0) + unit
	}
	return Signed(v, 1) + unit
}

// Thousands writes v rounded to a whole number with comma thousands
// separators: "15,013", "−1,200".
func Thousands(v float64) string {
	s := strconv.FormatInt(int64(math.Round(math.Abs(v))), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if math.Round(v) < 0 {
		return "-" + b.String()
	}
	return b.String()
}
