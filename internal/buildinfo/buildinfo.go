// Package buildinfo says which poolsweep this is, from what the Go
// toolchain stamped into the binary (runtime/debug.ReadBuildInfo): the one
// version string that --version prints, every results header records and
// every report shows, and that agents of one run compare.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version is the module version with the VCS revision and whether the
// checkout had uncommitted changes:
//
//	v1.2.3                     go install …@v1.2.3 (a module zip: no VCS)
//	v1.2.3 3f2a1c9d8e7b        go build in a checkout at the tag v1.2.3
//	devel 3f2a1c9d8e7b+dirty   go build in a checkout past any tag, with changes
//	devel (unstamped build)    go run, go test, -buildvcs=false, or a build
//	                           in a git worktree: nothing stamped, so which
//	                           commit it is cannot be known from the binary
//
// A pseudo-version (v0.0.0-20261130101500-3f2a1c9d8e7b) is a checkout, not
// a release: it reads "devel" with its revision, taken from the
// pseudo-version itself where no VCS settings came with it.
func Version() string {
	bi, _ := debug.ReadBuildInfo()
	return Of(bi)
}

// Of is Version for the build information bi (of this binary, or one
// read with debug/buildinfo.ReadFile); nil reads as unstamped.
func Of(bi *debug.BuildInfo) string {
	if bi == nil {
		return unstamped
	}
	return versionOf(bi.Main.Version, bi.Settings)
}

// unstamped is the version of a binary that carries neither a module
// version nor a commit: "devel" alone read as if it were a known
// development build.
const unstamped = "devel (unstamped build)"

// versionOf is Version of a module version and the build settings.
func versionOf(module string, settings []debug.BuildSetting) string {
	var rev string
	dirty := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	v := strings.TrimSuffix(module, "+dirty")
	if isPseudo(v) && rev == "" {
		// go install …@<commit>: a module zip carries no VCS settings,
		// but its pseudo-version ends in the commit.
		rev = v[strings.LastIndexByte(v, '-')+1:]
	}
	if v == "" || v == "(devel)" || isPseudo(v) {
		v = "devel"
	}
	if rev == "" {
		if v == "devel" {
			return unstamped
		}
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return v + " " + rev
}

// isPseudo says v is a pseudo-version (vX.Y.Z-[0.]yyyymmddhhmmss-abcdefabcdef):
// what the toolchain makes up for a commit that no tag names.
func isPseudo(v string) bool {
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return false
	}
	ts, rev := parts[len(parts)-2], parts[len(parts)-1]
	if i := strings.LastIndexByte(ts, '.'); i >= 0 {
		ts = ts[i+1:]
	}
	return len(ts) == 14 && allIn(ts, "0123456789") && len(rev) == 12 && allIn(rev, "0123456789abcdef")
}

func allIn(s, set string) bool {
	for _, r := range s {
		if !strings.ContainsRune(set, r) {
			return false
		}
	}
	return true
}
