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
		{filepath.Join(d, "to-old"), ErrSymlink, "is a symlink to " + d + "/old.html"},            // never written through, even to a regular file
		{filepath.Join(d, "dir"), ErrNotRegular, "is a directory, not a regular file"},            // -o DIR left a stray DIR.tmp
		{filepath.Join(d, "new") + "/", ErrNotRegular, "names a directory"},                       // a trailing slash is a directory
		{"/dev/null", ErrNotRegular, "/dev/null is a character device"},                           // never write through a device
		{"/dev/full", ErrNotRegular, "/dev/full is a character device"},                           // as root this was replaced by HTML
		{filepath.Join(d, "fifo"), ErrNotRegular, "is a FIFO"},                                    // a FIFO would block or feed a reader
		{filepath.Join(d, "sock"), ErrNotRegular, "is a socket"},                                  // a socket
		{filepath.Join(d, "to-null"), ErrSymlink, "is a symlink to /dev/null"},                    // a symlink to a device
		{filepath.Join(d, "to-dir"), ErrSymlink, "is a symlink to " + d + "/dir"},                 // a symlink to a directory
		{filepath.Join(d, "dangling"), ErrSymlink, "is a symlink to " + d + "/gone"},              // a dangling symlink would create a file elsewhere
		{filepath.Join(d, "missing", "r.html"), ErrNoDir, "no such directory: " + d + "/missing"}, // a missing parent is never created
		{filepath.Join(d, "old.html", "r.html"), ErrNotDir, "is a regular file, not a directory"}, // a parent that is a file
		{filepath.Join(d, "to-dir", "r.html"), nil, ""},                                           // an existing directory may be reached through a symlink
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
		{filepath.Join(d, "to-dir"), ErrSymlink},         // a symlink to one: planted, it would take the files elsewhere
		{filepath.Join(d, "to-dir") + "/", ErrSymlink},   // however it is written
		{filepath.Join(d, "to-dir", "sub"), nil},         // a new directory in one the path reaches through a symlink
		{filepath.Join(d, "new"), nil},                   // absent: created under a writable parent
		{filepath.Join(d, "new", "deeper"), ErrNoDir},    // absent with its parent: only one level is made
		{filepath.Join(d, "dangling"), ErrSymlink},       // a symlink to a missing directory
		{filepath.Join(d, "old.html"), ErrNotDir},        // a file
		{"/dev/null", ErrNotDir},                         // a device
		{filepath.Join(d, "fifo"), ErrNotDir},            // a FIFO
		{filepath.Join(d, "old.html", "sub"), ErrNotDir}, // under a file
		{filepath.Join(d, "to-null"), ErrSymlink},        // a symlink to a device
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
	// A symlink is refused, whatever it points to: its target keeps its
	// content and its modification time.
	tfi, _ := os.Stat(filepath.Join(d, "old.html"))
	if err := Write(filepath.Join(d, "to-old"), func(w io.Writer) error { _, err := io.WriteString(w, "via link"); return err }); !errors.Is(err, ErrSymlink) {
		t.Errorf("write through a symlink: err %v, want %v", err, ErrSymlink)
	}
	if fi, _ := os.Lstat(filepath.Join(d, "to-old")); fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if b, _ := os.ReadFile(filepath.Join(d, "old.html")); string(b) != "hello" {
		t.Errorf("symlink target holds %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(d, "old.html")); !fi.ModTime().Equal(tfi.ModTime()) {
		t.Error("the symlink's target was touched")
	}

	// A failing writer: the destination is untouched, no temporary left.
	failed := errors.New("disk on fire")
	if err := Write(filepath.Join(d, "old.html"), func(w io.Writer) error {
		io.WriteString(w, "half")
		return failed
	}); !errors.Is(err, failed) {
		t.Errorf("failing writer: err %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(d, "old.html")); string(b) != "hello" {
		t.Errorf("failed write changed the destination to %q", b)
	}

	// Refused destinations: nothing is created, devices are untouched.
	for _, bad := range []string{filepath.Join(d, "dir"), filepath.Join(d, "fifo"), filepath.Join(d, "to-null"), filepath.Join(d, "dangling"), "/dev/full", filepath.Join(d, "missing", "x")} {
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

func TestWriteIn(t *testing.T) {
	d := fixture(t)
	hello := func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err }
	p, err := WriteIn(filepath.Join(d, "dir"), "reply.json", hello)
	if err != nil || p != filepath.Join(d, "dir", "reply.json") {
		t.Fatalf("WriteIn = %q, %v", p, err)
	}
	for _, name := range []string{"", ".", "..", "../x", "a/b", "x\x00y"} { // a name cannot climb out of the directory
		if _, err := WriteIn(filepath.Join(d, "dir"), name, hello); !errors.Is(err, ErrBadName) {
			t.Errorf("WriteIn(%q) = %v, want %v", name, err, ErrBadName)
		}
	}
	if _, err := WriteIn(d, "to-old", hello); !errors.Is(err, ErrSymlink) { // the rules of Write hold inside
		t.Errorf("WriteIn over a symlink = %v", err)
	}
}

func TestMakeDir(t *testing.T) {
	d := fixture(t)
	if err := MakeDir(filepath.Join(d, "made")); err != nil { // one level under an existing parent
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(d, "made")); err != nil || !fi.IsDir() {
		t.Errorf("made: %v %v", fi, err)
	}
	if err := MakeDir(filepath.Join(d, "made")); err != nil { // existing: nothing to do
		t.Error(err)
	}
	for _, bad := range []string{filepath.Join(d, "to-dir"), filepath.Join(d, "a", "b"), filepath.Join(d, "dangling"), filepath.Join(d, "fifo"), filepath.Join(d, "old.html")} {
		if err := MakeDir(bad); err == nil {
			t.Errorf("MakeDir(%q) succeeded", bad)
		}
	}
	if _, err := os.Lstat(filepath.Join(d, "a")); err == nil {
		t.Error("a missing parent was created")
	}
	if _, err := os.Lstat(filepath.Join(d, "gone")); err == nil {
		t.Error("a dangling symlink's target was created")
	}
}

func TestOwnDir(t *testing.T) {
	d := fixture(t)
	for _, tc := range []struct {
		rel     string
		wantErr error
	}{
		{"out/run", nil},            // absent: made component by component
		{"dir", nil},                // an existing real directory
		{"dir/run", nil},            // under one
		{"to-dir", ErrSymlink},      // a symlink to a directory: the files would go elsewhere
		{"to-dir/run", ErrSymlink},  // under one
		{"dangling", ErrSymlink},    // a dangling symlink
		{"old.html/run", ErrNotDir}, // under a file
		{"fifo", ErrNotDir},         // a FIFO
		{"../escape", ErrBadName},   // out of base
		{"/abs", ErrBadName},        // not relative
		{"", ErrBadName},            // nothing
	} {
		err := CheckOwnDir(d, tc.rel)
		if (tc.wantErr == nil) != (err == nil) || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
			t.Errorf("CheckOwnDir(%q) = %v, want %v", tc.rel, err, tc.wantErr)
		}
		p, merr := MakeOwnDir(d, tc.rel)
		if (err == nil) != (merr == nil) {
			t.Errorf("MakeOwnDir(%q) = %v, CheckOwnDir said %v", tc.rel, merr, err)
		}
		if merr == nil {
			if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
				t.Errorf("MakeOwnDir(%q): %s is %v %v", tc.rel, p, fi, err)
			}
		}
	}
	if es := entries(t, filepath.Join(d, "dir")); strings.Join(es, ",") != "run" {
		t.Errorf("dir holds %v", es)
	}
	if _, err := os.Lstat(filepath.Join(d, "gone")); err == nil {
		t.Error("a dangling symlink's target was created")
	}
}

func TestCreateExclusive(t *testing.T) {
	d := fixture(t)
	f, err := CreateExclusive(filepath.Join(d, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, tc := range []struct {
		path    string
		wantErr error
	}{
		{filepath.Join(d, "results.jsonl"), ErrExists}, // never over a file, even one it made
		{filepath.Join(d, "old.html"), ErrExists},      // nor the user's
		{filepath.Join(d, "to-old"), ErrSymlink},       // a symlink to a file
		{filepath.Join(d, "dangling"), ErrSymlink},     // a dangling symlink: O_CREAT would make its target
		{filepath.Join(d, "fifo"), ErrNotRegular},      // a FIFO
		{"/dev/null", ErrNotRegular},                   // a device
		{filepath.Join(d, "dir"), ErrNotRegular},       // a directory
		{filepath.Join(d, "a", "x"), ErrNoDir},         // a missing parent
	} {
		if f, err := CreateExclusive(tc.path); !errors.Is(err, tc.wantErr) {
			t.Errorf("CreateExclusive(%q) = %v, want %v", tc.path, err, tc.wantErr)
			if f != nil {
				f.Close()
			}
		}
	}
	if _, err := os.Lstat(filepath.Join(d, "gone")); err == nil {
		t.Error("a dangling symlink's target was created")
	}
	if b, _ := os.ReadFile(filepath.Join(d, "old.html")); string(b) != "old" {
		t.Errorf("old.html holds %q", b)
	}
}

func TestOpenExistingAndAppend(t *testing.T) {
	d := fixture(t)
	f, err := OpenExisting(filepath.Join(d, "old.html"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	log := filepath.Join(d, "server.log")
	for range 2 { // created, then appended to
		f, err := Append(log)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(f, "line\n")
		f.Close()
	}
	if b, _ := os.ReadFile(log); string(b) != "line\nline\n" {
		t.Errorf("log holds %q", b)
	}
	for _, tc := range []struct {
		path    string
		wantErr error
	}{
		{filepath.Join(d, "to-old"), ErrSymlink},   // a symlink to a file
		{filepath.Join(d, "dangling"), ErrSymlink}, // a dangling symlink
		{filepath.Join(d, "fifo"), ErrNotRegular},  // a FIFO: the open must not block
		{"/dev/null", ErrNotRegular},               // a device
		{filepath.Join(d, "dir"), ErrNotRegular},   // a directory
	} {
		if f, err := Append(tc.path); !errors.Is(err, tc.wantErr) {
			t.Errorf("Append(%q) = %v, want %v", tc.path, err, tc.wantErr)
			if f != nil {
				f.Close()
			}
		}
		if f, err := OpenExisting(tc.path); !errors.Is(err, tc.wantErr) {
			t.Errorf("OpenExisting(%q) = %v, want %v", tc.path, err, tc.wantErr)
			if f != nil {
				f.Close()
			}
		}
	}
	if _, err := OpenExisting(filepath.Join(d, "absent")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenExisting of a missing file = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(d, "old.html")); string(b) != "old" {
		t.Errorf("old.html holds %q", b)
	}
}

// TestWriteErrorsInWords: a write stopped by the file size limit (ulimit
// -f) says so once, naming the path the user gave and not the temporary
// file.
func TestWriteErrorsInWords(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	limit := old
	limit.Cur = 4096
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "r.html")
	err := Write(p, func(w io.Writer) error { _, err := w.Write(make([]byte, 64<<10)); return err })
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(err, syscall.EFBIG) || err.Error() != p+": the file size limit is reached (ulimit -f)" {
		t.Errorf("err %q, want %q wrapping EFBIG", err, p+": the file size limit is reached (ulimit -f)")
	}
	if es := entries(t, filepath.Dir(p)); len(es) != 0 {
		t.Errorf("left behind: %v", es)
	}
}
