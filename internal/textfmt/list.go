package textfmt

import (
	"strconv"
	"strings"
)

// ListMax is how many items List shows before it counts the rest.
const ListMax = 8

// List joins items with sep, the first ListMax of them and "and N more"
// for the rest: a run of a thousand targets names them in a heading, a
// title or a note of one short line, never all of them.
func List(items []string, sep string) string { return ListN(items, sep, ListMax) }

// ListN is List showing at most n items, for items that are sentences.
func ListN(items []string, sep string, n int) string {
	if len(items) <= n {
		return strings.Join(items, sep)
	}
	return strings.Join(items[:n], sep) + sep + "and " + strconv.Itoa(len(items)-n) + " more"
}
