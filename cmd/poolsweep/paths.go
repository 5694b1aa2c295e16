package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkOutputDir says whether dir can take a run's results: an existing
// directory we may write in, or a path whose nearest existing parent is
// one. It creates nothing.
func checkOutputDir(dir string) error {
	p := filepath.Clean(dir)
	for {
		fi, err := os.Stat(p)
		switch {
		case err == nil && !fi.IsDir():
			if p == filepath.Clean(dir) {
				return fmt.Errorf("%s is not a directory", dir)
			}
			return fmt.Errorf("%s: %s is not a directory", dir, p)
		case err == nil:
			// access(2) says yes to root even on read-only and virtual
			// file systems (/proc): make and remove an empty directory.
			probe, err := os.MkdirTemp(p, ".poolsweep-probe-")
			if err != nil {
				return fmt.Errorf("%s: cannot write in %s", dir, p)
			}
			os.Remove(probe)
			return nil
		case errors.Is(err, fs.ErrNotExist):
			parent := filepath.Dir(p)
			if parent == p {
				return fmt.Errorf("%s: no existing parent directory", dir)
			}
			p = parent
		default:
			return fmt.Errorf("%s: %w", dir, err)
		}
	}
}

// checkRegularFile says whether path is an existing regular file (not a
// directory, device, pipe or a link to one).
func checkRegularFile(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	return nil
}
