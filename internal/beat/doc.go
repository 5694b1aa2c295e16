// Package beat runs a function on a ticker in its own goroutine, for the
// heartbeats that keep a coordination document alive (the load lock, the
// agents) and the engine's periodic samples, and waits bounded by a
// context (Pause, Until) for the coordinators' polls and agreed starts.
package beat
