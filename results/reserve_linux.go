package results

import (
	"errors"
	"os"
	"syscall"
)

// falloc_fl_keep_size allocates blocks without changing the file's size.
const fallocKeepSize = 0x01

// reserve allocates n bytes of f past offset without changing its size,
// so that records written there cannot fail for lack of space. It reports
// false when the space is not there (ENOSPC, or EFBIG from a file size
// limit); a file system that cannot reserve at all counts as success.
func reserve(f *os.File, offset, n int64) bool {
	err := syscall.Fallocate(int(f.Fd()), fallocKeepSize, offset, n)
	switch {
	case err == nil:
		return true
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EFBIG), errors.Is(err, syscall.EDQUOT):
		return false
	default:
		return true
	}
}
