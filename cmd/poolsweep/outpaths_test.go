package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// Fixtures the output-path tests read.
var (
	pairFixture  = filepath.Join("..", "..", "plot", "testdata", "pair.jsonl")
	abBaseInput  = filepath.Join("..", "..", "plot", "testdata", "ab-base.jsonl")
	abCandInput  = filepath.Join("..", "..", "plot", "testdata", "ab-cand.jsonl")
	agentFixture = filepath.Join("testdata", "agent-0.jsonl")
)

// outside is a directory out of every output path, holding what a
// hostile path points at: a file and a directory.
type outside struct {
	dir, file, subdir string
	mtime             time.Time
}

func newOutside(t *testing.T) *outside {
	t.Helper()
	o := &outside{dir: t.TempDir(), mtime: time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)}
	o.file, o.subdir = filepath.Join(o.dir, "victim.txt"), filepath.Join(o.dir, "victim-dir")
	if err := os.WriteFile(o.file, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(o.file, o.mtime, o.mtime); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(o.subdir, 0o755); err != nil {
		t.Fatal(err)
	}
	return o
}

// check fails the test if anything outside changed: the file's content
// or modification time, or an entry made in the directory or beside them
// (the target of a dangling symlink).
func (o *outside) check(t *testing.T, label string) {
	t.Helper()
	fi, err := os.Stat(o.file)
	if b, _ := os.ReadFile(o.file); err != nil || string(b) != "precious\n" || !fi.ModTime().Equal(o.mtime) {
		t.Errorf("%s: the file outside was touched: %q, %v", label, b, fi.ModTime())
	}
	if es, _ := os.ReadDir(o.subdir); len(es) != 0 {
		t.Errorf("%s: %s was written into the directory outside", label, es[0].Name())
	}
	if es, _ := os.ReadDir(o.dir); len(es) != 2 {
		t.Errorf("%s: the directory outside now holds %d entries", label, len(es))
	}
}

// hostile is a kind of thing put where poolsweep will write.
type hostile struct {
	name string
	put  func(t *testing.T, p string, o *outside)
	want string // what the one line says about it
}

func symlinkTo(target func(o *outside) string) func(*testing.T, string, *outside) {
	return func(t *testing.T, p string, o *outside) {
		t.Helper()
		if err := os.Symlink(target(o), p); err != nil {
			t.Fatal(err)
		}
	}
}

var (
	linkToFile = hostile{"a symlink to a file outside", symlinkTo(func(o *outside) string { return o.file }), "is a symlink to"}
	linkToDir  = hostile{"a symlink to a directory outside", symlinkTo(func(o *outside) string { return o.subdir }), "is a symlink to"}
	dangling   = hostile{"a dangling symlink", symlinkTo(func(o *outside) string { return filepath.Join(o.dir, "victim-new") }), "is a symlink to"}
	fifo       = hostile{"a FIFO", func(t *testing.T, p string, _ *outside) {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}, "is a FIFO"}
	directory = hostile{"a directory", func(t *testing.T, p string, _ *outside) {
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}, "is a directory"}
	regular = hostile{"a regular file", func(t *testing.T, p string, _ *outside) {
		if err := os.WriteFile(p, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}, "is a regular file, not a directory"}
	// What can be where a file is written; where a directory poolsweep
	// names itself is made (a directory there is fine); and where the
	// output directory the user named is (a symlink to a directory too is
	// refused: planted, it would take the files elsewhere).
	fileKinds   = []hostile{linkToFile, linkToDir, dangling, fifo, directory}
	ownDirKinds = []hostile{linkToFile, linkToDir, dangling, fifo}
	dirKinds    = []hostile{linkToFile, linkToDir, dangling, fifo, regular}
)

// runWithin runs poolsweep in-process and fails the test if it has not
// ended within d: a FIFO or a device must never make it hang.
func runWithin(t *testing.T, d time.Duration, args ...string) (int, string, string) {
	t.Helper()
	return runWithinUsing(t, d, runners{}, args...)
}

// runWithinUsing is runWithin with the commands' runners r (dryRunners
// stop those that connect or start a server after validation).
func runWithinUsing(t *testing.T, d time.Duration, r runners, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
		done <- result{runWith(context.Background(), args, e, r), out.String(), errb.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(d):
		t.Fatalf("%q is still running after %s: it hangs", args, d)
	}
	return 0, "", ""
}

// wantRefused checks one refusal: exit 2, one line naming flag with want,
// nothing on stdout.
func wantRefused(t *testing.T, label string, code int, stdout, stderr, flag, want string) {
	t.Helper()
	line := strings.TrimSpace(stderr)
	if code != errext.ExitUsage || strings.Contains(line, "\n") || !strings.Contains(line, flag+": ") || !strings.Contains(line, want) {
		t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line naming %s with %q", label, code, stderr, flag, want)
	}
	if stdout != "" {
		t.Errorf("%s: stdout %q", label, stdout)
	}
}

// writer is a command that writes files, and the path in its output
// (relative to its directory) where a hostile thing is put.
type writer struct {
	name  string
	args  func(d string) []string
	at    string   // the path poolsweep would write, relative to d
	prep  []string // directories to make in d first
	flag  string   // the flag the refusal names
	kinds []hostile
	want  string // what every refusal says, when not the kind's words
}

func writers() []writer {
	sim := []string{"--target", "a=sim:slots=1,service=1ms", "--concurrency", "1", "--warmup", "100ms", "--duration", "200ms"}
	sweep := func(extra ...string) func(d string) []string {
		return func(d string) []string {
			return append(append([]string{"sweep", "--out", filepath.Join(d, "out")}, sim...), extra...)
		}
	}
	return []writer{
		{"report", func(d string) []string { return []string{"report", pairFixture, "-o", filepath.Join(d, "r.html")} }, "r.html", nil, "-o", fileKinds, ""},
		{"report --format markdown", func(d string) []string {
			return []string{"report", pairFixture, "--format", "markdown", "-o", filepath.Join(d, "r.md")}
		}, "r.md", nil, "-o", fileKinds, ""},
		{"report --format markdown, a figure", func(d string) []string {
			return []string{"report", pairFixture, "--format", "markdown", "-o", filepath.Join(d, "r.md")}
		}, "r_files/throughput.png", []string{"r_files"}, "-o", fileKinds, ""},
		{"report --format markdown, its figures directory", func(d string) []string {
			return []string{"report", pairFixture, "--format", "markdown", "-o", filepath.Join(d, "r.md")}
		}, "r_files", nil, "-o", ownDirKinds, ""},
		{"merge -o", func(d string) []string { return []string{"merge", agentFixture, "-o", filepath.Join(d, "m.jsonl")} }, "m.jsonl", nil, "--out", ownDirKinds, ""}, // a directory there takes results.jsonl
		{"merge -o DIR", func(d string) []string { return []string{"merge", agentFixture, "-o", filepath.Join(d, "m")} }, "m/results.jsonl", []string{"m"}, "--out", fileKinds, ""},
		{"merge -o DIR/", func(d string) []string { return []string{"merge", agentFixture, "-o", filepath.Join(d, "m") + "/"} }, "m", nil, "--out", dirKinds, ""},
		{"plot -o DIR, the directory", func(d string) []string {
			return []string{"plot", pairFixture, "-o", filepath.Join(d, "figs"), "--figure", "throughput"}
		}, "figs", nil, "-o", dirKinds, ""},
		{"compare --plot DIR, the directory", func(d string) []string {
			return []string{"compare", abBaseInput, abCandInput, "--plot", filepath.Join(d, "ab")}
		}, "ab", nil, "--plot", dirKinds, ""},
		{"sweep --out DIR, the directory", sweep(), "out", nil, "--out", dirKinds, ""},
		{"sweep --spawn --out DIR, the directory", sweep("--spawn", "2"), "out", nil, "--out", dirKinds, ""},
		{"serve --data DIR", func(d string) []string { return []string{"serve", "--data", filepath.Join(d, "data")} }, "data", nil, "--data", dirKinds, ""},
		{"plot -o DIR", func(d string) []string {
			return []string{"plot", pairFixture, "-o", filepath.Join(d, "figs"), "--figure", "throughput"}
		}, "figs/throughput.svg", []string{"figs"}, "-o", fileKinds, ""},
		{"compare --plot DIR", func(d string) []string {
			return []string{"compare", abBaseInput, abCandInput, "--plot", filepath.Join(d, "ab")}
		}, "ab/ab-throughput.svg", []string{"ab"}, "--plot", fileKinds, ""},
		{"sweep --out, results.jsonl", sweep(), "out/results.jsonl", []string{"out"}, "--out", fileKinds, ""},
		{"sweep --out, report.html", sweep(), "out/report.html", []string{"out"}, "--out", fileKinds, ""},
		{"sweep --out, a figure", sweep(), "out/throughput.png", []string{"out"}, "--out", fileKinds, ""},
		{"sweep --spawn, an agent's log", sweep("--spawn", "2"), "out/agent-1.log", []string{"out"}, "--out", fileKinds, "already holds agent-1.log"},
		{"sweep --spawn, an agent's directory", sweep("--spawn", "2"), "out/agent-0", []string{"out"}, "--out", fileKinds, "already holds agent-0"},
		{"sweep --resume DIR, the directory", func(d string) []string { return []string{"sweep", "--resume", filepath.Join(d, "run")} }, "run", nil, "--resume", dirKinds, ""},
		{"sweep --resume DIR, report.html", func(d string) []string { return []string{"sweep", "--resume", filepath.Join(d, "run")} }, "run/report.html", []string{"run"}, "--resume", fileKinds, ""},
		{"serve --log", func(d string) []string {
			return []string{"serve", "--sim", "slots=1", "--log", filepath.Join(d, "server.log")}
		}, "server.log", nil, "--log", fileKinds, ""},
	}
}

// TestOutputPathsHostile puts each hostile kind of thing where each
// command writes: every one is refused before any work, with exit 2 and
// one line naming the flag; nothing in the output directory changes,
// nothing outside is touched, and nothing hangs.
func TestOutputPathsHostile(t *testing.T) {
	t.Parallel()
	for _, w := range writers() {
		for _, k := range w.kinds {
			label := w.name + ", " + w.at + " is " + k.name
			d, o := t.TempDir(), newOutside(t)
			for _, p := range w.prep {
				if err := os.Mkdir(filepath.Join(d, p), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if w.flag == "--resume" && len(w.prep) > 0 { // a run to resume
				b, err := os.ReadFile(agentFixture)
				if err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(d, w.prep[0]), "results.jsonl", string(b))
			}
			k.put(t, filepath.Join(d, w.at), o)
			before := listTree(t, d)
			code, stdout, stderr := runWithin(t, time.Minute, w.args(d)...)
			want := k.want
			if w.want != "" {
				want = w.want
			}
			wantRefused(t, label, code, stdout, stderr, w.flag, want)
			if after := listTree(t, d); after != before {
				t.Errorf("%s: the output directory changed:\nbefore:\n%s\nafter:\n%s", label, before, after)
			}
			o.check(t, label)
		}
	}
}

// TestOutputPathsDevicesAndMissingParents: a device as the output (file
// or directory) and a path whose parent does not exist are refused for
// every command; the device stays a device and no directory is made.
func TestOutputPathsDevicesAndMissingParents(t *testing.T) {
	t.Parallel()
	sim := []string{"--target", "a=sim:slots=1,service=1ms", "--concurrency", "1"}
	for _, tc := range []struct {
		args func(p string) []string // the command with p as its output
		flag string
	}{
		{func(p string) []string { return []string{"report", pairFixture, "-o", p} }, "-o"},
		{func(p string) []string { return []string{"report", pairFixture, "--format", "markdown", "-o", p} }, "-o"},
		{func(p string) []string { return []string{"merge", agentFixture, "-o", p} }, "--out"},
		{func(p string) []string { return []string{"plot", pairFixture, "-o", p} }, "-o"},
		{func(p string) []string { return []string{"compare", abBaseInput, abCandInput, "--plot", p} }, "--plot"},
		{func(p string) []string { return append([]string{"sweep", "--out", p}, sim...) }, "--out"},
		{func(p string) []string { return append([]string{"sweep", "--spawn", "2", "--out", p}, sim...) }, "--out"},
		{func(p string) []string { return []string{"serve", "--sim", "slots=1", "--log", p} }, "--log"},
		{func(p string) []string { return []string{"serve", "--sim", "slots=1", "--data", p} }, "--sim"}, // --data does not apply to --sim
		{func(p string) []string { return []string{"serve", "--data", p} }, "--data"},
	} {
		for _, dev := range []string{"/dev/null", "/dev/full"} {
			args := tc.args(dev)
			code, stdout, stderr := runWithin(t, time.Minute, args...)
			want := dev + " is a character device"
			if tc.flag == "--sim" {
				want = "--data and --postgresql-url do not apply"
			}
			wantRefused(t, strings.Join(args, " "), code, stdout, stderr, tc.flag, want)
		}
		d := t.TempDir()
		args := tc.args(filepath.Join(d, "missing", "out"))
		code, stdout, stderr := runWithin(t, time.Minute, args...)
		want := "no such directory: " + filepath.Join(d, "missing")
		if tc.flag == "--sim" {
			want = "--data and --postgresql-url do not apply"
		}
		wantRefused(t, strings.Join(args, " "), code, stdout, stderr, tc.flag, want)
		if es, _ := os.ReadDir(d); len(es) != 0 {
			t.Errorf("%q made %s", args, es[0].Name())
		}
	}
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		if fi, err := os.Lstat(dev); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Errorf("%s is no longer a character device", dev)
		}
	}
}

// TestOutputNeighboursKept: files beside an output that the user did not
// name are never replaced: a Markdown report's figures go into r_files/,
// not over the throughput.png and latency.svg already beside r.md; plot
// and compare --plot leave other files in their directory alone; serve
// --log appends. A directory on the way to the output may be reached
// through a symlink.
func TestOutputNeighboursKept(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	mine := func(p string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("mine: "+p), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	kept := []string{
		mine(filepath.Join(d, "throughput.png")), mine(filepath.Join(d, "latency.svg")), mine(filepath.Join(d, "results.jsonl")),
		mine(filepath.Join(d, "figs", "notes.txt")), mine(filepath.Join(d, "ab", "notes.txt")),
	}
	linked := t.TempDir()
	if err := os.Symlink(linked, filepath.Join(d, "link")); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(d, "server.log")
	if err := os.WriteFile(log, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"report", pairFixture, "--format", "markdown", "-o", filepath.Join(d, "r.md")},
		{"report", pairFixture, "--format", "markdown", "-o", filepath.Join(d, "r.md")}, // again: its own figures are replaced
		{"merge", agentFixture, "-o", filepath.Join(d, "m.jsonl")},
		{"merge", agentFixture, "-o", filepath.Join(d, "new") + "/"}, // a new directory, one level
		{"plot", pairFixture, "-o", filepath.Join(d, "figs"), "--figure", "throughput"},
		{"plot", pairFixture, "-o", filepath.Join(d, "link", "figs"), "--figure", "throughput"}, // a new directory in one reached through a symlink
		{"compare", abBaseInput, abCandInput, "--plot", filepath.Join(d, "ab")},
	} {
		if code, _, stderr := runWithin(t, 2*time.Minute, args...); code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, stderr)
		}
	}
	// serve runs until its stdin closes: as a process.
	if _, stop := startServe(t, "--sim", "slots=1", "--log", log); stop() != nil {
		t.Errorf("serve --log %s: %v", log, stop())
	}
	for _, p := range kept {
		fi, err := os.Stat(p)
		if b, _ := os.ReadFile(p); err != nil || string(b) != "mine: "+p || !fi.ModTime().Equal(mtime) {
			t.Errorf("%s was replaced or touched", p)
		}
	}
	for _, p := range []string{"r.md", "r_files/throughput.png", "r_files/latency.svg", "m.jsonl", "new/results.jsonl", "figs/throughput.svg", "ab/ab-throughput.svg"} {
		if _, err := os.Stat(filepath.Join(d, p)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(linked, "figs", "throughput.svg")); err != nil {
		t.Errorf("plot -o into a directory reached through a symlink: %v", err)
	}
	if md, _ := os.ReadFile(filepath.Join(d, "r.md")); !strings.Contains(string(md), "](r_files/throughput.png)") {
		t.Errorf("the Markdown report does not link its figures in r_files/:\n%.400s", md)
	}
	if b, _ := os.ReadFile(log); !strings.HasPrefix(string(b), "earlier\n") {
		t.Errorf("serve --log replaced the log: %q", b)
	}
	if m, _ := filepath.Glob(filepath.Join(d, "*", ".*.tmp-*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// TestSweepOutputKeepsNeighbours runs a short sweep into a directory that
// already holds a file of the user's: the sweep writes its results,
// figures and report beside it and leaves it alone.
func TestSweepOutputKeepsNeighbours(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	out := filepath.Join(d, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	notes := writeFile(t, out, "notes.txt", "mine")
	code, _, stderr := runBinary(t, d, 2*time.Minute, "sweep", "--out", out, "--target", "a=sim:slots=2,service=1ms",
		"--concurrency", "1,2", "--warmup", "100ms", "--duration", "200ms", "--records", "50")
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(notes); string(b) != "mine" {
		t.Errorf("notes.txt holds %q", b)
	}
	for _, p := range []string{"results.jsonl", "report.html", "throughput.png", "throughput.svg"} {
		if fi, err := os.Lstat(filepath.Join(out, p)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %v", p, err)
		}
	}
	// The default directory is made under ./poolsweep-out; a symlink there
	// is refused: poolsweep names that directory itself.
	if err := os.Symlink(t.TempDir(), filepath.Join(d, "poolsweep-out")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runBinary(t, d, time.Minute, "sweep", "--target", "a=sim:slots=2,service=1ms", "--concurrency", "1")
	wantRefused(t, "sweep into a symlinked ./poolsweep-out", code, stdout, stderr, "--out", "poolsweep-out is a symlink")
}

// TestInputsBounded gives every command that reads files a FIFO, a
// device that never ends, a directory and a file over its limit: each is
// refused at once, with exit 2 and one line naming the file, and nothing
// is written.
func TestInputsBounded(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	fifoPath := filepath.Join(d, "fifo")
	if err := syscall.Mkfifo(fifoPath, 0o644); err != nil {
		t.Fatal(err)
	}
	linkToFifo := filepath.Join(d, "to-fifo")
	if err := os.Symlink(fifoPath, linkToFifo); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(d, "dir")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Files over each cap, sparse: made at once, refused before a byte is read.
	sparse := func(name string, size int64) string {
		p := filepath.Join(d, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, size); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bigResults := sparse("big.jsonl", results.MaxFileBytes+1)
	bigCSV := sparse("big.csv", cmdutil.MaxCSVBytes+1)
	bigWorkload := sparse("big.properties", shapes.MaxFileBytes+1)
	// Runs to resume whose results.jsonl is each of these.
	resume := func(name string, put func(p string)) string {
		r := filepath.Join(d, "resume-"+name)
		if err := os.Mkdir(r, 0o755); err != nil {
			t.Fatal(err)
		}
		put(filepath.Join(r, "results.jsonl"))
		return r
	}
	resumeFifo := resume("fifo", func(p string) { syscall.Mkfifo(p, 0o644) })
	resumeDir := resume("dir", func(p string) { os.Mkdir(p, 0o755) })
	resumeDev := resume("dev", func(p string) { os.Symlink("/dev/zero", p) })
	resumeBig := resume("big", func(p string) { os.WriteFile(p, nil, 0o644); os.Truncate(p, results.MaxFileBytes+1) })

	out := t.TempDir()
	type reader struct {
		name string
		args func(in string) []string
		big  string // a file over this input's limit
	}
	readers := []reader{
		{"analyze", func(in string) []string { return []string{"analyze", in} }, bigResults},
		{"analyze --csv", func(in string) []string { return []string{"analyze", "--csv", in} }, bigCSV},
		{"plot", func(in string) []string { return []string{"plot", in, "-o", filepath.Join(out, "figs")} }, bigResults},
		{"report", func(in string) []string { return []string{"report", in, "-o", filepath.Join(out, "r.html")} }, bigResults},
		{"compare, baseline", func(in string) []string { return []string{"compare", in, pairFixture} }, bigResults},
		{"compare, candidate", func(in string) []string { return []string{"compare", pairFixture, in} }, bigResults},
		{"merge", func(in string) []string {
			return []string{"merge", agentFixture, in, "-o", filepath.Join(out, "m.jsonl")}
		}, bigResults},
		{"sweep --workload-file", func(in string) []string { return []string{"sweep", "--workload-file", in} }, bigWorkload},
	}
	for _, r := range readers {
		for _, in := range []struct {
			path, want string
		}{
			{fifoPath, fifoPath + " is a FIFO; poolsweep reads only regular files"},
			{linkToFifo, linkToFifo + " is a FIFO"},
			{"/dev/zero", "/dev/zero is a character device"},
			{"/dev/null", "/dev/null is a character device"},
			{dir, dir + " is a directory"},
			{r.big, r.big + " is larger than"},
		} {
			args := r.args(in.path)
			code, stdout, stderr := runWithin(t, 30*time.Second, args...)
			line := strings.TrimSpace(stderr)
			if r.name == "merge" && in.path == dir {
				in.want = filepath.Join(dir, "results.jsonl") + ": no such file" // a directory holding one
			}
			if code != errext.ExitUsage || strings.Contains(line, "\n") || !strings.Contains(line, in.want) || stdout != "" {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", r.name, in.path, code, stdout, stderr, in.want)
			}
		}
	}
	for _, tc := range []struct{ dir, want string }{
		{resumeFifo, "results.jsonl is a FIFO"},
		{resumeDir, "results.jsonl is a directory"},
		{resumeDev, "results.jsonl is a symlink to /dev/zero"},
		{resumeBig, "results.jsonl is larger than 1024 MiB"},
	} {
		code, stdout, stderr := runWithin(t, 30*time.Second, "sweep", "--resume", tc.dir)
		wantRefused(t, "sweep --resume "+tc.dir, code, stdout, stderr, "--resume", tc.want)
	}
	if es, _ := os.ReadDir(out); len(es) != 0 {
		t.Errorf("bad inputs wrote %s", es[0].Name())
	}
}

// TestReadingStopsOnSignal: a signal that comes while a command reads its
// inputs ends it as an interruption (128 + the signal), not after the read.
func TestReadingStopsOnSignal(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(sweep.Interrupt{Signal: "SIGTERM"})
	for _, args := range [][]string{
		{"analyze", pairFixture},
		{"analyze", "--csv", filepath.Join("..", "..", "testdata", "seeds-003.csv")},
		{"merge", agentFixture, "-o", filepath.Join(t.TempDir(), "m.jsonl")},
	} {
		var stdout, stderr strings.Builder
		code := run(ctx, args, strings.NewReader(""), &stdout, &stderr)
		if code != 143 || !strings.Contains(stderr.String(), "interrupted by SIGTERM") {
			t.Errorf("%q after SIGTERM: exit %d, stderr %q; want 143", args, code, stderr.String())
		}
	}
}

// TestClosedStdout: analyze … | head -1 ends quietly with 141, as a tool
// that SIGPIPE ended does, not with "write /dev/stdout: broken pipe".
func TestClosedStdout(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader has left before poolsweep writes
	for _, args := range [][]string{
		{"analyze", pairFixture},
		{"analyze", pairFixture, "--format", "json"},
		{"compare", abBaseInput, abCandInput},
	} {
		cmd := exec.Command(binary, args...)
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = w, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != errext.ExitClosedStdout || stderr.String() != "" {
			t.Errorf("%q with stdout closed: %v, stderr %q; want exit 141 and nothing said", args, err, stderr.String())
		}
	}
	w.Close()
}

// TestFileSizeLimitInWords: a write stopped by ulimit -f says so once,
// naming the file the user gave (it was "write X: write X: file too
// large"), and leaves nothing behind.
func TestFileSizeLimitInWords(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	for _, tc := range []struct {
		args []string
		path string
	}{
		{[]string{"report", pairFixture, "-o", filepath.Join(d, "r.html")}, filepath.Join(d, "r.html")},
		{[]string{"merge", agentFixture, "-o", filepath.Join(d, "m.jsonl")}, filepath.Join(d, "m.jsonl")},
	} {
		cmd := exec.Command("sh", append([]string{"-c", `ulimit -f 4 && exec "$0" "$@"`, binary}, tc.args...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		line := lines[len(lines)-1] // after report's notes on figures it skipped
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != errext.ExitFailed || !strings.HasPrefix(line, "poolsweep: ") ||
			!strings.Contains(line, tc.path+": the file size limit is reached (ulimit -f)") || strings.Count(line, tc.path) != 1 {
			t.Errorf("%q under ulimit -f: %v, stderr %q; want exit 1 and one line naming the file once", tc.args, err, line)
		}
		if es, _ := os.ReadDir(d); len(es) != 0 {
			t.Errorf("%q left %s", tc.args, es[0].Name())
		}
	}
}
