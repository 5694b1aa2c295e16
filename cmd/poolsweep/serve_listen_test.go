package main

import (
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/testkit/loopback"
)

// listenKind is one simulator shape and how many ports it listens on.
type listenKind struct {
	name   string
	spec   string
	fronts int // the servers its URI lists
	ports  int // fronts and shards
}

var listenKinds = []listenKind{
	{"standalone", "slots=2,service=0s", 1, 1},
	{"rs", "rs=3,slots=2,service=0s", 3, 3},
	{"routers", "shards=2,slots=2,service=0s,routers=2", 2, 4},
}

// listenURIHosts are the hosts a mongodb:// URI lists.
func listenURIHosts(uri string) []string {
	rest := strings.TrimPrefix(uri, "mongodb://")
	rest, _, _ = strings.Cut(rest, "/")
	return strings.Split(rest, ",")
}

// listenBlock is the n addresses from base on 127.0.0.1.
func listenBlock(base, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("127.0.0.1:%d", base+i)
	}
	return out
}

// listenAccepts reports whether something accepts connections at addr.
func listenAccepts(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// TestServeListenForms is serve --sim --listen's rule for each shape of
// simulator: HOST:0 gives every server a port of its own, HOST:PORT a
// block from PORT (the routers', then the shards'), a block past 65535 or
// with a port taken is bad input naming --listen (exit 2, one line) and
// leaves nothing listening. rs=3 with the documented
// default failed without naming the flag, routers=2 refused :0.
func TestServeListenForms(t *testing.T) {
	t.Parallel()
	for _, k := range listenKinds {
		// Port 0: a free port for each server, all different.
		cmd, uri := startServeCmd(t, "--sim", k.spec, "--listen", "127.0.0.1:0")
		hosts := listenURIHosts(uri)
		ports := map[string]bool{}
		for _, h := range hosts {
			_, p, err := net.SplitHostPort(h)
			if err != nil || p == "0" || !strings.HasPrefix(h, "127.0.0.1:") {
				t.Errorf("%s on :0: host %q in %s", k.name, h, uri)
			}
			ports[p] = true
		}
		if len(hosts) != k.fronts || len(ports) != k.fronts {
			t.Errorf("%s on :0: URI %s, want %d servers on ports of their own", k.name, uri, k.fronts)
		}
		if code, _, errOut := runCLI(t, "inspect", "--uri", uri); code != 0 {
			t.Errorf("%s on :0: inspect: exit %d, %s", k.name, code, errOut)
		}
		cmd.Process.Kill()
		cmd.Wait()

		// A fixed base: the URI's servers on PORT…, the shards after them.
		base := loopback.FreeBlock(t, k.ports)
		block := listenBlock(base, k.ports)
		cmd, uri = startServeCmd(t, "--sim", k.spec, "--listen", block[0])
		if got := listenURIHosts(uri); !slices.Equal(got, block[:k.fronts]) {
			t.Errorf("%s on %s: URI %s, want the hosts %v", k.name, block[0], uri, block[:k.fronts])
		}
		for _, a := range block[k.fronts:] {
			if !listenAccepts(a) {
				t.Errorf("%s on %s: no shard listens on %s", k.name, block[0], a)
			}
		}
		if code, _, errOut := runCLI(t, "inspect", "--uri", uri); code != 0 {
			t.Errorf("%s on %s: inspect: exit %d, %s", k.name, block[0], code, errOut)
		}
		cmd.Process.Kill()
		cmd.Wait()

		// Past 65535: the last port would be 65536 (a standalone's one port
		// is the flag's own range).
		over := fmt.Sprintf("127.0.0.1:%d", 65535-k.ports+2)
		code, stdout, stderr := runCLI(t, "serve", "--sim", k.spec, "--listen", over)
		if code != errext.ExitUsage || stdout != "" || !listenOneLine(stderr) || !strings.Contains(stderr, "--listen") || !strings.Contains(stderr, "65535") {
			t.Errorf("%s on %s: exit %d, stdout %q, stderr %q; want exit 2, one line naming --listen and 65535", k.name, over, code, stdout, stderr)
		}

		// A port of the block taken: the last one, so that the others
		// would have been opened first.
		base = loopback.FreeBlock(t, k.ports)
		block = listenBlock(base, k.ports)
		ln, err := net.Listen("tcp", block[k.ports-1])
		if err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr = runCLI(t, "serve", "--sim", k.spec, "--listen", block[0])
		ln.Close()
		if code != errext.ExitUsage || stdout != "" || !listenOneLine(stderr) || !strings.Contains(stderr, "--listen") || !strings.Contains(stderr, block[k.ports-1]) {
			t.Errorf("%s on %s with %s taken: exit %d, stdout %q, stderr %q; want exit 2, one line naming --listen and the port",
				k.name, block[0], block[k.ports-1], code, stdout, stderr)
		}
		for _, a := range block[:k.ports-1] {
			if listenAccepts(a) {
				t.Errorf("%s with a port taken: %s still listens", k.name, a)
			}
		}
	}

	// Embedded FerretDB on a taken port: refused before FerretDB starts.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dir := t.TempDir()
	logFile := dir + "/serve.log"
	code, stdout, stderr := runCLI(t, "serve", "--listen", taken.Addr().String(), "--log", logFile)
	if code != errext.ExitUsage || stdout != "" || !listenOneLine(stderr) || !strings.Contains(stderr, "--listen") {
		t.Errorf("FerretDB on a taken port: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(logFile); err == nil {
		t.Errorf("FerretDB on a taken port: %s was made", logFile)
	}
}

// listenOneLine reports whether s is one non-empty line.
func listenOneLine(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && !strings.Contains(s, "\n")
}
