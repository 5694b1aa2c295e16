//go:build unix

package telemetry

import (
	"syscall"
	"time"
)

// processCPU is this process's user+system time so far; zero if the kernel
// will not say (then CPU % reads 0, which bound.Classifier treats as
// "not client bound" rather than failing a step).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
