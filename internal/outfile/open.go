package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Files written as they go (results.jsonl, a log) cannot be renamed into
// place whole; they are opened so that the open itself never follows a
// symlink (O_NOFOLLOW), never blocks on a FIFO (O_NONBLOCK), and is then
// checked to be a regular file before a byte is written.

// CreateExclusive creates path, which must not exist, for writing: a new
// regular file, never through a symlink (even a dangling one) and never
// over anything. Its parent must exist. For results.jsonl and agents'
// logs, which are appended to as a run goes.
func CreateExclusive(path string) (*os.File, error) {
	if err := Check(path); err != nil {
		return nil, err
	}
	clean := filepath.Clean(path) // checked: where the system puts it
	f, err := os.OpenFile(clean, os.O_CREATE|os.O_EXCL|os.O_WRONLY|noFollow, 0o644)
	if errors.Is(err, fs.ErrExist) {
		if fi, lerr := os.Lstat(clean); lerr == nil {
			if rerr := regular(path, fi); rerr != nil {
				return nil, rerr
			}
		}
		return nil, fmt.Errorf("%s %w", path, ErrExists)
	}
	if err != nil {
		return nil, openError(path, err)
	}
	return f, nil
}

// OpenExisting opens path, an existing regular file, to read and write it
// in place (a results file continued by --resume). A symlink, device,
// FIFO, socket or directory is refused.
func OpenExisting(path string) (*os.File, error) {
	clean, err := resolved(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Lstat(clean)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, textfmt.IOError(err))
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(clean, os.O_RDWR|noFollow|nonBlock, 0)
	if err != nil {
		return nil, openError(path, err)
	}
	return sameRegular(f, path, fi)
}

// Append opens path to append to it, creating it if absent (a server's
// log): absent or a regular file, never through a symlink, and in an
// existing directory.
func Append(path string) (*os.File, error) {
	if err := Check(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Clean(path), os.O_CREATE|os.O_WRONLY|os.O_APPEND|noFollow|nonBlock, 0o644)
	if err != nil {
		return nil, openError(path, err)
	}
	return sameRegular(f, path, nil)
}

// sameRegular keeps f if it is a regular file (and, with want, the file
// that was checked), or closes it and says what it is.
func sameRegular(f *os.File, path string, want fs.FileInfo) (*os.File, error) {
	fi, err := f.Stat()
	switch {
	case err != nil:
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, textfmt.IOError(err))
	case !fi.Mode().IsRegular():
		f.Close()
		return nil, fmt.Errorf("%s is %s, %w", path, textfmt.FileKind(fi.Mode()), ErrNotRegular)
	case want != nil && !os.SameFile(fi, want):
		f.Close()
		return nil, fmt.Errorf("%s changed while poolsweep opened it: %w", path, ErrNotRegular)
	}
	return f, nil
}

// openError says why path could not be opened: a symlink put there after
// the check shows as ELOOP, said as such.
func openError(path string, err error) error {
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%s is a symlink: %w", path, ErrSymlink)
	}
	if errors.Is(err, syscall.ENXIO) {
		return fmt.Errorf("%s is a FIFO, %w", path, ErrNotRegular) // O_NONBLOCK write to a FIFO without a reader
	}
	return fmt.Errorf("%s: %w", path, textfmt.IOError(err))
}
