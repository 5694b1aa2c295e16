package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// reserveBytes is the disk space a results file keeps allocated past its
// end (see reserve): room for the largest step record and the end record,
// so that a disk that fills up during a sweep is noticed between records,
// while there is still room to say so in the file.
const reserveBytes = 256 << 10

// ResultsWriter appends records to results.jsonl, one line each, and
// fsyncs after each, so that a sweep killed at any moment keeps every
// finished step. A record is written whole or not at all: a failed or
// short write is cut back to the previous record.
type ResultsWriter struct {
	f     *os.File
	path  string
	size  int64 // bytes of complete records
	steps int   // step records written through this writer
	full  bool  // the reservation failed: only the end record may follow
}

// CreateResults creates path for a new run. It never replaces an existing
// file, and never writes through a symlink or a path that is not a regular
// file (outfile.CreateExclusive).
func CreateResults(path string) (*ResultsWriter, error) {
	f, err := outfile.CreateExclusive(path)
	if err != nil {
		return nil, fmt.Errorf("create results: %w", err)
	}
	w := &ResultsWriter{f: f, path: path}
	w.full = !reserve(f, 0, reserveBytes)
	return w, nil
}

// AppendResults opens an existing results file to continue it (--resume).
// An incomplete last line (a run killed mid-write) is cut off first, so
// the records appended after it start on a line of their own.
func AppendResults(path string) (*ResultsWriter, error) {
	f, err := outfile.OpenExisting(path) // a regular file, never a symlink
	if err != nil {
		return nil, fmt.Errorf("open results: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open results: %s: %w", path, textfmt.IOError(err))
	}
	size, err := completeLength(f, fi.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open results: %w", err)
	}
	if size != fi.Size() {
		if err := f.Truncate(size); err != nil {
			f.Close()
			return nil, fmt.Errorf("open results: cut the incomplete last line: %w", err)
		}
	}
	w := &ResultsWriter{f: f, path: path, size: size}
	w.full = !reserve(f, size, reserveBytes)
	return w, nil
}

// completeLength is the length of f up to and including its last newline.
func completeLength(f *os.File, size int64) (int64, error) {
	const chunk = 64 << 10
	buf := make([]byte, chunk)
	for end := size; end > 0; {
		start := max(end-chunk, 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && n < int(end-start) {
			return 0, err
		}
		for i := n - 1; i >= 0; i-- {
			if buf[i] == '\n' {
				return start + int64(i) + 1, nil
			}
		}
		end = start
	}
	return 0, nil
}

// Write encodes one record as a line, writes it whole or not at all, and
// fsyncs it. After a successful write it reserves room for the next
// records; when that fails, Full reports it.
func (w *ResultsWriter) Write(rec any) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	b = append(b, '\n')
	n, err := w.f.WriteAt(b, w.size)
	if err == nil && n < len(b) {
		err = fmt.Errorf("short write (%d of %d bytes)", n, len(b))
	}
	if err == nil {
		err = w.f.Sync()
	}
	if err != nil {
		// Cut back to the last complete record so the file stays readable.
		// The error names the file once, in words ("the file size limit
		// is reached (ulimit -f)", not "write X: write X: file too large").
		err = textfmt.IOError(err)
		if terr := w.f.Truncate(w.size); terr != nil {
			err = fmt.Errorf("%w; cutting back to the last whole record: %w", err, textfmt.IOError(terr))
		}
		return fmt.Errorf("%s: %w", w.path, err)
	}
	w.size += int64(n)
	if _, ok := rec.(StepResult); ok {
		w.steps++
	}
	if _, end := rec.(EndRecord); !end && !w.full {
		w.full = !reserve(w.f, w.size, reserveBytes)
	}
	return nil
}

// Full reports that room for further records could not be reserved (the
// disk is full, or a file size limit was reached): the records written so
// far are whole, and there is still room for the end record, which the
// caller should write now and stop.
func (w *ResultsWriter) Full() bool { return w.full }

// StepsWritten is how many step records this writer has written.
func (w *ResultsWriter) StepsWritten() int { return w.steps }

// Path is the file being written.
func (w *ResultsWriter) Path() string { return w.path }

// Close releases the reservation and closes the file.
func (w *ResultsWriter) Close() error {
	if w.f == nil {
		return nil
	}
	// Truncating to the written size gives back the reserved blocks.
	_ = w.f.Truncate(w.size)
	err := w.f.Close()
	w.f = nil
	if errors.Is(err, fs.ErrClosed) {
		return nil
	}
	return err
}
