package embedded

import (
	"bytes"
	"errors"
	"net"
	"strings"
	"testing"
)

// TestStartDeadBackend: FerretDB accepts connections even when its
// PostgreSQL is down; Start must notice before handing out a URI,
// say so in one line without the password, and print none of FerretDB's
// start-up log.
func TestStartDeadBackend(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var log bytes.Buffer
	e, err := Start(t.Context(), Config{PostgreSQLURL: "postgres://pg:Quokka-Pass-3@" + addr + "/ferretdb", Log: &log})
	if err == nil {
		e.Stop()
		t.Fatal("started with a dead backend")
	}
	if !errors.Is(err, ErrBackend) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "Quokka") || strings.Contains(err.Error(), ".go:") {
		t.Errorf("error: %q", err)
	}
	if strings.Contains(log.String(), "Quokka") || log.Len() > 0 {
		t.Errorf("log during a failed start: %q", log.String())
	}
}

func TestStartSQLiteAnswers(t *testing.T) {
	e, err := Start(t.Context(), Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Stop(); err != nil {
		t.Error(err)
	}
}

func TestOneLineServerError(t *testing.T) {
	in := "(InternalError) [msg_listdatabases.go:59 handler.(*Handler).MsgListDatabases] [pool.go:129 pool.(*Pool).Get] failed to connect to `user=u database=d`:\n\t127.0.0.1:9 (127.0.0.1): dial error: refused\n\t127.0.0.1:9 (127.0.0.1): dial error: refused"
	want := "(InternalError) failed to connect to `user=u database=d`: 127.0.0.1:9 (127.0.0.1): dial error: refused"
	if got := oneLineServerError(in); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
