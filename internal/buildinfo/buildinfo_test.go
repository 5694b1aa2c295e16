package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "3f2a1c9d8e7b6a5f4e3d2c1b0a99887766554433"
	tests := []struct {
		module   string
		settings []debug.BuildSetting
		want     string
	}{
		// go install …@v1.2.3: a module zip, no VCS information.
		{"v1.2.3", nil, "v1.2.3"},
		// go build in a clean checkout at a tag: the tag and the revision.
		{"v1.2.3", vcs(rev, "false"), "v1.2.3 3f2a1c9d8e7b"},
		// go build past any tag: the toolchain's pseudo-version is a checkout.
		{"v0.0.0-20261130101500-3f2a1c9d8e7b", vcs(rev, "false"), "devel 3f2a1c9d8e7b"},
		// ... with uncommitted changes, however the toolchain marked them.
		{"v0.0.0-20261130101500-3f2a1c9d8e7b+dirty", vcs(rev, "true"), "devel 3f2a1c9d8e7b+dirty"},
		// A pseudo-version after a tag (v1.2.4-0.…).
		{"v1.2.4-0.20261130101500-3f2a1c9d8e7b", vcs(rev, "false"), "devel 3f2a1c9d8e7b"},
		// An older toolchain: (devel) with the VCS settings.
		{"(devel)", vcs(rev, "true"), "devel 3f2a1c9d8e7b+dirty"},
		// go run, go test, -buildvcs=false, a git worktree: nothing
		// stamped, and the version says so.
		{"(devel)", nil, "devel (unstamped build)"},
		{"", nil, "devel (unstamped build)"},
		// go install …@<commit>: a module zip, no VCS settings, but the
		// pseudo-version names the commit.
		{"v0.0.0-20261130101500-3f2a1c9d8e7b", nil, "devel 3f2a1c9d8e7b"},
		{"v1.2.4-0.20261130101500-3f2a1c9d8e7b", nil, "devel 3f2a1c9d8e7b"},
		// A pre-release tag is a release, not a pseudo-version.
		{"v1.3.0-rc.1", nil, "v1.3.0-rc.1"},
	}
	for _, tt := range tests {
		if got := versionOf(tt.module, tt.settings); got != tt.want {
			t.Errorf("versionOf(%q, %v) = %q, want %q", tt.module, tt.settings, got, tt.want)
		}
	}
}

// TestOfNil: no build information at all (debug.ReadBuildInfo failed)
// reads as an unstamped build, never as an empty version.
func TestOfNil(t *testing.T) {
	if got := Of(nil); got != "devel (unstamped build)" {
		t.Errorf("Of(nil) = %q", got)
	}
}
