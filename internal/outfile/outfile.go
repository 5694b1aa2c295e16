// Package outfile writes output files (figures, reports) so that a bad
// path cannot harm: it writes only regular files, never through or over a
// device, FIFO, socket or directory, and a write that fails leaves the
// destination as it was and no temporary file behind. Check and CheckDir
// let a command refuse a bad output path before it does any work.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Errors that Check, CheckDir and Write wrap, for errors.Is.
var (
	// ErrNotRegular: the path exists and is not a regular file (a
	// directory, device, FIFO, socket, or a symlink to one).
	ErrNotRegular = errors.New("not a regular file")
	// ErrNotDir: a directory was wanted and the path is something else.
	ErrNotDir = errors.New("not a directory")
	// ErrNoDir: the directory to write into does not exist.
	ErrNoDir = errors.New("no such directory")
	// ErrNotWritable: this user may not create files in the directory.
	ErrNotWritable = errors.New("not writable")
)

// Check says whether path can be written as an output file: it must be
// absent, or a regular file (or a symlink to one, which Write then writes
// through to), and the directory it is in must exist and be writable. The
// error names path as given.
func Check(path string) error {
	_, err := target(path)
	return err
}

// target resolves path to the file Write replaces and checks it.
func target(path string) (string, error) {
	if path == "" {
		return "", errors.New("no file name given")
	}
	if strings.HasSuffix(path, string(filepath.Separator)) {
		return "", fmt.Errorf("%s names a directory, %w; give a file name", path, ErrNotRegular)
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Absent: the directory must take a new file. A missing parent
		// is reported by checkParent.
		return path, checkParent(path, path)
	case err != nil:
		// ENOTDIR and the like: say what is wrong with the parent.
		if perr := checkParent(path, path); perr != nil {
			return "", perr
		}
		return "", fmt.Errorf("%s: %w", path, cause(err))
	}
	dest := path
	if fi.Mode()&fs.ModeSymlink != 0 {
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", fmt.Errorf("%s is a symlink to a missing file, %w", path, ErrNotRegular)
		}
		if fi, err = os.Stat(resolved); err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("%s is a symlink to %s, %s, %w", path, resolved, kind(fi.Mode()), ErrNotRegular)
		}
		dest = resolved
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is %s, %w", path, kind(fi.Mode()), ErrNotRegular)
	}
	return dest, checkParent(dest, path)
}

// checkParent says whether the directory of dest exists and takes new
// files (Write puts its temporary file there); user is the path to name.
func checkParent(dest, user string) error {
	dir := filepath.Dir(dest)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w: %s", user, ErrNoDir, dir)
	case err != nil:
		return fmt.Errorf("%s: %w", user, err)
	case !fi.IsDir():
		return fmt.Errorf("%s: %s is %s, %w", user, dir, kind(fi.Mode()), ErrNotDir)
	}
	if err := writable(dir); err != nil {
		return fmt.Errorf("%s: directory %s is %w", user, dir, ErrNotWritable)
	}
	return nil
}

// CheckDir says whether dir can be used as an output directory: an
// existing writable directory (or a symlink to one), or absent with its
// nearest existing ancestor a writable directory, so that it can be
// created. The error names dir as given.
func CheckDir(dir string) error {
	if dir == "" {
		return errors.New("no directory given")
	}
	fi, err := os.Stat(dir)
	switch {
	case err == nil:
		if !fi.IsDir() {
			return fmt.Errorf("%s is %s, %w", dir, kind(fi.Mode()), ErrNotDir)
		}
		if writable(dir) != nil {
			return fmt.Errorf("%s is %w", dir, ErrNotWritable)
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("%s: %w", dir, err)
		}
		// ENOTDIR: a component of the path is a file.
		return fmt.Errorf("%s: part of the path is %w", dir, ErrNotDir)
	}
	// Absent: walk up to the nearest existing ancestor.
	parent := filepath.Dir(filepath.Clean(dir))
	for {
		fi, err := os.Stat(parent)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s: %s is %s, %w", dir, parent, kind(fi.Mode()), ErrNotDir)
			}
			if writable(parent) != nil {
				return fmt.Errorf("%s cannot be created: %s is %w", dir, parent, ErrNotWritable)
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", dir, err)
		}
		next := filepath.Dir(parent)
		if next == parent {
			return fmt.Errorf("%s: %w", dir, ErrNoDir)
		}
		parent = next
	}
}

// Write writes path with write: into a temporary file in the same
// directory, synced, then renamed over path, so that readers see the old
// file or the new one and never a part. path is checked first (see Check)
// and again right before the rename; on any failure the temporary file is
// removed and path is left as it was. A symlink to a regular file is
// written through: the link stays, its target is replaced.
func Write(path string, write func(io.Writer) error) (err error) {
	dest, err := target(path)
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(dest); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(dest)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(dest)+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: cannot create a file in %s: %w", path, dir, cause(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("%s: %w", path, cause(err))
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("%s: %w", path, cause(err))
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, cause(err))
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, cause(err))
	}
	// Something may have been put at dest since the first check (a FIFO,
	// a directory): never rename over it.
	if fi, err := os.Lstat(dest); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is now %s, %w", path, kind(fi.Mode()), ErrNotRegular)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return fmt.Errorf("%s: %w", path, cause(err))
	}
	syncDir(dir)
	return nil
}

// cause drops the temporary file's name from an error about it: the user
// named path, not our temporary file.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(filepath.Base(pe.Path), ".tmp-") {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// syncDir makes the rename durable where the platform allows; a failure
// only weakens durability, so it is not reported.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}

// kind names a file mode in words, with its article.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}
