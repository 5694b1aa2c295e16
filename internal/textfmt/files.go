package textfmt

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// FileKind names a file mode in words, with its article: "a FIFO", "a
// character device", "a directory". Errors about paths say what is there.
func FileKind(m fs.FileMode) string {
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

// IOError is err from a file operation said in the user's words, for a
// message that already names the path: the *fs.PathError (or
// *os.LinkError, *os.SyscallError) around the system's error is dropped,
// so the path is not said twice ("write r.html: write r.html: file too
// large"), and the errors a user can act on are said as such. errors.Is
// still finds the system error (syscall.EFBIG, fs.ErrNotExist).
func IOError(err error) error {
	var (
		pe *fs.PathError
		le *os.LinkError
		se *os.SyscallError
	)
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	case errors.As(err, &se):
		err = se.Err
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err
	}
	words := map[syscall.Errno]string{
		syscall.EFBIG:   "the file size limit is reached (ulimit -f)",
		syscall.ENOSPC:  "no space is left on the device",
		syscall.EDQUOT:  "the disk quota is used up",
		syscall.EROFS:   "the file system is read-only",
		syscall.EACCES:  "permission denied",
		syscall.ENOENT:  "no such file or directory",
		syscall.ENOTDIR: "a part of the path is not a directory",
	}[errno]
	if words == "" {
		return errno
	}
	return wordsError{words, errno}
}

// wordsError says errno in words and still is errno for errors.Is.
type wordsError struct {
	words string
	errno syscall.Errno
}

func (e wordsError) Error() string { return e.words }
func (e wordsError) Unwrap() error { return e.errno }

// At is where in an input something is, as an error or warning begins:
// "file:line: field: ", without the line when it is 0 and the field when
// it is "". The file's name is escaped; the field must be the reader's own
// words (a field's name in the format), never a value from the file.
func At(file string, line int, field string) string {
	s := Escape(file)
	if line > 0 {
		s += ":" + strconv.Itoa(line)
	}
	s += ": "
	if field != "" {
		s += field + ": "
	}
	return s
}
