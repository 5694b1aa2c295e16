package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// CheckDir says whether dir can be an output directory the user named
// (--out, -o, --plot): an existing writable directory, or absent in an
// existing writable directory, so that MakeDir can create it. The name
// itself must not be a symlink, even to a directory: one planted there
// would take the files out of the place the user named. A missing parent
// is refused: poolsweep creates one level, never a path. The error names
// dir as given.
func CheckDir(dir string) error {
	if dir == "" {
		return errors.New("no directory given")
	}
	// The cleaned path, once every ".." in it is known to resolve as its
	// text says: "d/" would follow a symlink d, and fail on a file d.
	clean, err := resolved(dir)
	if err != nil {
		return err
	}
	if li, err := os.Lstat(clean); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		return symlinkError(dir)
	}
	fi, err := os.Stat(clean)
	switch {
	case err == nil:
		if !fi.IsDir() {
			return fmt.Errorf("%s is %s, %w", dir, textfmt.FileKind(fi.Mode()), ErrNotDir)
		}
		if writable(clean) != nil {
			return fmt.Errorf("%s is %w", dir, ErrNotWritable)
		}
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return checkParent(dir) // made below it, one level
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: %w", dir, textfmt.IOError(err))
	}
	// ENOTDIR: a component of the path is a file.
	return fmt.Errorf("%s: part of the path is %w", dir, ErrNotDir)
}

// MakeDir makes sure the output directory the user named exists: it
// checks dir (see CheckDir) and creates it, one level, if it is absent.
func MakeDir(dir string) error {
	if err := CheckDir(dir); err != nil {
		return err
	}
	if err := os.Mkdir(filepath.Clean(dir), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: %w", dir, textfmt.IOError(err))
	}
	// Made now, or made by someone else meanwhile: it must be a directory.
	if fi, err := os.Lstat(filepath.Clean(dir)); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: %w (it changed while poolsweep made it)", dir, ErrNotDir)
	}
	return nil
}

// CheckOwnDir says whether poolsweep can use or make rel, a directory it
// names itself, under base, an existing directory: every component of
// rel is absent or a real directory (never a symlink, which would take
// the files elsewhere), and the first absent one can be made there. The
// error names base/rel.
func CheckOwnDir(base, rel string) error {
	return ownDir(base, rel, false)
}

// MakeOwnDir makes base/rel (see CheckOwnDir), component by component,
// and returns its path.
func MakeOwnDir(base, rel string) (string, error) {
	return filepath.Join(base, rel), ownDir(base, rel, true)
}

// ownDir walks rel's components under base, checking each, and makes the
// absent ones when create is set.
func ownDir(base, rel string, create bool) error {
	full := filepath.Join(base, rel)
	if rel == "" || filepath.IsAbs(rel) || rel != filepath.Clean(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s: %q is %w", full, rel, ErrBadName)
	}
	if _, err := resolved(base); err != nil {
		return err
	}
	if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: %w: %s", full, ErrNoDir, base)
	}
	p := base
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		parent := p
		p = filepath.Join(p, c)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			if !create {
				if writable(parent) != nil {
					return fmt.Errorf("%s cannot be created: %s is %w", full, parent, ErrNotWritable)
				}
				return nil // the rest is made below it
			}
			if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("%s: %w", p, textfmt.IOError(err))
			}
			fi, err = os.Lstat(p)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, textfmt.IOError(err))
		}
		if err := realDir(p, fi); err != nil {
			return err
		}
	}
	if !create && writable(full) != nil {
		return fmt.Errorf("%s is %w", full, ErrNotWritable)
	}
	return nil
}

// realDir refuses anything at p but a directory; fi is its Lstat.
func realDir(p string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return symlinkError(p)
	case !m.IsDir():
		return fmt.Errorf("%s is %s, %w", p, textfmt.FileKind(m), ErrNotDir)
	}
	return nil
}

// CheckNames refuses, in dir (an output directory the user named, see
// CheckDir), every entry that poolsweep may write and that is not a
// regular file: a symlink, directory, device, FIFO or socket planted at
// one of its names. mayWrite says which names those are. It lets a
// command refuse them before it connects or reads anything, also where
// the exact names are known only later (a server's version in a saved
// reply's name, a target's in a figure's); the writes check each name
// again. A dir that does not exist yet is fine: every file in it will be
// new.
func CheckNames(dir string, mayWrite func(name string) bool) error {
	clean, err := resolved(dir)
	if err != nil {
		return err
	}
	es, err := os.ReadDir(clean)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", dir, textfmt.IOError(err))
	}
	for _, e := range es {
		if !mayWrite(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // gone meanwhile: it will be new
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, textfmt.IOError(err))
		}
		if err := regular(p, fi); err != nil {
			return err
		}
	}
	return nil
}
