package main

import (
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/testkit/loopback"
)

// TestTopoServeBrokenBackend: serve --postgresql-url pointing at a closed
// port used to print a URI and look healthy. It must fail at start: exit 1,
// nothing on stdout, one line on stderr naming --postgresql-url and never
// the password.
func TestTopoServeBrokenBackend(t *testing.T) {
	t.Parallel()
	addr := loopback.ClosedAddr(t)
	for _, pg := range []string{
		"postgres://pguser:Pw-Secret-9@" + addr + "/ferretdb",
		"postgresql://pguser:Pw%20Secret%409@" + addr + "/ferretdb?sslmode=disable&password=Pw-Other-7",
	} {
		start := time.Now()
		code, stdout, stderr := runBinary(t, t.TempDir(), 2*time.Minute, "serve", "--postgresql-url", pg)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != errext.ExitFailed || stdout != "" || len(lines) != 1 || !strings.Contains(stderr, "--postgresql-url") {
			t.Errorf("serve with a dead backend: exit %d after %v\nstdout %q\nstderr %q", code, time.Since(start), stdout, stderr)
		}
		for _, secret := range []string{"Pw-Secret", "Pw%20Secret", "Pw Secret", "Secret@9", "Pw-Other"} {
			if strings.Contains(stdout+stderr, secret) {
				t.Errorf("output shows %q: %s", secret, stderr)
			}
		}
		if el := time.Since(start); el > 30*time.Second {
			t.Errorf("took %v to notice a closed port", el)
		}
	}
}

// TestTopoServeSimListen: serve --sim takes a fixed --listen address, so
// a fault-injection test can kill a simulator and start another on the
// same port (a cluster's shards on the ports after its routers'). The
// other forms, replica sets and refusals: TestServeListenForms.
func TestTopoServeSimListen(t *testing.T) {
	t.Parallel()
	base := loopback.FreeBlock(t, 3) // the router, then 2 shards
	addr := fmt.Sprintf("127.0.0.1:%d", base)
	for _, spec := range []string{"slots=2,service=0s", "shards=2,slots=2,service=0s,routers=1"} {
		cmd, uri := startServeCmd(t, "--sim", spec, "--listen", addr)
		if uri != "mongodb://"+addr+"/" {
			t.Errorf("%s: URI %s, want the fixed address %s", spec, uri, addr)
		}
		if code, _, errOut := runCLI(t, "inspect", "--uri", uri); code != 0 {
			t.Errorf("%s: inspect: exit %d, %s", spec, code, errOut)
		}
		// Killed, as a fault-injection test does; the next start takes the port.
		cmd.Process.Kill()
		cmd.Wait()
	}
}
