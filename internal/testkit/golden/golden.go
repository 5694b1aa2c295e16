// Package golden compares test output with golden files, and rewrites them
// when the test binary runs with -update:
//
//	go test ./analysis/knee -run Golden -update
//
// Review the diff of the rewritten files before committing them.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files with the output of the tests")

// Updating reports whether the tests run with -update, for tests that
// regenerate other fixtures alongside their golden files.
func Updating() bool { return *update }

// Check compares got with the golden file at path; under -update it writes
// got there first (creating directories as needed).
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (check, then run go test with -update):\n%s", path, diff(want, got))
	}
}

// diff shows the first differing line of want and got with a little
// context, enough to see what moved without a diff library.
func diff(want, got []byte) string {
	wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return "line " + strconv.Itoa(i+1) + ":\n- " + string(w) + "\n+ " + string(g)
		}
	}
	return "(same lines; trailing bytes differ)"
}
