package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/internal/loopback"
	runlib "github.com/poolsweep/poolsweep/runner"
)

// TestPublicListenWarning: a listener on a loopback address is not
// warned about; every other form (every interface, a named address, a
// hostname) gets exactly one line saying who can reach which port, as
// plain text and, under --progress json, as one JSON object. Issue 36,
// class 12: --metrics-listen 0.0.0.0:9482 bound every interface without
// a word.
func TestPublicListenWarning(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		listen string
		addrs  []string // where it listens, port 0 resolved
		who    string   // "" for no warning, else whom the line says can reach it
	}{
		{"127.0.0.1:9482", []string{"127.0.0.1:9482"}, ""},
		{"127.3.2.1:0", []string{"127.3.2.1:41000"}, ""}, // all of 127/8 is loopback
		{"localhost:9482", []string{"127.0.0.1:9482"}, ""},
		{"[::1]:9482", []string{"[::1]:9482"}, ""},
		{"0.0.0.0:9482", []string{"0.0.0.0:9482"}, "this machine's port 9482 on any interface"},
		{":9482", []string{"[::]:9482"}, "this machine's port 9482 on any interface"}, // serve's empty host
		{"[::]:9482", []string{"[::]:9482"}, "this machine's port 9482 on any interface"},
		{"0.0.0.0:0", []string{"[::]:41000", "[::]:41001", "[::]:41002"}, "this machine's ports 41000, 41001 and 41002 on any interface"},
		{"192.168.1.5:9482", []string{"192.168.1.5:9482"}, "192.168.1.5 on port 9482"},
		{"[fe80::1]:27017", []string{"[fe80::1]:27017"}, "fe80::1 on port 27017"},
		{"10.0.0.7:27017", []string{"10.0.0.7:27017", "10.0.0.7:27018"}, "10.0.0.7 on ports 27017 and 27018"},
		{"loadhost:9482", []string{"loadhost:9482"}, "loadhost on port 9482"}, // a name other than localhost
	} {
		for _, flag := range []struct{ name, can, about string }{
			{"--metrics-listen", metricsCan, metricsAbout},
			{"--listen", simCan, simAbout},
			{"--listen", ferretCan, ferretAbout},
		} {
			var text, js bytes.Buffer
			warnPublicListen(&text, flag.name, c.listen, c.addrs, flag.can, flag.about)
			warnPublicListen(newJSONProgress(&js), flag.name, c.listen, c.addrs, flag.can, flag.about)
			if c.who == "" {
				if text.Len() != 0 || js.Len() != 0 {
					t.Errorf("%s %s is loopback, warned %q %q", flag.name, c.listen, text.String(), js.String())
				}
				continue
			}
			line := text.String()
			if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") || !strings.HasPrefix(line, "poolsweep: warning: "+flag.name+" "+c.listen+" ") ||
				!strings.Contains(line, "anyone who can reach "+c.who+" "+flag.can+"; "+flag.about) {
				t.Errorf("%s %s on %v: %q, want one line naming the flag, saying anyone who can reach %s %s", flag.name, c.listen, c.addrs, line, c.who, flag.can)
			}
			var ev struct{ Event, Text string }
			if strings.Count(js.String(), "\n") != 1 || json.Unmarshal(js.Bytes(), &ev) != nil || ev.Event != "message" || ev.Text+"\n" != line {
				t.Errorf("%s %s under --progress json: %q, want one message event of %q", flag.name, c.listen, js.String(), line)
			}
		}
	}
	if !strings.Contains(metricsAbout, "no credentials") || !strings.Contains(metricsAbout, "shape") {
		t.Errorf("the metrics warning must say they carry no credentials but reveal the target's shape: %q", metricsAbout)
	}
}

// TestMetricsListenLoopbackQuiet: --metrics-listen on a loopback address,
// and with its host left out (which means 127.0.0.1), starts without a
// warning.
func TestMetricsListenLoopbackQuiet(t *testing.T) {
	t.Parallel()
	addr := loopback.ClosedAddr(t)
	_, port, _ := strings.Cut(addr, ":")
	for _, listen := range []string{addr, ":" + port, "localhost:" + port} {
		var stderr bytes.Buffer
		o := &sweepOptions{metricsListen: listen}
		m, err := runlib.StartMetrics(o.metricsOptions(), &stderr)
		if err != nil {
			t.Fatalf("--metrics-listen %s: %v", listen, err)
		}
		m.Stop()
		if stderr.Len() != 0 {
			t.Errorf("--metrics-listen %s warned: %q", listen, stderr.String())
		}
	}
}
