package main

import (
	"github.com/poolsweep/poolsweep/internal/errext"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// listTree is every path under dir with its type, to see that a refused
// command wrote nothing.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			out = append(out, strings.TrimPrefix(p, dir)+" "+d.Type().String())
		}
		return nil
	})
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestPlotReportOutputPaths: -o values that are not a regular file (or a
// directory for plot) are refused before any work, with exit 2 and one
// line naming -o; nothing is written, and devices stay devices.
func TestPlotReportOutputPaths(t *testing.T) {
	t.Parallel()
	in := filepath.Join("..", "..", "plot", "testdata", "pair.jsonl")
	d := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(d, "dir"), 0o755))
	must(os.WriteFile(filepath.Join(d, "file"), []byte("x"), 0o644))
	must(syscall.Mkfifo(filepath.Join(d, "fifo"), 0o644))
	must(os.Symlink("/dev/null", filepath.Join(d, "to-null")))
	// An output directory whose throughput.png is a FIFO, and one whose
	// throughput.png is a directory: a figure there cannot be written.
	must(os.MkdirAll(filepath.Join(d, "figs"), 0o755))
	must(syscall.Mkfifo(filepath.Join(d, "figs", "throughput.png"), 0o644))
	must(os.MkdirAll(filepath.Join(d, "md", "README_files", "throughput.png"), 0o755))

	for _, tc := range []struct {
		args []string
		want string // in the one line after "-o: "
	}{
		{[]string{"report", in, "-o", "/dev/full"}, "/dev/full is a character device"},                                               // as root it was replaced by HTML
		{[]string{"report", in, "-o", "/dev/null"}, "/dev/null is a character device"},                                               // never written through
		{[]string{"report", in, "-o", filepath.Join(d, "dir")}, "is a directory"},                                                    // left a stray DIR.tmp
		{[]string{"report", in, "-o", filepath.Join(d, "fifo")}, "is a FIFO"},                                                        // would block on open
		{[]string{"report", in, "-o", filepath.Join(d, "to-null")}, "is a symlink to /dev/null"},                                     // through a link
		{[]string{"report", in, "-o", filepath.Join(d, "file", "r.html")}, "not a directory"},                                        // a parent is a file
		{[]string{"report", in, "-o", filepath.Join(d, "new") + "/"}, "names a directory"},                                           // a directory name
		{[]string{"report", in, "--format", "markdown", "-o", filepath.Join(d, "md", "README.md")}, "throughput.png is a directory"}, // a figure in its figures directory
		{[]string{"plot", in, "-o", filepath.Join(d, "file")}, "is a regular file, not a directory"},                                 // a file as the directory
		{[]string{"plot", in, "-o", "/dev/null"}, "/dev/null is a character device"},                                                 // a device as the directory
		{[]string{"plot", in, "-o", filepath.Join(d, "fifo")}, "is a FIFO"},                                                          // a FIFO as the directory
		{[]string{"plot", in, "-o", filepath.Join(d, "file", "sub")}, "not a directory"},                                             // under a file
		{[]string{"plot", in, "-o", filepath.Join(d, "figs")}, "throughput.png is a FIFO"},                                           // a figure's own path
		{[]string{"report", "/nonexistent.jsonl", "-o", "/dev/full"}, "/dev/full"},                                                   // -o is checked before the inputs are read
		{[]string{"report", in, "-o", filepath.Join(d, "a", "b", "report.html")}, "no such directory"},                               // a missing directory is not made
		{[]string{"plot", in, "-o", filepath.Join(d, "c", "figs")}, "no such directory"},                                             // nor a missing parent
	} {
		before := listTree(t, d)
		code, stdout, stderr := runCLI(t, tc.args...)
		line := strings.TrimSpace(stderr)
		if code != errext.ExitUsage || strings.Count(line, "\n") != 0 || !strings.Contains(line, "-o: ") || !strings.Contains(line, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming -o with %q", tc.args, code, stderr, tc.want)
		}
		if stdout != "" {
			t.Errorf("%v: stdout %q", tc.args, stdout)
		}
		if after := listTree(t, d); after != before {
			t.Errorf("%v: the output tree changed:\nbefore:\n%s\nafter:\n%s", tc.args, before, after)
		}
	}
	for _, dev := range []string{"/dev/full", "/dev/null"} {
		if fi, err := os.Lstat(dev); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Errorf("%s is no longer a character device", dev)
		}
	}

	// Good paths still work: a report in an existing directory, a report
	// replacing an older one, figures into a new directory.
	for _, args := range [][]string{
		{"report", in, "-o", filepath.Join(d, "dir", "report.html")},
		{"report", in, "-o", filepath.Join(d, "file")},
		{"plot", in, "-o", filepath.Join(d, "newfigs"), "--figure", "throughput"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if b, err := os.ReadFile(filepath.Join(d, "file")); err != nil || !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
		t.Errorf("report did not replace the file: %v", err)
	}
	for _, p := range []string{filepath.Join(d, "dir", "report.html"), filepath.Join(d, "newfigs", "throughput.png")} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(d, "*", "*.tmp*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}
