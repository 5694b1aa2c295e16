package outfile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fixture builds a directory of every kind of thing an output path can
// name and returns it.
func fixture(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(d, "old.html"), []byte("old"), 0o640))
	must(os.Mkdir(filepath.Join(d, "dir"), 0o755))
	must(syscall.Mkfifo(filepath.Join(d, "fifo"), 0o644))
	must(os.Symlink("/dev/null", filepath.Join(d, "to-null")))
	must(os.Symlink(filepath.Join(d, "dir"), filepath.Join(d, "to-dir")))
	must(os.Symlink(filepath.Join(d, "old.html"), filepath.Join(d, "to-old")))
	must(os.Symlink(filepath.Join(d, "gone"), filepath.Join(d, "dangling")))
	must(os.Mkdir(filepath.Join(d, "ro"), 0o555))
	l, err := net.Listen("unix", filepath.Join(d, "sock"))
	must(err)
	t.Cleanup(func() { l.Close() })
	return d
}

// asRoot says the kernel lets this process write into directories whose
// permission bits say no.
var asRoot = os.Geteuid() == 0

func TestCheck(t *testing.T) {
	d := fixture(t)
	for _, tc := range []struct {
		path    string
		wantErr error  // nil: accepted
		words   string // what the error must say
	}{
		{filepath.Join(d, "new.html"), nil, ""},                                                   // absent in a writable directory
		{filepath.Join(d, "old.html"), nil, ""},                                                   // an existing regular file is replaced
		{filepath.Join(d, "to-old"), nil, ""},                                                     // a symlink to a regular file is written through
		{filepath.Join(d, "dir"), ErrNotRegular, "is a directory, not a regular file"},            // -o DIR left a stray DIR.tmp
		{filepath.Join(d, "new") + "/", ErrNotRegular, "names a directory"},                       // a trailing slash is a directory
		{"/dev/null", ErrNotRegular, "/dev/null is a character device"},                           // never write through a device
		{"/dev/full", ErrNotRegular, "/dev/full is a character device"},                           // as root this was replaced by HTML
		{filepath.Join(d, "fifo"), ErrNotRegular, "is a FIFO"},                                    // a FIFO would block or feed a reader
		{filepath.Join(d, "sock"), ErrNotRegular, "is a socket"},                                  // a socket
		{filepath.Join(d, "to-null"), ErrNotRegular, "is a symlink to /dev/null, a character"},    // a symlink to a device
		{filepath.Join(d, "to-dir"), ErrNotRegular, "a directory, not a regular file"},            // a symlink to a directory
		{filepath.Join(d, "dangling"), ErrNotRegular, "symlink to a missing file"},                // a dangling symlink
		{filepath.Join(d, "missing", "r.html"), ErrNoDir, "no such directory: " + d + "/missing"}, // a missing parent
		{filepath.Join(d, "old.html", "r.html"), ErrNotDir, "is a regular file, not a directory"}, // a parent that is a file
		{"", nil, "no file name"}, // nothing given
	} {
		err := Check(tc.path)
		switch {
		case tc.path == "":
			if err == nil || !strings.Contains(err.Error(), tc.words) {
				t.Errorf("Check(%q) = %v, want %q", tc.path, err, tc.words)
			}
		case tc.wantErr == nil && err != nil:
			t.Errorf("Check(%q) = %v, want nil", tc.path, err)
		case tc.wantErr != nil && (!errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.words)):
			t.Errorf("Check(%q) = %v, want %v saying %q", tc.path, err, tc.wantErr, tc.words)
		case err != nil && !strings.Contains(err.Error(), tc.path):
			t.Errorf("Check(%q) = %v: does not name the path", tc.path, err)
		}
	}
	// A read-only directory: refused, unless the kernel lets this user
	// (root) write there anyway, in which case Write must succeed too.
	ro := filepath.Join(d, "ro", "r.html")
	err := Check(ro)
	if asRoot {
		if err != nil {
			t.Errorf("as root, Check(%q) = %v, but root can write there", ro, err)
		}
		if err := Write(ro, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
			t.Errorf("as root, Write(%q) = %v", ro, err)
		}
	} else if !errors.Is(err, ErrNotWritable) || !strings.Contains(err.Error(), "is not writable") {
		t.Errorf("Check(%q) = %v, want not writable", ro, err)
	}
}

func TestCheckDir(t *testing.T) {
	d := fixture(t)
	for _, tc := range []struct {
		dir     string
		wantErr error
	}{
		{filepath.Join(d, "dir"), nil},                   // an existing directory
		{filepath.Join(d, "to-dir"), nil},                // a symlink to one
		{filepath.Join(d, "new"), nil},                   // absent: created under a writable parent
		{filepath.Join(d, "new", "deeper"), nil},         // absent several levels down
		{filepath.Join(d, "old.html"), ErrNotDir},        // a file
		{"/dev/null", ErrNotDir},                         // a device
		{filepath.Join(d, "fifo"), ErrNotDir},            // a FIFO
		{filepath.Join(d, "old.html", "sub"), ErrNotDir}, // under a file
		{filepath.Join(d, "to-null"), ErrNotDir},         // a symlink to a device
	} {
		err := CheckDir(tc.dir)
		if (tc.wantErr == nil) != (err == nil) || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
			t.Errorf("CheckDir(%q) = %v, want %v", tc.dir, err, tc.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), tc.dir) {
			t.Errorf("CheckDir(%q) = %v: does not name the directory", tc.dir, err)
		}
	}
	if !asRoot {
		if err := CheckDir(filepath.Join(d, "ro", "sub")); !errors.Is(err, ErrNotWritable) {
			t.Errorf("CheckDir under a read-only directory = %v, want not writable", err)
		}
	}
}

// entries lists a directory's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestWrite(t *testing.T) {
	d := fixture(t)
	before := entries(t, d)
	hello := func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err }

	// A new file: written whole, mode 0644, no temporary left.
	p := filepath.Join(d, "new.html")
	if err := Write(p, hello); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "hello" {
		t.Errorf("new file holds %q", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, want 0644", fi.Mode().Perm())
	}
	// Replacing a file keeps its mode.
	if err := Write(filepath.Join(d, "old.html"), hello); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(d, "old.html")); fi.Mode().Perm() != 0o640 {
		t.Errorf("replaced file mode %v, want 0640 kept", fi.Mode().Perm())
	}
	// Through a symlink: the link stays, its target changes.
	if err := Write(filepath.Join(d, "to-old"), func(w io.Writer) error { _, err := io.WriteString(w, "via link"); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(filepath.Join(d, "to-old")); fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if b, _ := os.ReadFile(filepath.Join(d, "old.html")); string(b) != "via link" {
		t.Errorf("symlink target holds %q", b)
	}

	// A failing writer: the destination is untouched, no temporary left.
	failed := errors.New("disk on fire")
	if err := Write(filepath.Join(d, "old.html"), func(w io.Writer) error {
		io.WriteString(w, "half")
		return failed
	}); !errors.Is(err, failed) {
		t.Errorf("failing writer: err %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(d, "old.html")); string(b) != "via link" {
		t.Errorf("failed write changed the destination to %q", b)
	}

	// Refused destinations: nothing is created, devices are untouched.
	for _, bad := range []string{filepath.Join(d, "dir"), filepath.Join(d, "fifo"), filepath.Join(d, "to-null"), "/dev/full", filepath.Join(d, "missing", "x")} {
		if err := Write(bad, hello); err == nil {
			t.Errorf("Write(%q) succeeded", bad)
		}
	}
	if fi, err := os.Lstat("/dev/full"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("/dev/full is no longer a character device: %v %v", fi, err)
	}
	if fi, _ := os.Lstat(filepath.Join(d, "fifo")); fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
	after := entries(t, d)
	want := append(before, "new.html")
	if strings.Join(after, ",") != strings.Join(sortedCopy(want), ",") {
		t.Errorf("directory now holds %v, want %v (no temporary files)", after, sortedCopy(want))
	}
	if es := entries(t, filepath.Join(d, "dir")); len(es) != 0 {
		t.Errorf("refused directory destination got %v", es)
	}
}

// TestWriteRechecksBeforeRename: a FIFO put at the destination while the
// file is being written is not renamed over.
func TestWriteRechecksBeforeRename(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "r.html")
	err := Write(p, func(w io.Writer) error {
		io.WriteString(w, "x")
		return syscall.Mkfifo(p, 0o644)
	})
	if !errors.Is(err, ErrNotRegular) {
		t.Errorf("err %v, want not regular", err)
	}
	if fi, _ := os.Lstat(p); fi == nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
	if es := entries(t, d); len(es) != 1 {
		t.Errorf("directory holds %v, want only the FIFO", es)
	}
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if c[j] < c[i] {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	return c
}
