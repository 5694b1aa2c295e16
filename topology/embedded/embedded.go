// Package embedded runs FerretDB inside this process: the MongoDB-wire
// server poolsweep sweeps when it is given no target (SQLite in a
// directory of its own, or PostgreSQL), and the one tests use. It is a
// package of its own so that only what starts a server links FerretDB.
package embedded

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/topology"
)

// Config configures the embedded FerretDB server.
type Config struct {
	// DataDir holds SQLite files; required for the sqlite handler.
	DataDir string
	// Listen is host:port; "127.0.0.1:0" picks a free port.
	Listen string
	// PostgreSQLURL switches to FerretDB's PostgreSQL handler.
	PostgreSQLURL string
	// Log receives FerretDB's own log at warn level and above; nil discards it.
	Log io.Writer
}

// ErrBackend is wrapped by Start's error when FerretDB started but
// its storage (PostgreSQL or SQLite) did not answer a command.
var ErrBackend = errors.New("storage backend does not answer")

// Server is a running in-process FerretDB.
type Server struct {
	URI  string
	done chan error
	stop context.CancelFunc
}

// constructing serialises ferretdb.New (see Start).
var constructing sync.Mutex

// Start starts FerretDB in this process and returns once it
// answers a command that reaches its storage (listDatabases): FerretDB
// accepts connections even when its PostgreSQL is down, and a server that
// looks healthy but fails every operation must not be handed to a sweep.
// ctx bounds starting only: the server runs until Stop.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.PostgreSQLURL != "" {
		topology.RegisterURI(cfg.PostgreSQLURL)
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
	// One construction at a time: ferretdb.New writes a package variable
	// (its version's Package), a data race between servers started at
	// once (tests start several under -race).
	constructing.Lock()
	f, err := ferretdb.New(conf)
	constructing.Unlock()
	if err != nil {
		return nil, fmt.Errorf("start FerretDB: %s", topology.RedactError(err))
	}
	runCtx, stop := context.WithCancel(context.Background())
	e := &Server{done: make(chan error, 1), stop: stop}
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
		return nil, fmt.Errorf("%w: %s", ErrBackend, oneLineServerError(topology.RedactError(err)))
	}
	logw.release()
	return e, nil
}

// probeStorage runs one command that FerretDB must answer from its storage.
func probeStorage(ctx context.Context, uri string) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	client, err := mongo.Connect(topology.ClientOptions(uri).SetMaxPoolSize(1).SetServerSelectionTimeout(10 * time.Second))
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
	red := topology.Redact(string(p))
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
func (e *Server) Done() <-chan error { return e.done }

// Stop shuts the server down and waits (at most 10 s) for it.
func (e *Server) Stop() error {
	e.stop()
	select {
	case err := <-e.done:
		return err
	case <-time.After(10 * time.Second):
		return errors.New("FerretDB did not stop within 10s")
	}
}
