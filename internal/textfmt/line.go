package textfmt

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// LineMax bounds every line Line makes, whatever it was given: the last
// guard against a message that grew from outside (a server's reply, a
// file).
const LineMax = 1024

// Line makes s fit for one line of a terminal: only its first line, with
// every control character (escape sequences, carriage returns, tabs)
// written as a visible Go escape (Escape), so that text from files,
// servers or flags cannot move the cursor, recolour or clear the screen;
// and no longer than LineMax (CapLine).
func Line(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return CapLine(Escape(s))
}

// CapLine cuts s (one escaped line) to LineMax bytes, at a rune boundary,
// and says how long it was: "…… (4000 bytes)".
func CapLine(s string) string { return CapLineAt(s, LineMax) }

// CapLineAt is CapLine for the part of a line that follows a label: it
// cuts s to max bytes.
func CapLineAt(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}
