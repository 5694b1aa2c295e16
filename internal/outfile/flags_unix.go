//go:build unix

package outfile

import "syscall"

// The open flags that make the open itself refuse what the checks before
// it refused: a symlink put in the path's place meanwhile (ELOOP), and a
// FIFO that would block the open (ENXIO without a reader).
const (
	noFollow = syscall.O_NOFOLLOW
	nonBlock = syscall.O_NONBLOCK
)
