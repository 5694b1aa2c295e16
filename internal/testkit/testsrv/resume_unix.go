//go:build unix

package testsrv

import (
	"os"
	"syscall"
)

// resume continues p if a test stopped it (SIGSTOP), so that it can end.
func resume(p *os.Process) { _ = p.Signal(syscall.SIGCONT) }
