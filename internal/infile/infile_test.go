package infile

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOpen(t *testing.T) {
	d := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(d, "small"), []byte("hello\n"), 0o644))
	must(os.WriteFile(filepath.Join(d, "big"), make([]byte, 2048), 0o644))
	must(syscall.Mkfifo(filepath.Join(d, "fifo"), 0o644))
	must(os.Symlink(filepath.Join(d, "small"), filepath.Join(d, "to-small")))
	must(os.Symlink(filepath.Join(d, "fifo"), filepath.Join(d, "to-fifo")))
	l, err := net.Listen("unix", filepath.Join(d, "sock"))
	must(err)
	defer l.Close()

	ctx := context.Background()
	for _, tc := range []struct {
		path    string
		wantErr error
		words   string
	}{
		{filepath.Join(d, "small"), nil, ""},                                           // a regular file under the limit
		{filepath.Join(d, "to-small"), nil, ""},                                        // through a symlink: reading changes nothing
		{filepath.Join(d, "big"), ErrTooLarge, "is larger than 1 KiB"},                 // over the limit: refused before reading
		{filepath.Join(d, "fifo"), ErrNotRegular, "is a FIFO"},                         // would block until a writer came
		{filepath.Join(d, "to-fifo"), ErrNotRegular, "is a FIFO"},                      // the same through a symlink
		{"/dev/zero", ErrNotRegular, "/dev/zero is a character device"},                // never ends
		{"/dev/null", ErrNotRegular, "is a character device"},                          // a device
		{d, ErrNotRegular, "is a directory"},                                           // a directory
		{filepath.Join(d, "sock"), ErrNotRegular, "is a socket"},                       // a socket
		{filepath.Join(d, "absent"), fs.ErrNotExist, "absent: no such file"},           // missing, in words
		{filepath.Join(d, "small", "x"), syscall.ENOTDIR, "part of the path is not a"}, // under a file
	} {
		done := make(chan struct{})
		var f *File
		var err error
		go func() {
			f, err = Open(ctx, tc.path, 1024)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Open(%q) hangs", tc.path)
		}
		if tc.wantErr == nil {
			if err != nil {
				t.Errorf("Open(%q) = %v", tc.path, err)
				continue
			}
			b, err := io.ReadAll(f)
			f.Close()
			if err != nil || string(b) != "hello\n" {
				t.Errorf("read %q: %q, %v", tc.path, b, err)
			}
			continue
		}
		if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.words) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("Open(%q) = %v, want %v saying %q and naming the file", tc.path, err, tc.wantErr, tc.words)
		}
		if f != nil {
			f.Close()
		}
	}
}

// TestReadStops: a file that grows past its limit while read stops at
// the limit, and a read after the context ended stops at once.
func TestReadStops(t *testing.T) {
	p := filepath.Join(t.TempDir(), "growing")
	if err := os.WriteFile(p, []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(context.Background(), p, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, make([]byte, 4096), 0o644); err != nil { // grows after the check
		t.Fatal(err)
	}
	if _, err := io.ReadAll(f); !errors.Is(err, ErrTooLarge) {
		t.Errorf("read past the limit: %v, want %v", err, ErrTooLarge)
	}
	f.Close()

	ctx, cancel := context.WithCancel(context.Background())
	f, err = Open(ctx, p, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cancel()
	if _, err := io.ReadAll(f); !errors.Is(err, context.Canceled) {
		t.Errorf("read after the context ended: %v", err)
	}
}

func TestTailAndReadAll(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(p, []byte(strings.Repeat("x", 5000)+"\nlast line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Tail(context.Background(), p, 16)
	if err != nil || string(b) != strings.Repeat("x", 5)+"\nlast line\n" {
		t.Errorf("Tail = %q, %v", b, err)
	}
	if _, err := ReadAll(context.Background(), p, 100); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadAll over the limit: %v", err)
	}
	if _, err := Tail(context.Background(), "/dev/zero", 16); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Tail of a device: %v", err)
	}
}
