//go:build unix

package outfile

import "syscall"

// writable asks the kernel whether this process may create files in dir:
// write and search permission, which also fails on a read-only file
// system and honours root's override as the real write would.
func writable(dir string) error {
	const wOK, xOK = 0x2, 0x1
	return syscall.Access(dir, wOK|xOK)
}
