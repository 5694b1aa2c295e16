package infile

import "os"

// openRead opens path for reading only. Windows has no FIFOs in the file
// system for an open to block on (its named pipes live under \\.\pipe\,
// which Stat does not report as regular files), so a plain open will do.
func openRead(path string) (*os.File, error) {
	return os.Open(path)
}
