package topology

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// EmbeddedConfig configures the embedded FerretDB server.
type EmbeddedConfig struct {
	// DataDir holds SQLite files; required for the sqlite handler.
	DataDir string
	// Listen is host:port; "127.0.0.1:0" picks a free port.
	Listen string
	// PostgreSQLURL switches to FerretDB's PostgreSQL handler.
	PostgreSQLURL string
	// Log receives FerretDB's own log at warn level and above; nil discards it.
	Log io.Writer
}

// ErrBackend is wrapped by StartEmbedded's error when FerretDB started but
// its storage (PostgreSQL or SQLite) did not answer a command.
var ErrBackend = errors.New("storage backend does not answer")

// Embedded is a running in-process FerretDB.
type Embedded struct {
	URI  string
	done chan error
	stop context.CancelFunc
}

// StartEmbedded starts FerretDB in this process and returns once it
// answers a command that reaches its storage (listDatabases): FerretDB
// accepts connections even when its PostgreSQL is down, and a server that
// looks healthy but fails every operation must not be handed to a sweep.
// ctx bounds starting only: the server runs until Stop.
func StartEmbedded(ctx context.Context, cfg EmbeddedConfig) (*Embedded, error) {
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.PostgreSQLURL != "" {
		RegisterURI(cfg.PostgreSQLURL)
	}
	// FerretDB's own log is held until the server answers, so that a failed
	// start ends in one error line, and it is redacted either way.
	logw := &heldLog{w: cfg.Log, held: &bytes.Buffer{}}
	if cfg.Log == nil {
		logw.w = io.Discard
	}
	conf := &ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: cfg.Listen},
		Logger:   slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if cfg.PostgreSQLURL != "" {
		conf.Handler, conf.PostgreSQLURL = "postgresql", cfg.PostgreSQLURL
	} else {
		if cfg.DataDir == "" {
			return nil, errors.New("embedded server: no data directory")
		}
		conf.Handler, conf.SQLiteURL = "sqlite", "file:"+strings.TrimSuffix(cfg.DataDir, "/")+"/"
	}
	f, err := ferretdb.New(conf)
	if err != nil {
		return nil, fmt.Errorf("start FerretDB: %s", RedactError(err))
	}
	runCtx, stop := context.WithCancel(context.Background())
	e := &Embedded{done: make(chan error, 1), stop: stop}
	go func() { e.done <- f.Run(runCtx) }()

	// MongoDBURI blocks until the listener has its address.
	uriCh := make(chan string, 1)
	go func() { uriCh <- f.MongoDBURI() }()
	select {
	case e.URI = <-uriCh:
	case err := <-e.done:
		stop()
		return nil, fmt.Errorf("FerretDB stopped at start: %v", err)
	case <-ctx.Done():
		stop()
		return nil, fmt.Errorf("FerretDB did not start: %w", ctx.Err())
	}
	if err := probeStorage(ctx, e.URI); err != nil {
		e.Stop()
		return nil, fmt.Errorf("%w: %s", ErrBackend, oneLineServerError(RedactError(err)))
	}
	logw.release()
	return e, nil
}

// probeStorage runs one command that FerretDB must answer from its storage.
func probeStorage(ctx context.Context, uri string) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	client, err := mongo.Connect(ClientOptions(uri).SetMaxPoolSize(1).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		return err
	}
	defer func() {
		// An ended context skips endSessions, which FerretDB does not know
		// and would log as a warning at every start.
		dctx, dcancel := context.WithCancel(context.Background())
		dcancel()
		client.Disconnect(dctx)
	}()
	_, err = client.ListDatabaseNames(ctx, bson.D{})
	return err
}

// goFrames are the source locations FerretDB puts in its error messages.
var goFrames = regexp.MustCompile(`\[[^\]\s]+\.go:\d+ [^\]]*\] ?`)

// oneLineServerError makes a server's error message one line: FerretDB's
// source locations go, and its per-address lines (pgx repeats one per
// attempt) are joined once each.
func oneLineServerError(msg string) string {
	msg = goFrames.ReplaceAllString(msg, "")
	var parts []string
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !slices.Contains(parts, line) {
			parts = append(parts, line)
		}
	}
	return strings.Join(parts, " ")
}

// heldLog holds what is written to it until release, then passes it on;
// every write is redacted.
type heldLog struct {
	mu   sync.Mutex
	w    io.Writer
	held *bytes.Buffer // nil once released
}

func (h *heldLog) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	red := Redact(string(p))
	if h.held != nil {
		if h.held.Len() < 64<<10 {
			h.held.WriteString(red)
		}
		return len(p), nil
	}
	if _, err := io.WriteString(h.w, red); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (h *heldLog) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.w.Write(h.held.Bytes())
	h.held = nil
}

// Done receives Run's result when the server stops.
func (e *Embedded) Done() <-chan error { return e.done }

// Stop shuts the server down and waits (at most 10 s) for it.
func (e *Embedded) Stop() error {
	e.stop()
	select {
	case err := <-e.done:
		return err
	case <-time.After(10 * time.Second):
		return errors.New("FerretDB did not stop within 10s")
	}
}

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
	// Its own process group: Ctrl-C at the terminal (and SIGHUP when it
	// closes) goes to poolsweep alone, which finishes the step and then
	// stops the server, instead of the server dying mid-step. Pdeathsig
	// still takes it along if poolsweep is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
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
