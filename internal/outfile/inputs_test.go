package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckNotInput: an output is refused when it is an input however
// spelled, and only then.
func TestCheckNotInput(t *testing.T) {
	d := t.TempDir()
	in := filepath.Join(d, "r.jsonl")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, filepath.Join(d, "hard")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "copy"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(d, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		out, in string
		refused bool
	}{
		{in, in, true},
		{d + "/sub/../r.jsonl", in, true},               // the system's ".."
		{filepath.Join(d, "hard"), in, true},            // one inode
		{filepath.Join(d, "copy"), in, false},           // the same bytes, another file
		{filepath.Join(d, "new"), in, false},            // absent: a new file
		{filepath.Join(d, "gone"), d + "/./gone", true}, // neither exists: one absolute path
	} {
		err := CheckNotInput(c.out, Input{What: "the results file", Path: c.in})
		if got := errors.Is(err, ErrIsInput); got != c.refused {
			t.Errorf("out %s, in %s: %v; want refused %v", c.out, c.in, err, c.refused)
		}
	}
	// A directory: only the names the command writes there count.
	if err := CheckNotInputIn(d, func(n string) bool { return n == "hard" }, Input{What: "x", Path: in}); !errors.Is(err, ErrIsInput) {
		t.Errorf("hard in the directory: %v", err)
	}
	if err := CheckNotInputIn(d, func(n string) bool { return n == "copy" }, Input{What: "x", Path: in}); err != nil {
		t.Errorf("copy in the directory: %v", err)
	}
}
