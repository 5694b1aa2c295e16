package topology

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/poolsweep/poolsweep/internal/procgroup"
)

// ChildConfig starts `poolsweep serve` (or any command printing its URI as
// the first stdout line) as a separate process, so that server CPU is not
// the client's.
type ChildConfig struct {
	Exe  string   // default: this executable
	Args []string // default: serve
	// KeepData leaves the data directory behind (for debugging).
	KeepData bool
	// NoData starts the child without a --data directory (the simulator
	// keeps everything in memory).
	NoData bool
}

// Child is a server running as a child process.
type Child struct {
	URI     string
	PID     int
	DataDir string

	cmd      *exec.Cmd
	stdin    io.WriteCloser
	stderr   *tailBuffer
	keepData bool
	waitErr  chan error
	exited   chan struct{} // closed when the process has been waited for
	once     sync.Once
	stopErr  error
}

// StartChild starts the child, gives it a fresh data directory (--data) and
// waits (bounded by ctx) for the URI on its first stdout line. ctx bounds
// starting only: the child runs until Stop, or until this process exits
// (it reads EOF on its stdin, and gets SIGTERM as its parent-death signal).
func StartChild(ctx context.Context, cfg ChildConfig) (*Child, error) {
	exe := cfg.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("find poolsweep executable: %w", err)
		}
	}
	dir, err := os.MkdirTemp("", "poolsweep-serve-")
	if err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	args := cfg.Args
	if args == nil {
		args = []string{"serve"}
	}
	args = append([]string{}, args...)
	if !cfg.NoData {
		args = append(args, "--data", dir)
	}
	cmd := exec.Command(exe, args...)
	// Its own process group: Ctrl-C at the terminal goes to poolsweep
	// alone, which finishes the step and then stops the server.
	procgroup.Own(cmd)
	c := &Child{DataDir: dir, cmd: cmd, stderr: &tailBuffer{max: 8 << 10}, keepData: cfg.KeepData, waitErr: make(chan error, 1), exited: make(chan struct{})}
	cmd.Stderr = c.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start server process: %w", err)
	}
	c.PID = cmd.Process.Pid
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		lines <- strings.TrimSpace(line)
		io.Copy(io.Discard, r) // keep draining so the child never blocks on stdout
	}()
	go func() {
		err := cmd.Wait()
		close(c.exited)
		c.waitErr <- err
	}()
	select {
	case c.URI = <-lines:
		if !strings.HasPrefix(c.URI, "mongodb://") {
			c.Stop()
			return nil, fmt.Errorf("server process printed %q instead of a URI; its stderr: %s", c.URI, c.stderr.String())
		}
	case <-ctx.Done():
		c.Stop()
		return nil, fmt.Errorf("server process did not start: %w; its stderr: %s", ctx.Err(), c.stderr.String())
	}
	return c, nil
}

// Stderr is the tail of the child's stderr, for error messages.
func (c *Child) Stderr() string { return c.stderr.String() }

// Exited reports whether the child is gone (it crashed, or was stopped).
func (c *Child) Exited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

// Stop asks the child to exit by closing its stdin, then SIGTERM, then
// SIGKILL, and removes its data directory. Safe to call twice.
func (c *Child) Stop() error {
	c.once.Do(func() {
		c.stdin.Close()
		select {
		case <-c.waitErr:
		case <-time.After(5 * time.Second):
			c.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-c.waitErr:
			case <-time.After(5 * time.Second):
				c.cmd.Process.Kill()
				<-c.waitErr
				c.stopErr = errors.New("server process had to be killed")
			}
		}
		if !c.keepData {
			os.RemoveAll(c.DataDir)
		}
	})
	return c.stopErr
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(Redact(t.buf.String()))
}
