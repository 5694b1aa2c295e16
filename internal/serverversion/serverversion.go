// Package serverversion reads the version string a MongoDB server reports
// (buildInfo.version, serverStatus.version). It is the one parser of that
// string: the names inspect --save-replies writes and inspect --replies
// reads, the simulator's version= and the rules that depend on a release
// all read a version through it, so what one of them accepts the others
// accept too.
//
// A real server reports major.minor.patch and, on many builds, a suffix
// after a hyphen: release candidates (7.0.0-rc6, 4.4.29-rc0), development
// builds (8.1.0-alpha-1234-gabcdef0), Percona's release number
// (6.0.15-12), an enterprise or vendor mark (8.0.4-ent) and the
// simulator's own (8.0.0-poolsweep-sim).
package serverversion

import (
	"regexp"
	"strconv"
)

// MaxLen is the longest version string read; a server's is a few dozen
// characters at most.
const MaxLen = 64

// Pattern is a version string as a regular expression, without anchors,
// for the patterns of names that hold one: two to four numbers and an
// optional suffix of letters, digits, '_', '+' and '-' (never a dot, so a
// name's ".manual" or ".json" after the version stays apart from it).
const Pattern = `[0-9]{1,9}(?:\.[0-9]{1,9}){1,3}(?:-[0-9A-Za-z][0-9A-Za-z_+-]*)?`

var whole = regexp.MustCompile(`^(` + Pattern + `)$`)

var parts = regexp.MustCompile(`^([0-9]+)\.([0-9]+)(?:\.([0-9]+))?(?:\.[0-9]+)?(?:-(.*))?$`)

// Version is a parsed version string.
type Version struct {
	Major, Minor int
	// Patch is -1 when the string has only major.minor.
	Patch int
	// Suffix is what follows the first hyphen ("" for a plain release).
	Suffix string
	// Text is the string as the server gave it.
	Text string
}

// Parse reads s; ok is false for anything a server would not report.
func Parse(s string) (Version, bool) {
	if len(s) > MaxLen || !whole.MatchString(s) {
		return Version{}, false
	}
	m := parts.FindStringSubmatch(s)
	if m == nil {
		return Version{}, false
	}
	v := Version{Patch: -1, Suffix: m[4], Text: s}
	var err error
	if v.Major, err = strconv.Atoi(m[1]); err != nil {
		return Version{}, false
	}
	if v.Minor, err = strconv.Atoi(m[2]); err != nil {
		return Version{}, false
	}
	if m[3] != "" {
		if v.Patch, err = strconv.Atoi(m[3]); err != nil {
			return Version{}, false
		}
	}
	return v, true
}

// Series is "major.minor", the release series a version belongs to.
func (v Version) Series() string { return strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor) }

// AtLeast says whether v is major.minor or a later series.
func (v Version) AtLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}
