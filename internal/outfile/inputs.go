package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// ErrIsInput: an output would replace a file the same command reads. A
// report written over the results it was made from leaves the report and
// loses the run, so every command refuses it, however the two paths are
// spelled.
var ErrIsInput = errors.New("poolsweep never writes over a file it reads")

// An Input is a file a command reads, and what named it in the user's
// words: a flag ("--storm"), or an argument ("results file 2").
type Input struct {
	What, Path string
}

// CheckNotInput refuses path, a file to be written, when it is one of
// the files in ins, however either is spelled: relative or absolute,
// through "." or "..", a symlink to it or a hard link of it (one file:
// the same device and inode, os.SameFile), or the same cleaned absolute
// path where either does not exist yet. The error names path as given
// and the input it is.
func CheckNotInput(path string, ins ...Input) error {
	for _, in := range ins {
		if sameFile(path, in.Path) {
			return inputError(path, in)
		}
	}
	return nil
}

// CheckNotInputIn refuses dir, an output directory that the command
// writes the entries mayWrite names into, when one of those entries
// already there is one of the files in ins, however spelled (see
// CheckNotInput). A dir that does not exist holds no input.
func CheckNotInputIn(dir string, mayWrite func(name string) bool, ins ...Input) error {
	if len(ins) == 0 {
		return nil
	}
	es, err := os.ReadDir(filepath.Clean(dir))
	if err != nil {
		return nil // absent, or not a directory: the directory checks say so
	}
	for _, e := range es {
		if !mayWrite(e.Name()) {
			continue
		}
		if err := CheckNotInput(filepath.Join(dir, e.Name()), ins...); err != nil {
			return err
		}
	}
	return nil
}

// sameFile says whether a and b name one file: the same file once the
// system has followed every symlink and "..", or, where either cannot be
// found, the same cleaned absolute path.
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	if errors.Is(errA, fs.ErrNotExist) != errors.Is(errB, fs.ErrNotExist) {
		return false // one exists and the other does not: two files
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// inputError is the one line that refuses path for being in.
func inputError(path string, in Input) error {
	if filepath.Clean(path) == filepath.Clean(in.Path) {
		return fmt.Errorf("%s is %s: %w; write elsewhere", textfmt.Short(path), in.What, ErrIsInput)
	}
	return fmt.Errorf("%s is the same file as %s (%s): %w; write elsewhere", textfmt.Short(path), in.What, textfmt.Short(in.Path), ErrIsInput)
}
