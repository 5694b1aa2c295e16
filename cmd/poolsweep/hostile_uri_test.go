package main

import (
	"encoding/json"
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	runlib "github.com/poolsweep/poolsweep/runner"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// badURIs are connection strings the driver refuses only once a run has
// started (class 6: they exited 1), and neighbours, each with
// what the refusal must name. Their hosts are loopback ports nothing
// listens on, so that a URI let through fails at connecting instead of
// reaching the network; the password is one no output may show.
var badURIs = []struct{ uri, want string }{
	{"mongodb://alice:pAsSwOrD9@127.0.0.1:1/?readPreference=bogus", "readPreference"},
	{"mongodb://127.0.0.1:1/?authMechanism=PLAIN", "username required"},
	{"mongodb://alice:pAsSwOrD9@127.0.0.1:1/?authMechanism=PLAIN&authMechanismProperties=A:B", "mechanism properties"},
	{"mongodb://alice:pAsSwOrD9@127.0.0.1:1/?tlsCAFile=/nonexistent", "tlsCAFile"},
	{"mongodb://:pw@127.0.0.1:1", "username required"},
	{"mongodb://alice:pAsSwOrD9@127.0.0.1:1/?tlsCAFile=/dev/zero", "tlsCAFile"},
	{"mongodb://alice:pAsSwOrD9@127.0.0.1:1/?readConcernLevel=bogus", "readConcernLevel"},
	{"mongodb://alice:pAsSwOrD9@127.0.0.1:1/?compressors=bogus", "compressors"},
	{"mongodb://127.0.0.1:1/?authSource=admin", "authSource"},
	{"mongodb://alice:pAsSwOrD9@127.0.0.1:1,127.0.0.1:2/?directConnection=true", "direct connection"},
	{"mongodb://alice:pAsSwOrD9@127.0.0.1:1/?loadBalanced=true&replicaSet=rs", "loadBalanced"},
	{"mongodb://alice:pAsSwOrD9@127.0.0.1:1/?tlsAllowInvalidCertificates=true", "tlsallowinvalidcertificates"},
	{"mongodb://alice:pAsSwOrD9%zz@127.0.0.1:1/", "password"},
	{"mongodb://alice:pAsSwOrD9@127.0.0.1:1/?authMechanism=plain", "authMechanism"},
	{"mongodb://alice@127.0.0.1:1/?authMechanism=GSSAPI", "authMechanism"},
}

// uriEntries are every way a connection string enters a command, each
// as the arguments around it (%s is the URI).
var uriEntries = []struct {
	name, flag string
	args       []string
}{
	{"sweep --uri", "--uri", []string{"sweep", "--uri", "%s", "--concurrency", "1", "--duration", "100ms", "--warmup", "0s"}},
	{"sweep --target", "--target", []string{"sweep", "--target", "a=%s", "--concurrency", "1", "--duration", "100ms", "--warmup", "0s"}},
	{"sweep --target, second", "--target", []string{"sweep", "--target", "a=sim:slots=4", "--target", "b=%s", "--concurrency", "1"}},
	{"sweep agent", "--uri", []string{"sweep", "--uri", "%s", "--agents", "2", "--agent-index", "0", "--run-id", "r", "--concurrency", "1"}},
	{"inspect --uri", "--uri", []string{"inspect", "--uri", "%s"}},
	{"inspect --format json", "--uri", []string{"inspect", "--uri", "%s", "--format", "json"}},
	{"storm --uri", "--uri", []string{"storm", "--uri", "%s", "-o", "storm.jsonl"}},
	{"storm --target", "--target", []string{"storm", "--target", "a=%s", "-o", "storm.jsonl"}},
}

// TestHostileURIs: every bad URI, wherever it enters (--uri, --target,
// an agent's, an agent's handed-over targets), is refused before
// anything starts (the real commands run: a URI let through would try
// to connect and fail with exit 1), with exit 2 and one line naming the
// flag and the URI option, no part of the password, nothing on stdout
// and nothing written.
func TestHostileURIs(t *testing.T) {
	if !inOwnProcess(t) { // it changes directory
		return
	}
	dir := t.TempDir()
	t.Chdir(dir)
	for _, e := range uriEntries {
		for _, b := range badURIs {
			args := make([]string, len(e.args))
			for i, a := range e.args {
				args[i] = strings.ReplaceAll(a, "%s", b.uri)
			}
			label := fmt.Sprintf("%s %s", e.name, b.uri)
			code, stdout, stderr := runWithinUsing(t, 30*time.Second, runners{}, args...)
			checkURIRefusal(t, label, code, stdout, stderr, e.flag, b.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad URIs wrote %s", entries[0].Name())
	}
}

// TestHostileHandedTargets: the targets an agent reads from --targets-fd
// are checked as --uri and --target are, naming --targets-fd.
func TestHostileHandedTargets(t *testing.T) {
	t.Parallel()
	for _, b := range badURIs {
		for _, h := range []runlib.HandedTargets{{URI: b.uri}, {Targets: []string{"a=" + b.uri}}} {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			body, _ := json.Marshal(h)
			w.Write(body)
			w.Close()
			// The agent reads and closes the descriptor it is given: a
			// copy, so that r stays this test's to close.
			fd, err := syscall.Dup(int(r.Fd()))
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runWithinUsing(t, 30*time.Second, runners{}, "sweep", "--agents", "2", "--agent-index", "0",
				"--run-id", "r", "--targets-fd", fmt.Sprint(fd), "--concurrency", "1", "--out", t.TempDir())
			checkURIRefusal(t, fmt.Sprintf("handed %+v", h), code, stdout, stderr, "--targets-fd", b.want)
		}
	}
}

// checkURIRefusal checks one refused URI.
func checkURIRefusal(t *testing.T, label string, code int, stdout, stderr, flag, want string) {
	t.Helper()
	line := strings.TrimSpace(stderr)
	if code != errext.ExitUsage || strings.Contains(line, "\n") || !strings.Contains(line, flag+": ") || !strings.Contains(line, want) {
		t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line naming %s and %q", label, code, stderr, flag, want)
	}
	for n := 3; n <= len("pAsSwOrD9"); n++ {
		for i := 0; i+n <= len("pAsSwOrD9"); i++ {
			if piece := "pAsSwOrD9"[i : i+n]; strings.Contains(stdout+stderr, piece) {
				t.Errorf("%s: shows %q, a piece of the password: %q", label, piece, stderr)
			}
		}
	}
	if strings.Contains(line, "pw@") || strings.Contains(line, ":pw") {
		t.Errorf("%s: shows the password: %q", label, line)
	}
	if stdout != "" {
		t.Errorf("%s: stdout %q", label, stdout)
	}
}
