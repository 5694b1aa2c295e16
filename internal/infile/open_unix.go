//go:build unix

package infile

import (
	"errors"
	"os"
	"syscall"
)

// openRead opens path for reading only (os.OpenFile is the output
// layer's: see internal/outfile), and without blocking: a FIFO put in
// the place of the file that was checked does not hang the open.
func openRead(path string) (*os.File, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	for errors.Is(err, syscall.EINTR) {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}
