// Package infile opens the files poolsweep reads (results files, CSV
// tables, workload property files, FTDC metrics files, agents' logs) so
// that no input can hang it or exhaust its memory:
//   - Only regular files are read. A FIFO, device, socket or directory is
//     refused by its kind before anything could block on it, and the open
//     itself cannot block (O_NONBLOCK), even if a FIFO is swapped in.
//   - Every read is capped: a file over its limit is refused before it is
//     read, and one that grows past the limit while read stops there.
//   - Reading stops when the context ends (a signal), between reads.
//
// A symlink is followed: the user named the file, and reading does not
// change what it points to.
package infile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Errors that Open and reads wrap, for errors.Is.
var (
	// ErrNotRegular: the path is a FIFO, device, socket or directory.
	ErrNotRegular = errors.New("poolsweep reads only regular files")
	// ErrTooLarge: the file is over the limit for its kind of input.
	ErrTooLarge = errors.New("too large")
)

// File is an open input: a regular file read up to its limit.
type File struct {
	f     *os.File
	ctx   context.Context
	name  string
	limit int64
	read  int64
}

// Open opens path for reading: a regular file of at most limit bytes. The
// error names path as given and says what is wrong in words.
func Open(ctx context.Context, path string, limit int64) (*File, error) {
	if path == "" {
		return nil, errors.New("no file name given")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, textfmt.IOError(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s; %w", path, textfmt.FileKind(fi.Mode()), ErrNotRegular)
	}
	if fi.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	f, err := openRead(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, textfmt.IOError(err))
	}
	// What was opened may not be what was looked at (swapped meanwhile).
	if ofi, err := f.Stat(); err != nil || !ofi.Mode().IsRegular() || !os.SameFile(fi, ofi) {
		f.Close()
		return nil, fmt.Errorf("%s changed while poolsweep opened it; %w", path, ErrNotRegular)
	}
	return &File{f: f, ctx: ctx, name: path, limit: limit}, nil
}

// tooLarge says that path is over limit, in MiB or KiB.
func tooLarge(path string, limit int64) error {
	return fmt.Errorf("%s is %w", path, overLimit(limit))
}

// overLimit says a file is over limit, without naming it: for errors of
// Read, which the reader's caller prefixes with the file's name.
func overLimit(limit int64) error {
	size := fmt.Sprintf("%d KiB", limit>>10)
	if limit >= 1<<20 {
		size = fmt.Sprintf("%d MiB", limit>>20)
	}
	return fmt.Errorf("larger than %s, the limit for this input: %w", size, ErrTooLarge)
}

// Read reads from the file; past the limit it fails with ErrTooLarge, and
// once the context has ended with its error. Its errors do not name the
// file: whoever reads says which file it was reading.
func (f *File) Read(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	if left := f.limit - f.read + 1; int64(len(p)) > left {
		p = p[:left] // one byte past the limit shows the file is over it
	}
	n, err := f.f.Read(p)
	f.read += int64(n)
	if f.read > f.limit {
		return 0, overLimit(f.limit)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		err = textfmt.IOError(err)
	}
	return n, err
}

// Size is the file's size now, as its open descriptor sees it: a reader
// that must not chase a file still being written (a live log) reads only
// this much.
func (f *File) Size() (int64, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return 0, textfmt.IOError(err)
	}
	return fi.Size(), nil
}

// Name is the path as given to Open.
func (f *File) Name() string { return f.name }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadAll reads the whole of path, at most limit bytes (see Open).
func ReadAll(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, err := Open(ctx, path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// Tail is at most the last n bytes of path, a regular file of any size:
// for a log, whose end says how a process ended.
func Tail(ctx context.Context, path string, n int64) ([]byte, error) {
	f, err := Open(ctx, path, 1<<62)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, textfmt.IOError(err))
	}
	if start := fi.Size() - n; start > 0 {
		if _, err := f.f.Seek(start, io.SeekStart); err != nil {
			return nil, fmt.Errorf("%s: %w", path, textfmt.IOError(err))
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
