// Package realclients runs, for tests, MongoDB clients that nobody here
// wrote against our servers: pymongo (Debian's python3-pymongo) and the
// MongoDB Java driver 3.6 (Debian's libmongodb-java, seed 003's client),
// each as a child process with a bound on its time. Their programs are
// probe.py and java/*.java, embedded here and written to a test's
// temporary directory. A test that needs them calls Need: in CI (CI=true)
// a missing client fails the test, since scripts/clients.sh installs them
// there; elsewhere it skips and says what to install.
package realclients

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/cpuwait"
	"github.com/poolsweep/poolsweep/internal/outfile"
)

//go:embed probe.py java/*.java
var programs embed.FS

// javaDriverJar is where Debian's libmongodb-java puts the driver (a
// link to mongo-java-driver-3.6.3.jar, the uber jar with bson and core).
const javaDriverJar = "/usr/share/java/mongo-java-driver.jar"

// Tools are the clients found on this machine.
type Tools struct {
	Python      string // an interpreter that imports pymongo
	Java, Javac string
	JavaJar     string // the driver jar, links resolved (its name says the version)
	dir         string // the programs, written out (and Java compiled) by Need
}

// Find looks for the clients and says which are missing, in the words of
// the Debian packages that provide them.
func Find() (Tools, []string) {
	var tl Tools
	var missing []string
	// Debian's python3-pymongo is for Debian's python3, which need not be
	// the first python3 on PATH (pyenv, a virtualenv).
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if p, err := exec.LookPath(py); err == nil && exec.Command(p, "-c", "import pymongo").Run() == nil {
			tl.Python = p
			break
		}
	}
	if tl.Python == "" {
		missing = append(missing, "python3-pymongo")
	}
	tl.Java, _ = exec.LookPath("java")
	tl.Javac, _ = exec.LookPath("javac")
	if tl.Java == "" || tl.Javac == "" {
		missing = append(missing, "default-jdk-headless")
	}
	if jar, err := filepath.EvalSymlinks(javaDriverJar); err == nil {
		tl.JavaJar = jar
	} else {
		missing = append(missing, "libmongodb-java")
	}
	return tl, missing
}

// Need returns the clients with their programs ready (Java compiled) in
// a temporary directory of t. Missing clients fail t in CI and skip it
// elsewhere.
func Need(t testing.TB) Tools {
	t.Helper()
	if testing.Short() {
		t.Skip("runs real clients against servers")
	}
	tl, missing := Find()
	if len(missing) > 0 {
		what := strings.Join(missing, " ")
		if os.Getenv("CI") == "true" {
			t.Fatalf("real clients missing in CI: %s (scripts/clients.sh installs them as root)", what)
		}
		t.Skipf("real clients missing: apt-get install %s (CI installs them and fails without them)", what)
	}
	tl.dir = t.TempDir()
	if err := tl.writePrograms(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srcs, _ := filepath.Glob(filepath.Join(tl.dir, "*.java"))
	args := append([]string{"-nowarn", "-d", tl.dir, "-cp", tl.JavaJar}, srcs...)
	if out, err := exec.CommandContext(ctx, tl.Javac, args...).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return tl
}

// writePrograms writes the embedded programs to the tools' directory.
func (tl Tools) writePrograms() error {
	entries := []string{"probe.py"}
	javas, _ := programs.ReadDir("java")
	for _, e := range javas {
		entries = append(entries, "java/"+e.Name())
	}
	for _, name := range entries {
		b, err := programs.ReadFile(name)
		if err != nil {
			return err
		}
		if err := outfile.Write(filepath.Join(tl.dir, filepath.Base(name)), func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}

// Output is what a client printed, and how it ended.
type Output struct {
	Stdout, Stderr string
	Err            error // nil for exit status 0; a timeout says so
}

// Pymongo runs probe.py (the only Python program) with args, killed after
// timeout.
func (tl Tools) Pymongo(timeout time.Duration, args ...string) Output {
	return run(timeout, tl.Python, append([]string{filepath.Join(tl.dir, "probe.py")}, args...)...)
}

// javaFlags keep the JVM's own CPU small on a busy 2-core machine: the
// quick compiler only (its code is ready within the warm-up; the optimizing
// one would still be compiling, on the cores the client needs) and the
// serial collector (no GC threads per core).
var javaFlags = []string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"}

// JavaMain runs the compiled Java class with args, killed after timeout.
func (tl Tools) JavaMain(timeout time.Duration, class string, args ...string) Output {
	argv := append(append(javaFlags, "-cp", tl.dir+string(os.PathListSeparator)+tl.JavaJar, class), args...)
	return run(timeout, tl.Java, argv...)
}

// Window is what a windowed Java client (one that prints "window-open"
// and "window-closed", then waits for a line on stdin) printed, and how its
// threads waited for a CPU between the two marks.
type Window struct {
	Output
	// RunQueuePct is the share of the time the client's threads were
	// runnable that they spent waiting for a CPU (cpuwait.RunQueue), over
	// its window; nil where /proc/<pid>/task cannot be read.
	RunQueuePct *float64
}

// JavaWindow runs a windowed Java class (Seed003) with args, killed after
// timeout, reading its threads' CPU waits at its window's two marks.
func (tl Tools) JavaWindow(timeout time.Duration, class string, args ...string) Window {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	argv := append(append(javaFlags, "-cp", tl.dir+string(os.PathListSeparator)+tl.JavaJar, class), args...)
	cmd := exec.CommandContext(ctx, tl.Java, argv...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return Window{Output: Output{Err: err}}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Window{Output: Output{Err: err}}
	}
	if err := cmd.Start(); err != nil {
		return Window{Output: Output{Err: err}}
	}
	var w Window
	var out strings.Builder
	var open cpuwait.Threads
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		switch line {
		case "window-open":
			open = cpuwait.ReadProcess("/proc", cmd.Process.Pid)
		case "window-closed":
			if share, _, ok := cpuwait.RunQueue(open, cpuwait.ReadProcess("/proc", cmd.Process.Pid)); ok && open != nil {
				w.RunQueuePct = &share
			}
			io.WriteString(stdin, "read\n")
		default:
			out.WriteString(line + "\n")
		}
	}
	stdin.Close()
	err = cmd.Wait()
	if ctx.Err() != nil {
		err = fmt.Errorf("java: killed after %v: %w", timeout, ctx.Err())
	}
	w.Output = Output{Stdout: out.String(), Stderr: errb.String(), Err: err}
	return w
}

func run(timeout time.Duration, name string, args ...string) Output {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// A client that leaves a child holding its pipes must not outlive
	// the bound either.
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s: killed after %v: %w", filepath.Base(name), timeout, ctx.Err())
	}
	return Output{Stdout: out.String(), Stderr: errb.String(), Err: err}
}

// Line is one "ok N key=value …" line of a probe.
type Line struct {
	Index  int
	OK     bool
	Fields map[string]string // for an ok line
	Reason string            // for a fail line
}

// ParseLines reads the probe's "ok N k=v …" and "fail N reason" lines;
// other lines (a driver's own logging) are left out.
func ParseLines(s string) ([]Line, error) {
	var out []Line
	for l := range strings.Lines(s) {
		f := strings.Fields(l)
		if len(f) < 2 || (f[0] != "ok" && f[0] != "fail") {
			continue
		}
		var n int
		if _, err := fmt.Sscanf(f[1], "%d", &n); err != nil {
			return nil, fmt.Errorf("probe line %q: no index", strings.TrimSpace(l))
		}
		line := Line{Index: n, OK: f[0] == "ok"}
		if line.OK {
			line.Fields = map[string]string{}
			for _, kv := range f[2:] {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return nil, errors.New("probe line: " + kv + " is not key=value")
				}
				line.Fields[k] = v
			}
		} else {
			line.Reason = strings.Join(f[2:], " ")
		}
		out = append(out, line)
	}
	return out, nil
}
