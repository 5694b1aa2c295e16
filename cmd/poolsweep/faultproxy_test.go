package main

import (
	"errors"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// faultProxy is a TCP proxy on a loopback port that the fault tests put
// between poolsweep and a server, to inject what networks and servers do
// to a sweep: added latency, connection resets, a blackhole (bytes held
// back, as when packets are dropped), and a backend that dies and comes
// back on the same front port.
type faultProxy struct {
	t  *testing.T
	ln net.Listener

	mu        sync.Mutex
	backend   string
	latency   time.Duration
	blackhole bool
	released  chan struct{} // closed when the blackhole ends
	conns     map[net.Conn]struct{}

	lastToClient atomic.Int64 // when bytes last went to a client, Unix ns
	accepted     atomic.Int64 // connections accepted so far
}

func newFaultProxy(t *testing.T, backend string) *faultProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{t: t, ln: ln, backend: backend, conns: map[net.Conn]struct{}{}, released: make(chan struct{})}
	close(p.released)
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.ResetAll()
	})
	return p
}

// Addr is the front address clients connect to.
func (p *faultProxy) Addr() string { return p.ln.Addr().String() }

// SetBackend points new connections at another server.
func (p *faultProxy) SetBackend(addr string) {
	p.mu.Lock()
	p.backend = addr
	p.mu.Unlock()
}

// SetLatency delays every chunk in each direction by d.
func (p *faultProxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	p.latency = d
	p.mu.Unlock()
}

// SetBlackhole holds every byte back (in both directions) until it is
// turned off again.
func (p *faultProxy) SetBlackhole(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on == p.blackhole {
		return
	}
	p.blackhole = on
	if on {
		p.released = make(chan struct{})
	} else {
		close(p.released)
	}
}

// ResetAll closes every open connection with a TCP reset.
func (p *faultProxy) ResetAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		c.Close()
		delete(p.conns, c)
	}
}

func (p *faultProxy) track(c net.Conn, add bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if add {
		p.conns[c] = struct{}{}
	} else {
		delete(p.conns, c)
	}
}

func (p *faultProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.serve(c)
	}
}

func (p *faultProxy) serve(front net.Conn) {
	p.accepted.Add(1)
	p.mu.Lock()
	backend := p.backend
	p.mu.Unlock()
	back, err := net.DialTimeout("tcp", backend, 2*time.Second)
	if err != nil {
		// A dead backend: the client sees its connection reset, as it
		// would see a refused one.
		if tc, ok := front.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		front.Close()
		return
	}
	p.track(front, true)
	p.track(back, true)
	done := make(chan struct{}, 2)
	go func() { p.pipe(back, front, false); done <- struct{}{} }()
	go func() { p.pipe(front, back, true); done <- struct{}{} }()
	<-done
	front.Close()
	back.Close()
	<-done
	p.track(front, false)
	p.track(back, false)
}

// awaitNewConns waits until at least n connections more than now have
// been accepted and then none for quiet (a pool that finished opening),
// or until bound passes.
func (p *faultProxy) awaitNewConns(n int64, quiet, bound time.Duration) {
	want := p.accepted.Load() + n
	deadline := time.Now().Add(bound)
	last, since := p.accepted.Load(), time.Now()
	for time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		if c := p.accepted.Load(); c != last {
			last, since = c, time.Now()
		}
		if last >= want && time.Since(since) >= quiet {
			return
		}
	}
}

// LastToClient is when the proxy last passed bytes from a server to a
// client.
func (p *faultProxy) LastToClient() time.Time { return time.Unix(0, p.lastToClient.Load()) }

// pipe copies src to dst chunk by chunk, applying the faults in force;
// toClient says dst is a client.
func (p *faultProxy) pipe(dst, src net.Conn, toClient bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			lat, released := p.latency, p.released
			p.mu.Unlock()
			<-released
			if lat > 0 {
				time.Sleep(lat)
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
			if toClient {
				p.lastToClient.Store(time.Now().UnixNano())
			}
		}
		if err != nil {
			return
		}
	}
}

// simServer is `poolsweep serve --sim SPEC` as a separate process, so
// that a test can kill it, or stop and continue it.
type simServer struct {
	cmd  *exec.Cmd
	Addr string
}

func startSimServer(t *testing.T, spec string) *simServer {
	t.Helper()
	cmd, _, uri := launchServe(t, "--sim", spec)
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGCONT) }) // a stopped server thaws before it is killed
	host, _, _ := strings.Cut(strings.TrimPrefix(uri, "mongodb://"), "/")
	return &simServer{cmd: cmd, Addr: host}
}

// faultSimSpec is the fault suite's server: slots enough that the
// suite's sweeps, run in parallel, never queue behind each other, and a
// service time long enough that they leave the machine's CPU to the rest.
const faultSimSpec = "slots=64,service=5ms"

// faultTarget starts a simulator of its own behind a fault proxy, for a
// test of the fault suite that stops or kills its server; the suite is
// skipped under -short and runs in parallel.
func faultTarget(t *testing.T) (*simServer, *faultProxy) {
	t.Helper()
	if testing.Short() {
		t.Skip("fault suite")
	}
	srv := startSimServer(t, faultSimSpec)
	return srv, newFaultProxy(t, srv.Addr)
}

// sharedFaultProxy is a fault proxy of the test's own in front of the
// suite's shared simulator, for a test whose faults are the network's.
func sharedFaultProxy(t *testing.T) *faultProxy {
	t.Helper()
	if testing.Short() {
		t.Skip("fault suite")
	}
	return newFaultProxy(t, sharedSimAddr(t, faultSimSpec))
}

// Kill ends the server with SIGKILL, as a crash would.
func (s *simServer) Kill() {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Kill()
	err := s.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !errors.Is(err, io.EOF) {
		return
	}
}

// Stop freezes the server (SIGSTOP); Continue thaws it.
func (s *simServer) Stop()     { s.cmd.Process.Signal(syscall.SIGSTOP) }
func (s *simServer) Continue() { s.cmd.Process.Signal(syscall.SIGCONT) }
