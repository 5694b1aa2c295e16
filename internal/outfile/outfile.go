// Package outfile is the one way poolsweep writes files, so that a bad or
// hostile path cannot make it write anywhere the user did not name.
//
// The rules, for every file poolsweep writes:
//   - The name poolsweep writes (the last component of the path: a file,
//     or the output directory the user named) must be absent or the
//     right kind of thing. A symlink there is refused, whatever it points
//     to, and so are a device, FIFO, socket, or a directory where a file
//     is wanted: poolsweep never writes through or over them.
//   - A whole file (a report, a figure, a merged results file) is written
//     into a temporary file in the same directory and renamed over the
//     path: readers see the old file or the new one, and a failed write
//     leaves the path as it was and no temporary file behind (Write).
//     A file written as it goes (results.jsonl, an agent's log) is created
//     exclusively and never follows a symlink (CreateExclusive); a log
//     appended to is opened the same way (Append).
//   - Missing parent directories are never created. An output directory
//     the user names (sweep --out, plot -o, compare --plot) is created if
//     it is absent and its parent exists: one level, never more (MakeDir).
//     Directories poolsweep names itself (a Markdown report's figures
//     directory, the default poolsweep-out/RUN-ID) must be absent or real
//     directories, never symlinks (MakeOwnDir).
//   - Directories on the way to that last name may be reached through
//     symlinks: the user chose the path up to it.
//   - A path is checked as the system resolves it, never on a cleaned
//     copy: a ".." must take back a directory that exists and whose ".."
//     is the one its text names, so "nodir/../x" (nodir missing) and
//     "lnk/../x" (lnk a symlink, whose ".." is its target's parent) are
//     refused, and "f/" or "f/." with f a file too. Once checked, the
//     cleaned path is what is written.
//   - No output is a file the same command reads, however either is
//     spelled (CheckNotInput, CheckNotInputIn): a report written over its
//     results would leave the report and lose the run.
//
// Check, CheckDir, CheckOwnDir and CheckNames let a command refuse a bad
// path before it does any work; the writing functions check again.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Errors that the checks and writes wrap, for errors.Is.
var (
	// ErrNotRegular: the path exists and is not a regular file (a
	// directory, device, FIFO or socket).
	ErrNotRegular = errors.New("not a regular file")
	// ErrSymlink: the path is a symlink, which poolsweep never writes
	// through, whatever it points to.
	ErrSymlink = errors.New("poolsweep never writes through a symlink")
	// ErrNotDir: a directory was wanted and the path is something else.
	ErrNotDir = errors.New("not a directory")
	// ErrNoDir: the directory to write into does not exist, and is not
	// one poolsweep may create.
	ErrNoDir = errors.New("no such directory")
	// ErrNotWritable: this user may not create files in the directory.
	ErrNotWritable = errors.New("not writable")
	// ErrExists: a file to be created exclusively is already there.
	ErrExists = errors.New("already exists")
	// ErrBadName: a file name to write into a directory is not one plain
	// name (empty, ".", "..", or with a separator).
	ErrBadName = errors.New("not a plain file name")
)

// Check says whether path can be written as an output file: absent or a
// regular file (never a symlink), in an existing writable directory. The
// error names path as given.
func Check(path string) error {
	if path == "" {
		return errors.New("no file name given")
	}
	if dirForm(path) {
		return fmt.Errorf("%s names a directory, %w; give a file name", path, ErrNotRegular)
	}
	clean, err := resolved(path)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(clean)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return checkParent(path)
	case err != nil:
		// ENOTDIR and the like: say what is wrong with the parent.
		if perr := checkParent(path); perr != nil {
			return perr
		}
		return fmt.Errorf("%s: %w", path, textfmt.IOError(err))
	}
	if err := regular(path, fi); err != nil {
		return err
	}
	return checkParent(path)
}

// regular refuses anything at path but a regular file; fi is its Lstat.
func regular(path string, fi fs.FileInfo) error {
	m := fi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		return symlinkError(path)
	case !m.IsRegular():
		return fmt.Errorf("%s is %s, %w", path, textfmt.FileKind(m), ErrNotRegular)
	}
	return nil
}

// symlinkError refuses the symlink at path, saying where it points.
func symlinkError(path string) error {
	to, err := os.Readlink(filepath.Clean(path))
	if err != nil {
		return fmt.Errorf("%s is a symlink: %w", path, ErrSymlink)
	}
	return fmt.Errorf("%s is a symlink to %s: %w", path, to, ErrSymlink)
}

// checkParent says whether the directory that name (a file to write, or
// a directory to make) is in exists, is a directory and takes new entries
// (Write puts its temporary file there). It is never made.
func checkParent(name string) error {
	dir := filepath.Dir(filepath.Clean(name))
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w: %s (poolsweep does not create it)", name, ErrNoDir, dir)
	case err != nil:
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("%s: %w", name, textfmt.IOError(err))
		}
		return fmt.Errorf("%s: part of the path is %w", name, ErrNotDir)
	case !fi.IsDir():
		return fmt.Errorf("%s: %s is %s, %w", name, dir, textfmt.FileKind(fi.Mode()), ErrNotDir)
	}
	if err := writable(dir); err != nil {
		return fmt.Errorf("%s: directory %s is %w", name, dir, ErrNotWritable)
	}
	return nil
}

// Write writes path with write: into a temporary file in the same
// directory, synced, then renamed over path, so that readers see the old
// file or the new one and never a part. path is checked first (see Check)
// and again right before the rename; on any failure the temporary file is
// removed and path is left as it was. An existing file keeps its mode.
func Write(path string, write func(io.Writer) error) (err error) {
	if err := Check(path); err != nil {
		return err
	}
	// Checked: the cleaned path is where the system puts it, and using it
	// from here on keeps a ".." from being followed a second time.
	clean := filepath.Clean(path)
	mode := fs.FileMode(0o644)
	if fi, err := os.Lstat(clean); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(clean)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(clean)+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: cannot create a file in %s: %w", path, dir, textfmt.IOError(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// A failed write is said as what the system said (the disk is full),
	// not as whatever the writer wrapped it in, and without the temporary
	// file's name: the user named path, not it.
	w := &watchedFile{f: tmp}
	if err := write(w); err != nil {
		if w.err != nil {
			err = w.err
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("%s: %w", path, textfmt.IOError(err))
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, textfmt.IOError(err))
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, textfmt.IOError(err))
	}
	// Something may have been put at path since the first check (a
	// symlink, a FIFO, a directory): never rename over it.
	if fi, err := os.Lstat(clean); err == nil {
		if err := regular(path, fi); err != nil {
			return fmt.Errorf("%w (it changed while poolsweep wrote)", err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", path, textfmt.IOError(err))
	}
	if err := os.Rename(tmp.Name(), clean); err != nil {
		return fmt.Errorf("%s: %w", path, textfmt.IOError(err))
	}
	syncDir(dir)
	return nil
}

// WriteIn writes the file name into dir (see Write) and returns its path.
// name must be one plain file name: a name that came from elsewhere (a
// host, a command) cannot climb out of dir.
func WriteIn(dir, name string, write func(io.Writer) error) (string, error) {
	if err := plainName(name); err != nil {
		return "", err
	}
	if _, err := resolved(dir); err != nil { // Join would drop its ".." unchecked
		return "", err
	}
	path := filepath.Join(dir, name)
	return path, Write(path, write)
}

// plainName refuses a name that is not one component of a path.
func plainName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return fmt.Errorf("%q is %w", name, ErrBadName)
	}
	return nil
}

// watchedFile is a file whose write errors do not name it and are kept.
type watchedFile struct {
	f   *os.File
	err error // the first write error, in words
}

func (w *watchedFile) Write(b []byte) (int, error) {
	n, err := w.f.Write(b)
	if err != nil {
		err = textfmt.IOError(err)
		if w.err == nil {
			w.err = err
		}
	}
	return n, err
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
