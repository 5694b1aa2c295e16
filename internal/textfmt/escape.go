// Package textfmt holds the small text helpers poolsweep's renderers and
// error messages share: escaping what came from outside before it reaches
// a terminal (Quote, Escape), the short forms in which an error names a
// value the user gave (Token, Short), a file's kind and a file operation's
// error in the user's words (FileKind, IOError), wrapping and capitalising
// prose, the first-error writer, and number formats whose rules must
// agree everywhere they appear (milliseconds, signed changes and
// percentages). It imports nothing of poolsweep.
package textfmt

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Quote is s in double quotes with every non-printing character escaped
// as Go does (\x1b, \n, \u202e, invalid bytes as \xff), so a value taken
// from a file or a flag can be named in an error without driving the
// terminal that shows it.
func Quote(s string) string { return strconv.Quote(s) }

// Escape is s with every non-printing character escaped as in Quote but
// without the quotes: for names (targets, workloads, files) set in prose
// and tables, which stay readable when they are clean and harmless when
// they are not. Printable Unicode (–, µ, é) is kept; so are spaces.
func Escape(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRune(r) // '\x1b', '\n', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// isClean reports whether s has nothing to escape.
func isClean(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (r != ' ' && !unicode.IsPrint(r)) {
			return false
		}
		i += size
	}
	return true
}

// IsPrintable reports whether s holds only printable characters and
// spaces: what a name from a file must be to be shown as it is.
func IsPrintable(s string) bool { return isClean(s) }

// EscapeError wraps err so that its message has every non-printing
// character escaped (as Escape does) while errors.Is and errors.As still
// see err: for errors that carry a path or a value from outside.
func EscapeError(err error) error {
	if err == nil {
		return nil
	}
	return escapedError{err}
}

type escapedError struct{ err error }

func (e escapedError) Error() string { return Escape(e.err.Error()) }
func (e escapedError) Unwrap() error { return e.err }
