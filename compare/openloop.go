package compare

import (
	"slices"
	"strconv"
	"strings"
)

// levelLabel names a step's level: "C=64", or "rate=2000/s" for an
// open-loop step (sweep --rate), whose concurrency is only its
// max-in-flight bound and the same at every rate.
func levelLabel(concurrency, rate int) string {
	if rate > 0 {
		return "rate=" + strconv.Itoa(rate) + "/s"
	}
	return "C=" + strconv.Itoa(concurrency)
}

// levelCell is the C column of a table: the concurrency, or the rate of
// an open-loop step.
func levelCell(concurrency, rate int) string {
	if rate > 0 {
		return "rate=" + strconv.Itoa(rate) + "/s"
	}
	return strconv.Itoa(concurrency)
}

// joinLevels lists the levels of keys, for an unmatched step's reason.
func joinLevels(keys []stepKey) string {
	var out []string
	for _, k := range keys {
		if l := levelLabel(k.c, k.rate); !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, ", ")
}
