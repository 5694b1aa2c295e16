package telemetry

import (
	"syscall"
	"time"
)

// processCPU is this process's user+system time so far (GetProcessTimes);
// zero if Windows will not say (then CPU % reads 0, which
// bound.Classifier treats as "not client bound" rather than failing a
// step).
func processCPU() time.Duration {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0
	}
	var created, exited, kernel, user syscall.Filetime
	if err := syscall.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	// A Filetime counts 100-ns intervals.
	ticks := func(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
