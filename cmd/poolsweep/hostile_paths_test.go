package main

import (
	"bytes"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/internal/errext"
)

// outputFlags lists every flag of every command that names a path
// poolsweep writes, "command --flag", from the flags' own declarations
// (cli/cmdutil: what a flag takes says "outfile"), so that a new output
// flag cannot escape TestHostileOutputPaths.
func outputFlags() []string {
	root := newRootCmd(&env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, dryRunners)
	var out []string
	for _, cmd := range root.Commands() {
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if d, ok := asDeclared(f.Value); ok && strings.Contains(d.Accepts(), "outfile") {
				out = append(out, cmd.Name()+" --"+f.Name)
			}
		})
	}
	slices.Sort(out)
	return out
}

// counter is a loopback listener that counts the connections made to it:
// the URI of the commands that connect, which a command refused for its
// paths must never reach. A command whose check came after its connect
// would connect, be closed on, and fail with exit 1.
type counter struct {
	ln net.Listener
	n  atomic.Int64
}

func newCounter(t *testing.T) *counter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &counter{ln: ln}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.n.Add(1)
			conn.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return c
}

func (c *counter) uri() string {
	return "mongodb://" + c.ln.Addr().String() + "/?serverSelectionTimeoutMS=500&connectTimeoutMS=500"
}

// outputCase is one use of an output flag: the command with path p as
// its value, the name under the test's directory that the good value
// would be (at), and the files poolsweep writes inside it (or beside it),
// some known by name only once the command has worked (a server's
// version, a series' name): a hostile thing planted at any of them is
// refused before any work too.
type outputCase struct {
	flag   string // "command --flag", as outputFlags names it
	label  string
	args   func(p, uri string) []string
	at     string
	inside []string // relative to the test's directory
	prep   func(t *testing.T, d string)
}

func outputCases() []outputCase {
	sweep := func(extra ...string) func(p, uri string) []string {
		return func(p, uri string) []string {
			return append([]string{"sweep", "--uri", uri, "--concurrency", "1", "--warmup", "100ms", "--duration", "200ms", "--out", p}, extra...)
		}
	}
	return []outputCase{
		{flag: "report --out", label: "report -o", args: func(p, _ string) []string { return []string{"report", pairFixture, "-o", p} }, at: "r.html"},
		{flag: "report --out", label: "report --format markdown -o", args: func(p, _ string) []string {
			return []string{"report", pairFixture, "--format", "markdown", "-o", p}
		}, at: "r.md", inside: []string{"r_files/throughput.png", "r_files/pool-grid-a-read.svg"}},
		{flag: "plot --out", label: "plot -o", args: func(p, _ string) []string {
			return []string{"plot", pairFixture, "--figure", "throughput", "-o", p}
		}, at: "figs", inside: []string{"figs/throughput.svg", "figs/latency.png", "figs/pool-grid-a-read.png", "figs/steady.svg"}},
		{flag: "compare --plot", label: "compare --plot", args: func(p, _ string) []string {
			return []string{"compare", abBaseInput, abCandInput, "--plot", p}
		}, at: "ab", inside: []string{"ab/ab-throughput.png", "ab/ab-deltas.svg"}},
		{flag: "merge --out", label: "merge -o FILE", args: func(p, _ string) []string { return []string{"merge", agentFixture, "-o", p} }, at: "m.jsonl"},
		{flag: "merge --out", label: "merge -o DIR", args: func(p, _ string) []string { return []string{"merge", agentFixture, "-o", p} }, at: "m", inside: []string{"m/results.jsonl"}},
		{flag: "fleet --out", label: "fleet -o", args: func(p, _ string) []string { return []string{"fleet", pairFixture, "--instances", "3", "-o", p} }, at: "plan.txt"},
		{flag: "storm --out", label: "storm -o", args: func(p, uri string) []string { return []string{"storm", "--uri", uri, "--clients", "2", "-o", p} }, at: "storm.jsonl"},
		{flag: "workload --out", label: "workload from-log -o", args: func(p, _ string) []string {
			return []string{"workload", "from-log", realLog, "-o", p}
		}, at: "w.yaml"},
		{flag: "workload --rate-trace", label: "workload from-log --rate-trace", args: func(p, _ string) []string {
			return []string{"workload", "from-log", realLog, "--rate-trace", p}
		}, at: "rate.csv"},
		{flag: "inspect --save-replies", label: "inspect --save-replies", args: func(p, uri string) []string {
			return []string{"inspect", "--uri", uri, "--save-replies", p}
		}, at: "rep", inside: []string{"rep/serverStatus.mongod-replset-primary-7.0.14.json", "rep/hello.mongos-8.0.0-poolsweep-sim.json", "rep/buildInfo.mongod-standalone-unknown.json"}},
		{flag: "serve --log", label: "serve --log", args: func(p, _ string) []string { return []string{"serve", "--sim", "slots=1", "--log", p} }, at: "server.log"},
		{flag: "serve --data", label: "serve --data", args: func(p, _ string) []string { return []string{"serve", "--data", p} }, at: "data"},
		{flag: "sweep --out", label: "sweep --out", args: sweep(), at: "out", inside: []string{"out/results.jsonl", "out/report.html", "out/throughput.png", "out/pool-grid-a-read.svg"}},
		{flag: "sweep --out", label: "sweep --spawn --out", args: sweep("--spawn", "2"), at: "out", inside: []string{"out/agent-1.log", "out/report.html", "out/latency-throughput.svg"}},
		{flag: "sweep --resume", label: "sweep --resume", args: func(p, uri string) []string { return []string{"sweep", "--resume", p} }, at: "run",
			inside: []string{"run/report.html", "run/time-breakdown.png"}, prep: func(t *testing.T, d string) {
				b, err := os.ReadFile(agentFixture)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Join(d, "run"), 0o755); err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(d, "run"), "results.jsonl", string(b))
			}},
	}
}

// pathForm is a hostile way to write an output path: value gives the
// flag's value for the good name at (under d), after setting up what it
// needs; want is what the one line says.
type pathForm struct {
	name  string
	value func(t *testing.T, d, at string) string
	want  string
}

var pathForms = []pathForm{
	{"a missing directory, then ..", func(_ *testing.T, d, at string) string { return d + "/nodir/../" + at }, "no such directory: " + "%d/nodir"},
	{"a symlink elsewhere, then ..", func(_ *testing.T, d, at string) string { return d + "/lnk/../" + at }, "lnk is a symlink to"},
	{"a file, then ..", func(t *testing.T, d, at string) string {
		writeFile(t, d, "file", "mine")
		return d + "/file/../" + at
	}, "file is a regular file, not a directory"},
	{"a missing directory, then ., then ..", func(_ *testing.T, d, at string) string { return d + "/nodir/./sub/../../" + at }, "no such directory"},
	{"a FIFO", func(t *testing.T, d, at string) string {
		p := filepath.Join(d, at)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}, "is a FIFO"},
	{"a device", func(*testing.T, string, string) string { return "/dev/null" }, "/dev/null is a character device"},
}

// TestHostileOutputPaths gives every output flag of every command
// (outputFlags) every hostile path form, and plants a symlink and a FIFO
// at each name it writes inside or beside the path: each is refused
// before any work, with exit 2 and one line naming the flag, nothing is
// created in the test's directory or where the symlink points, nothing
// connects to the URI, and nothing hangs. ".." is followed as the system
// follows it: "nodir/../x" names nothing (nodir does not exist), and
// "lnk/../x" is x beside lnk's target, not beside lnk.
func TestHostileOutputPaths(t *testing.T) {
	t.Parallel()
	cases := outputCases()
	flags := outputFlags()
	for _, f := range flags {
		if !slices.ContainsFunc(cases, func(c outputCase) bool { return c.flag == f }) {
			t.Errorf("%s writes a path (it says outfile) but has no case here: add one", f)
		}
	}
	for _, c := range cases {
		if !slices.Contains(flags, c.flag) {
			t.Errorf("case %q: %s is not an output flag of the commands (%v)", c.label, c.flag, flags)
		}
	}
	if len(flags) < 10 {
		t.Fatalf("found only %v: the flags' declarations no longer say outfile", flags)
	}

	type run struct {
		label, value, want string
		c                  outputCase
		d, elsewhere       string
	}
	setup := func(t *testing.T, c outputCase) (d, elsewhere string) {
		d, elsewhere = t.TempDir(), t.TempDir()
		if err := os.Mkdir(filepath.Join(elsewhere, "T"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, elsewhere, "victim.txt", "precious\n")
		if err := os.Symlink(filepath.Join(elsewhere, "T"), filepath.Join(d, "lnk")); err != nil {
			t.Fatal(err)
		}
		if c.prep != nil {
			c.prep(t, d)
		}
		return d, elsewhere
	}
	var runs []run
	for _, c := range cases {
		for _, f := range pathForms {
			if f.name == "a FIFO" && c.prep != nil {
				continue // its directory is made by prep
			}
			d, e := setup(t, c)
			runs = append(runs, run{label: c.label + ", " + f.name, value: f.value(t, d, c.at), want: strings.ReplaceAll(f.want, "%d", d), c: c, d: d, elsewhere: e})
		}
		for _, in := range c.inside {
			for _, kind := range []string{"symlink", "FIFO"} {
				d, e := setup(t, c)
				p := filepath.Join(d, in)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				var err error
				if kind == "symlink" {
					err = os.Symlink(filepath.Join(e, "victim.txt"), p)
				} else {
					err = syscall.Mkfifo(p, 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
				runs = append(runs, run{label: c.label + ", a " + kind + " at " + in, value: filepath.Join(d, c.at), want: filepath.Base(in), c: c, d: d, elsewhere: e})
			}
		}
	}
	for _, r := range runs {
		t.Run(r.label, func(t *testing.T) {
			t.Parallel()
			srv := newCounter(t)
			before := listTree(t, r.d) + "\n" + listTree(t, r.elsewhere)
			args := r.c.args(r.value, srv.uri())
			code, stdout, stderr := runWithin(t, time.Minute, args...)
			line := strings.TrimSpace(stderr)
			name := strings.TrimPrefix(strings.Fields(r.c.flag)[1], "--")
			named := strings.Contains(line, "--"+name+": ")
			if f := newRootFlag(r.c.flag); f != nil && f.Shorthand != "" {
				named = named || strings.Contains(line, "-"+f.Shorthand+": ")
			}
			if code != errext.ExitUsage || strings.Contains(line, "\n") || !named || !strings.Contains(line, r.want) || stdout != "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and one line naming --%s with %q", args, code, stdout, stderr, name, r.want)
			}
			if n := srv.n.Load(); n != 0 {
				t.Errorf("%q connected %d time(s) before refusing its path", args, n)
			}
			if after := listTree(t, r.d) + "\n" + listTree(t, r.elsewhere); after != before {
				t.Errorf("%q changed the files:\nbefore:\n%s\nafter:\n%s", args, before, after)
			}
			if b, _ := os.ReadFile(filepath.Join(r.elsewhere, "victim.txt")); string(b) != "precious\n" {
				t.Errorf("%q wrote through the symlink: %q", args, b)
			}
			if fi, err := os.Lstat("/dev/null"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
				t.Errorf("%q: /dev/null is no longer a character device", args)
			}
		})
	}
}

// newRootFlag finds the flag "command --flag" in a fresh command tree.
func newRootFlag(cmdFlag string) *pflag.Flag {
	parts := strings.Fields(cmdFlag)
	root := newRootCmd(&env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, dryRunners)
	for _, c := range root.Commands() {
		if c.Name() == parts[0] {
			return c.Flags().Lookup(strings.TrimPrefix(parts[1], "--"))
		}
	}
	return nil
}

// TestOutputPathsAsResolved: a ".." that steps back out of a real
// directory is followed as the system follows it, to the place its text
// names; and the counter the refusals are held to sees a command that
// does connect (inspect with a good --save-replies: closed on, exit 1).
func TestOutputPathsAsResolved(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	if err := os.Mkdir(filepath.Join(d, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"report", pairFixture, "-o", d + "/sub/../r.html"},
		{"plot", pairFixture, "--figure", "throughput", "-o", d + "/sub/../figs"},
		{"merge", agentFixture, "-o", d + "/sub/./../m.jsonl"},
	} {
		if code, _, stderr := runWithin(t, time.Minute, args...); code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, stderr)
		}
	}
	for _, p := range []string{"r.html", "figs/throughput.svg", "m.jsonl"} {
		if fi, err := os.Lstat(filepath.Join(d, p)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %v", p, err)
		}
	}
	if es, _ := os.ReadDir(filepath.Join(d, "sub")); len(es) != 0 {
		t.Errorf("sub holds %s", es[0].Name())
	}

	// An input directory given with a ".." after a symlink: merge reads
	// the results.jsonl in the directory the system finds, as it listed.
	elsewhere := t.TempDir()
	if err := os.Mkdir(filepath.Join(elsewhere, "T"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(agentFixture)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, elsewhere, "results.jsonl", string(b))
	if err := os.Symlink(filepath.Join(elsewhere, "T"), filepath.Join(d, "lnk")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runWithin(t, time.Minute, "merge", d+"/lnk/..", "-o", filepath.Join(d, "m2.jsonl")); code != 0 {
		t.Errorf("merge lnk/..: exit %d: %s", code, stderr)
	}

	srv := newCounter(t)
	code, _, stderr := runWithin(t, time.Minute, "inspect", "--uri", srv.uri(), "--save-replies", filepath.Join(d, "rep"))
	if code != errext.ExitFailed || srv.n.Load() == 0 {
		t.Errorf("inspect against the counter: exit %d, %d connection(s), stderr %q; want exit 1 after connecting", code, srv.n.Load(), stderr)
	}
}
