//go:build !unix

package sim

// selfUsage has no getrusage to read here: extra_info is left out.
func selfUsage() (rusage, bool) { return rusage{}, false }
