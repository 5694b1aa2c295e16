package textfmt

import (
	"fmt"
	"unicode/utf8"
)

// TokenMax is the most runes of a user's value an error message shows.
const TokenMax = 40

// Token is a value the user gave (a flag's value, a word from a file's
// key) as an error message may show it: quoted with every non-printing
// character escaped, as Quote does, and cut to its first TokenMax runes
// with the length of the whole said, so a 100-kB bad value names itself
// in one short line. Never pass it a file's contents: an error names the
// file, the line and the field, and says what was wrong, not what was
// there.
func Token(s string) string {
	if utf8.RuneCountInString(s) <= TokenMax {
		return Quote(s)
	}
	n, cut := 0, len(s)
	for i := range s {
		if n == TokenMax {
			cut = i
			break
		}
		n++
	}
	return fmt.Sprintf("%s… (%d bytes)", Quote(s[:cut]), len(s))
}
