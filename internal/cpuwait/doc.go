// Package cpuwait measures how long this process waited for a CPU over a
// window, from two readings at its ends: its goroutines, in the Go
// scheduler's runnable-wait histogram (runtime/metrics), and its threads,
// in the kernel's run-queue time (/proc/self/task/*/schedstat).
//
// The two see different waits. A goroutine waits for a free P; a thread
// that holds a P waits for the OS to give it a core. A load host shared
// with other busy processes shows the second and hardly the first, so a
// client that asks "was I starved?" needs both. Both the telemetry
// observer and the engine's open-loop evidence read them here.
package cpuwait
