package outfile

import "os"

// writable says whether new files can be made in dir by making (and at
// once removing) an empty directory there. Asking access(2) is not enough:
// it says yes to root on read-only and virtual file systems (/proc), where
// the write would then fail after the work was done.
func writable(dir string) error {
	probe, err := os.MkdirTemp(dir, ".poolsweep-probe-")
	if err != nil {
		return err
	}
	return os.Remove(probe)
}
