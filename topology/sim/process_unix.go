//go:build unix

package sim

import "syscall"

// selfUsage reads getrusage(RUSAGE_SELF).
func selfUsage() (rusage, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return rusage{}, false
	}
	micros := func(tv syscall.Timeval) int64 { return int64(tv.Sec)*1_000_000 + int64(tv.Usec) }
	return rusage{userMicros: micros(ru.Utime), systemMicros: micros(ru.Stime), maxRSSKB: int64(ru.Maxrss), majorFaults: int64(ru.Majflt), minorFaults: int64(ru.Minflt)}, true
}
