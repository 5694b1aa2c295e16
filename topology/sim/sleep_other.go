//go:build !linux

package sim

import "time"

// preciseSleep falls back to the runtime timer where nanosleep is not wired
// up; the sleeper's overshoot correction still applies.
func preciseSleep(d time.Duration) { time.Sleep(d) }
