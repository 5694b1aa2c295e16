package infile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIn: a file named inside a directory given with ".." is the one the
// system finds there, not the one a cleaned path names.
func TestIn(t *testing.T) {
	d, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(elsewhere, "T"), 0o755); err != nil {
		t.Fatal(err)
	}
	for dir, content := range map[string]string{d: "beside the link", elsewhere: "beside the target"} {
		if err := os.WriteFile(filepath.Join(dir, "results.jsonl"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(elsewhere, "T"), filepath.Join(d, "lnk")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, want string }{
		{d + "/lnk/..", "beside the target"}, // as os.ReadDir and os.Stat of the directory see it
		{d + "/lnk/../", "beside the target"},
		{d, "beside the link"},
	} {
		b, err := os.ReadFile(In(tc.dir, "results.jsonl"))
		if err != nil || string(b) != tc.want {
			t.Errorf("In(%q) reads %q, %v; want %q", tc.dir, b, err, tc.want)
		}
	}
}
