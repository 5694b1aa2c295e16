package main

import (
	"encoding/json"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/cli/inspect"
)

// TestTopoServeSimStops checks that serve --sim (whose deployment no longer
// ends with its start context) still stops when its stdin closes, and on
// SIGTERM, and answers in between.
func TestTopoServeSimStops(t *testing.T) {
	t.Parallel()
	uri, stop := startServe(t, "--sim", "slots=2,service=0s")
	code, out, errOut := runCLI(t, "inspect", "--uri", uri, "--format", "json")
	var rep inspect.Report
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Info.ServerKind != "simulator" {
		t.Errorf("inspect: exit %d, %s %s", code, out, errOut)
	}
	if err := stop(); err != nil {
		t.Errorf("serve --sim did not exit cleanly after stdin closed: %v", err)
	}

	cmd, uri := startServeCmd(t, "--sim", "slots=2,service=0s")
	if code, _, errOut := runCLI(t, "inspect", "--uri", uri); code != 0 {
		t.Errorf("inspect: exit %d, %s", code, errOut)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := waited(cmd)
	select {
	case <-done:
		// The exit status on a signal is root.go's business; what matters
		// here is that the server is gone.
		host := strings.TrimSuffix(strings.TrimPrefix(uri, "mongodb://"), "/")
		if c, err := net.DialTimeout("tcp", host, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections after serve exited", host)
		}
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Error("serve --sim did not exit within 15s of SIGTERM")
	}
}
