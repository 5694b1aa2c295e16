package sim

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// preciseSleep blocks the calling goroutine on a timerfd(2) that the Go
// netpoller watches.
//
// Why not the alternatives, measured on the 2-core development machine:
// time.Sleep wakes through the runtime timer, which an idle process services
// from epoll_wait with a millisecond timeout, so time.Sleep(200µs) took
// ~1.06ms; nanosleep(2) is precise (~55µs timer slack) but blocks in a
// syscall that keeps its P until sysmon retakes it, which stalled the other
// goroutines so badly that 4 clients got half the throughput they should.
// A timerfd's expiry makes the fd readable, which wakes epoll at once
// (~10µs late) and blocks only a goroutine.
func preciseSleep(d time.Duration) {
	f := getTimerfd()
	if f == nil {
		time.Sleep(d)
		return
	}
	spec := struct{ interval, value syscall.Timespec }{value: syscall.NsecToTimespec(int64(d))}
	rc, err := f.SyscallConn()
	var errno syscall.Errno
	if err == nil {
		err = rc.Control(func(fd uintptr) {
			_, _, errno = syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
		})
	}
	if err != nil || errno != 0 {
		f.Close()
		time.Sleep(d)
		return
	}
	var buf [8]byte // the expiry count
	if _, err := f.Read(buf[:]); err != nil {
		f.Close()
		return
	}
	putTimerfd(f)
}

// timerfds is a free list, so a sleep costs two syscalls, not four; it is
// bounded, and fds beyond it are closed.
var timerfds = make(chan *os.File, 512)

func getTimerfd() *os.File {
	select {
	case f := <-timerfds:
		return f
	default:
	}
	const clockMonotonic = 1
	fd, _, errno := syscall.RawSyscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		return nil
	}
	// A non-blocking fd makes os.NewFile register it with the netpoller.
	return os.NewFile(fd, "sim-timerfd")
}

func putTimerfd(f *os.File) {
	select {
	case timerfds <- f:
	default:
		f.Close()
	}
}
