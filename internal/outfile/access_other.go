//go:build !unix

package outfile

// writable cannot be asked of the kernel here; Write reports the real
// error if the directory refuses the file.
func writable(string) error { return nil }
