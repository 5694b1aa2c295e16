package textfmt

import "unicode/utf8"

// Short is a short value the user gave as prose shows it, unquoted: a
// number (4294967296), a flag's name, a word; escaped as Escape does. A
// value longer than TokenMax runes is its Token instead, so that a 100-kB
// value names itself in one short line, quoted and with its length said.
func Short(s string) string {
	if utf8.RuneCountInString(s) <= TokenMax {
		return Escape(s)
	}
	return Token(s)
}
