// Package fdlimit is the one check of how many files this process may
// hold open (RLIMIT_NOFILE, `ulimit -n`), made before a command opens
// its connections: a sweep or a storm whose connections do not fit would
// otherwise run with some of them refused by the kernel and report the
// timeouts as the server's.
package fdlimit

import "fmt"

// Reserve is the descriptors a process keeps beyond its connections:
// standard streams, its results and log files, telemetry's clients to
// every host, a metrics listener, the runtime's own (epoll, pipes).
const Reserve = 256

// Limit is a process's limit on open files: the soft limit it runs
// under and the hard limit it may raise that to.
type Limit struct{ Soft, Hard uint64 }

// ShortError says a process needs more descriptors than even its hard
// limit allows.
type ShortError struct {
	Need uint64
	Limit
}

func (e *ShortError) Error() string {
	return fmt.Sprintf("need %d file descriptors, but this process may open %d (ulimit -n; hard limit %d): raise it with ulimit -n %d in the shell that starts poolsweep (past the hard limit: as root, in /etc/security/limits.conf, or systemd's LimitNOFILE=)",
		e.Need, e.Soft, e.Hard, e.Need)
}

// Ensure makes room for need open descriptors in this process. Go's
// runtime already raises the soft limit to the hard one as it starts
// (since Go 1.19); when the soft limit is still below need (lowered since,
// or another platform) and the hard limit allows, Ensure raises it to the
// hard limit. When even the hard limit is below need it returns a
// *ShortError with both limits. On a platform with no such limit it
// returns nil.
func Ensure(need uint64) error {
	lim, ok := current()
	if !ok || need <= lim.Soft {
		return nil
	}
	if need <= lim.Hard && raiseToHard() == nil {
		if now, ok := current(); ok && need <= now.Soft {
			return nil
		}
	}
	if now, ok := current(); ok {
		lim = now
	}
	return &ShortError{Need: need, Limit: lim}
}

// Current is this process's limit; ok false on a platform without one.
func Current() (Limit, bool) { return current() }
