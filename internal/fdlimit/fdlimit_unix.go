//go:build unix

package fdlimit

import "syscall"

func current() (Limit, bool) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return Limit{}, false
	}
	return Limit{Soft: uint64(l.Cur), Hard: uint64(l.Max)}, true
}

// raiseToHard sets the soft limit to the hard one.
func raiseToHard() error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return err
	}
	l.Cur = l.Max
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
}
