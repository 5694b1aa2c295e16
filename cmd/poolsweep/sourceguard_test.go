package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The tests run in the package's source directory. A command given a
// relative output path writes there unless its test first moves to a
// directory of its own (t.Chdir in a process of its own, see ownProcess);
// figures drawn into folders named after hostile flag values were once
// committed from here. TestMain lists the directory before the tests and
// fails the run when an entry has been added after them.

// sourceEntries lists the names in the package's directory.
func sourceEntries() ([]string, error) { return dirNames(".") }

// dirNames lists the names in dir, in order.
func dirNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, nil
}

// profileOutputs are the files the go test flags themselves write into
// the package directory (-cpuprofile and the like, with no -outputdir):
// they are not the tests' writing.
func profileOutputs() []string {
	var names []string
	for _, f := range []string{"test.cpuprofile", "test.memprofile", "test.blockprofile", "test.mutexprofile", "test.trace", "test.coverprofile"} {
		if fl := flag.Lookup(f); fl != nil && fl.Value.String() != "" {
			names = append(names, filepath.Base(fl.Value.String()))
		}
	}
	return names
}

// checkNothingWritten says which entries of the package directory are
// not among before (the listing taken before the tests), nil when none.
func checkNothingWritten(before []string) error {
	after, err := sourceEntries()
	if err != nil {
		return err
	}
	skip := profileOutputs()
	var added []string
	for _, n := range after {
		if !slices.Contains(before, n) && !slices.Contains(skip, n) {
			added = append(added, fmt.Sprintf("%.60q", n))
		}
	}
	if len(added) > 0 {
		return fmt.Errorf("the tests wrote %d entries into the package's source directory (a command ran with a relative output path from it): %s", len(added), strings.Join(added, ", "))
	}
	return nil
}
