package corpus

import (
	"slices"
	"testing"
)

// TestListedIsTheFile: the compiled-in copy is read-paths.txt, line for
// line (regenerate listed.go from the file when it changes).
func TestListedIsTheFile(t *testing.T) {
	paths, err := ReadPaths()
	if err != nil {
		t.Fatal(err)
	}
	var file []string
	for _, p := range paths {
		file = append(file, p.String())
	}
	var got []string
	for _, p := range Listed() {
		got = append(got, p.String())
	}
	if !slices.Equal(got, file) {
		t.Errorf("listed.go is not read-paths.txt: %d lines against %d; run scripts/gen-readpaths.sh", len(got), len(file))
	}
}
