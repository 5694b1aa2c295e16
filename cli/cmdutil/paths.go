package cmdutil

import "os"

// SameFile says whether two paths name one existing file (compare's and
// report's two runs must be two).
func SameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
