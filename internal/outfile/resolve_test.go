package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// dotFixture is a directory d for the ".." tests: dir/sub (real
// directories), a file, a FIFO, lnk (a symlink to T, a directory with a
// sub of its own in another directory, elsewhere), and lnkin (a symlink
// to d/dir, whose ".." is d again), and lnkfile (a symlink to the file).
func dotFixture(t testing.TB, d, elsewhere string) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(d, "dir", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(d, "file"), []byte("mine"), 0o644))
	must(syscall.Mkfifo(filepath.Join(d, "fifo"), 0o644))
	must(os.MkdirAll(filepath.Join(elsewhere, "T", "sub"), 0o755))
	must(os.Symlink(filepath.Join(elsewhere, "T"), filepath.Join(d, "lnk")))
	must(os.Symlink(filepath.Join(d, "dir"), filepath.Join(d, "lnkin")))
	must(os.Symlink(filepath.Join(d, "file"), filepath.Join(d, "lnkfile")))
}

// tree lists every path under dirs, for "nothing was created".
func tree(t *testing.T, dirs ...string) string {
	t.Helper()
	var out []string
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err == nil {
				out = append(out, p+" "+e.Type().String())
			}
			return nil
		})
	}
	return strings.Join(out, "\n")
}

// TestResolved: a ".." is followed as the kernel follows it, and a path
// is accepted only where that is where its cleaned text points.
func TestResolved(t *testing.T) {
	d, e := t.TempDir(), t.TempDir()
	dotFixture(t, d, e)
	for _, tc := range []struct {
		rel     string
		clean   string  // relative to d; "" when refused
		wantErr []error // what the refusal wraps
		words   string  // what it says
	}{
		{"dir/../x", "x", nil, ""},           // a real directory: ".." takes it back
		{"dir/sub/../../x", "x", nil, ""},    // two of them
		{"dir/./../x", "x", nil, ""},         // "." changes nothing
		{"dir//sub/..//x", "dir/x", nil, ""}, // nor do empty components
		{"lnk/sub/../x", "lnk/x", nil, ""},   // ".." takes back sub inside the symlink's target: back in it
		{"lnkin/../x", "x", nil, ""},         // a symlink whose target's ".." is where the symlink is
		{"lnk", "lnk", nil, ""},              // no "..": the last name is the writer's to judge
		{"missing/../x", "", []error{ErrDotDot, ErrNoDir}, "no such directory: " + d + "/missing (the \"..\" after it cannot be followed)"}, // nodir/../x.html ran the analysis, then failed
		{"dir/missing/../x", "", []error{ErrDotDot, ErrNoDir}, "no such directory: " + d + "/dir/missing"},                                  // missing deeper
		{"file/../x", "", []error{ErrDotDot, ErrNotDir}, d + "/file is a regular file, not a directory"},                                    // the kernel says ENOTDIR
		{"fifo/../x", "", []error{ErrDotDot, ErrNotDir}, "is a FIFO, not a directory"},                                                      // and for a FIFO
		{"lnk/../x", "", []error{ErrDotDot, ErrSymlink}, d + "/lnk is a symlink to " + e + "/T"},                                            // --plot lnk/../newdir left newdir beside T
		{"lnk/sub/../../x", "", []error{ErrDotDot, ErrSymlink}, "lnk is a symlink"},                                                         // the second ".." takes lnk back
		{"lnk/..", "", []error{ErrDotDot, ErrSymlink}, "lnk is a symlink"},                                                                  // as a directory
		{"file/.", "", []error{ErrNotDir}, d + "/file is a regular file, not a directory"},                                                  // the kernel says ENOTDIR; the cleaned path is the file
		{"file/", "", []error{ErrNotDir}, "is a regular file, not a directory"},                                                             // so does a trailing slash
		{"lnkfile/", "", []error{ErrSymlink, ErrNotDir}, "lnkfile/ is a symlink to " + d + "/file"},                                         // a symlink to a file named as a directory
		{"dir/.", "dir", nil, ""}, // a directory named so
		{"new/", "new", nil, ""},  // a directory to make
	} {
		p := d + "/" + tc.rel
		clean, err := resolved(p)
		if tc.clean != "" {
			if err != nil || clean != filepath.Join(d, tc.clean) {
				t.Errorf("resolved(%q) = %q, %v; want %q", tc.rel, clean, err, filepath.Join(d, tc.clean))
			}
			continue
		}
		for _, w := range tc.wantErr {
			if !errors.Is(err, w) {
				t.Errorf("resolved(%q) = %v; want it to wrap %v", tc.rel, err, w)
			}
		}
		if err != nil && (!strings.Contains(err.Error(), tc.words) || !strings.HasPrefix(err.Error(), p) || strings.Contains(err.Error(), "\n")) {
			t.Errorf("resolved(%q) = %q; want one line naming the path and saying %q", tc.rel, err, tc.words)
		}
	}

	// Relative paths: leading ".." climb from the working directory, as
	// the kernel does, and are not taken back.
	t.Chdir(filepath.Join(d, "dir", "sub"))
	for rel, want := range map[string]string{"../../x": "../../x", "../sub/../x": "../x", "..": "..", "./a/..": "."} {
		if err := os.MkdirAll(filepath.Join(d, "dir", "sub", "a"), 0o755); err != nil {
			t.Fatal(err)
		}
		if clean, err := resolved(rel); err != nil || clean != want {
			t.Errorf("resolved(%q) = %q, %v; want %q", rel, clean, err, want)
		}
	}
	if _, err := resolved("../../lnk/../x"); !errors.Is(err, ErrSymlink) {
		t.Errorf(`resolved("../../lnk/../x") = %v; want the symlink refused`, err)
	}
}

// TestDotDotRefusedEverywhere: every function of the output layer refuses
// a ".." the system resolves elsewhere, before it creates anything, here
// or where the symlink points.
func TestDotDotRefusedEverywhere(t *testing.T) {
	d, e := t.TempDir(), t.TempDir()
	dotFixture(t, d, e)
	hello := func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err }
	before := tree(t, d, e)
	for _, rel := range []string{"missing/../x", "lnk/../x", "file/../x", "lnk/sub/../../x"} {
		p := d + "/" + rel
		calls := map[string]error{
			"Check":    Check(p),
			"CheckDir": CheckDir(p),
			"MakeDir":  MakeDir(p),
			"Write":    Write(p, hello),
			"CheckNames": CheckNames(p, func(string) bool {
				return true
			}),
			"CheckOwnDir": CheckOwnDir(p, "run"),
		}
		_, calls["MakeOwnDir"] = MakeOwnDir(p, "run")
		_, calls["WriteIn"] = WriteIn(p, "reply.json", hello)
		f, err := CreateExclusive(p)
		calls["CreateExclusive"] = err
		if f != nil {
			f.Close()
		}
		f, err = Append(p)
		calls["Append"] = err
		if f != nil {
			f.Close()
		}
		f, err = OpenExisting(p)
		calls["OpenExisting"] = err
		if f != nil {
			f.Close()
		}
		for name, err := range calls {
			if !errors.Is(err, ErrDotDot) {
				t.Errorf("%s(%q) = %v; want %v", name, rel, err, ErrDotDot)
			}
		}
	}
	if after := tree(t, d, e); after != before {
		t.Errorf("refused paths created something:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// A ".." that takes back a real directory is written where it says.
	if err := Write(d+"/dir/../w.txt", hello); err != nil {
		t.Fatal(err)
	}
	if err := MakeDir(d + "/dir/sub/../made"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"w.txt", "dir/made"} {
		if _, err := os.Lstat(filepath.Join(d, p)); err != nil {
			t.Error(err)
		}
	}
}

// TestCheckNames: an entry at a name poolsweep may write must be a
// regular file; other entries are the user's.
func TestCheckNames(t *testing.T) {
	d := fixture(t)
	all := func(string) bool { return true }
	only := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, m := range names {
				if n == m {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		may     func(string) bool
		wantErr error
	}{
		{only("old.html", "absent.json"), nil},       // a regular file is replaced; an absent one made
		{only("to-old"), ErrSymlink},                 // a symlink at a name it may write
		{only("dangling"), ErrSymlink},               // a dangling one
		{only("fifo"), ErrNotRegular},                // a FIFO
		{only("dir"), ErrNotRegular},                 // a directory where a file goes
		{only("sock"), ErrNotRegular},                // a socket
		{func(n string) bool { return false }, nil},  // nothing it writes: the user's entries are left alone
		{all, ErrSymlink},                            // the first refused, in name order: dangling
		{only("ro", "old.html", "x"), ErrNotRegular}, // a directory again
	} {
		if err := CheckNames(d, tc.may); (tc.wantErr == nil) != (err == nil) || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
			t.Errorf("CheckNames = %v, want %v", err, tc.wantErr)
		}
	}
	if err := CheckNames(filepath.Join(d, "new"), all); err != nil { // made fresh
		t.Errorf("CheckNames of an absent directory = %v", err)
	}
	if err := CheckNames("/dev/null/x", all); err == nil {
		t.Error("CheckNames under a device succeeded")
	}
}

// FuzzDotSteps: the walk over a path's components ends where
// filepath.Clean does, and every ".." it records takes back one plain
// component of a clean parent.
func FuzzDotSteps(f *testing.F) {
	for _, s := range []string{"a/../b", "/../x", "../../a/b/..", "a//b/./../..", "lnk/sub/../../x", "/", ".", "a/.../.."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		steps, clean := dotSteps(path)
		if path != "" && clean != filepath.Clean(path) {
			t.Fatalf("dotSteps(%q) ends at %q, filepath.Clean at %q", path, clean, filepath.Clean(path))
		}
		for _, s := range steps {
			if s.name == "" || s.name == "." || s.name == ".." || strings.Contains(s.name, "/") {
				t.Fatalf("dotSteps(%q): a step takes back %q", path, s.name)
			}
			if s.parent != "" && filepath.Clean(s.parent) != s.parent {
				t.Fatalf("dotSteps(%q): a step's parent %q is not clean", path, s.parent)
			}
		}
	})
}

// FuzzResolvedAsKernel builds paths from the fixture's names and holds
// resolved to the kernel: a path it accepts names, through the system,
// the same thing as its cleaned form (or both fail), and a refusal is
// always of a ".." or of a file named as a directory ("file/.").
func FuzzResolvedAsKernel(f *testing.F) {
	d, e := f.TempDir(), f.TempDir()
	dotFixture(f, d, e)
	parts := []string{"dir", "sub", "lnk", "lnkin", "file", "fifo", "missing", "..", ".", "", "lnkfile"}
	for _, s := range [][]byte{{2, 7, 0}, {0, 7, 7, 0}, {6, 7, 4}, {2, 1, 7, 7}, {3, 7, 1}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 16 {
			b = b[:16]
		}
		p := d
		for _, c := range b {
			p += "/" + parts[int(c)%len(parts)]
		}
		clean, err := resolved(p)
		if err != nil {
			if !errors.Is(err, ErrDotDot) && !errors.Is(err, ErrNotDir) {
				t.Fatalf("resolved(%q) = %v: a refusal not of a \"..\" nor of a file named as a directory", p, err)
			}
			return
		}
		raw, rerr := os.Stat(p)
		cl, cerr := os.Stat(clean)
		switch {
		case (rerr == nil) != (cerr == nil):
			t.Fatalf("resolved(%q) = %q, but the system says %v for one and %v for the other", p, clean, rerr, cerr)
		case rerr == nil && !os.SameFile(raw, cl):
			t.Fatalf("resolved(%q) = %q, but the system resolves them to different files", p, clean)
		}
	})
}
