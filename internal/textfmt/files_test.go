package textfmt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestIOError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
		is   error
	}{
		{&fs.PathError{Op: "write", Path: "r.html", Err: syscall.EFBIG}, "the file size limit is reached (ulimit -f)", syscall.EFBIG}, // was "write r.html: file too large"
		{fmt.Errorf("x: %w", &fs.PathError{Op: "write", Path: "r.html", Err: syscall.ENOSPC}), "no space is left on the device", syscall.ENOSPC},
		{&os.LinkError{Op: "rename", Old: "a", New: "b", Err: syscall.EROFS}, "the file system is read-only", syscall.EROFS},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.ENOENT}, "no such file or directory", fs.ErrNotExist}, // errors.Is still knows it
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.EIO}, "input/output error", syscall.EIO},              // others: the system's words, without the path
		{errors.New("plain"), "plain", nil},
	} {
		got := IOError(tc.err)
		if got.Error() != tc.want || (tc.is != nil && !errors.Is(got, tc.is)) {
			t.Errorf("IOError(%v) = %q, want %q (is %v)", tc.err, got, tc.want, tc.is)
		}
	}
}

func TestFileKind(t *testing.T) {
	for _, tc := range []struct {
		m    fs.FileMode
		want string
	}{
		{fs.ModeDir, "a directory"}, {fs.ModeNamedPipe, "a FIFO"}, {fs.ModeDevice | fs.ModeCharDevice, "a character device"},
		{fs.ModeDevice, "a block device"}, {fs.ModeSocket, "a socket"}, {fs.ModeSymlink, "a symlink"}, {0, "a regular file"},
	} {
		if got := FileKind(tc.m); got != tc.want {
			t.Errorf("FileKind(%v) = %q, want %q", tc.m, got, tc.want)
		}
	}
}

// TestAt: where in an input, as messages begin.
func TestAt(t *testing.T) {
	rows := []struct {
		file  string
		line  int
		field string
		want  string
	}{
		{"w.yaml", 42, "shapes[3].share", "w.yaml:42: shapes[3].share: "}, // all three
		{"w.yaml", 0, "", "w.yaml: "},                                     // the whole file, no field
		{"a\x1b[2Jb.log", 7, "", Escape("a\x1b[2Jb.log") + ":7: "},        // a name with an escape sequence, escaped
	}
	for _, r := range rows {
		got := At(r.file, r.line, r.field)
		if got != r.want || strings.ContainsRune(got, 0x1b) {
			t.Errorf("At(%q, %d, %q) = %q, want %q", r.file, r.line, r.field, got, r.want)
		}
	}
}
