package listenwarn

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/runner/progress"
)

// TestPublicListenWarning: a listener on a loopback address is not
// warned about; every other form (every interface, a named address, a
// hostname) gets exactly one line saying who can reach which port, as
// plain text and, under --progress json, as one JSON object.
// --metrics-listen 0.0.0.0:9482 bound every interface without
// a word.
func TestLine(t *testing.T) {
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
			{"--metrics-listen", MetricsCan, MetricsAbout},
			{"--listen", SimCan, SimAbout},
			{"--listen", FerretCan, FerretAbout},
		} {
			var text, js bytes.Buffer
			Write(&text, flag.name, c.listen, c.addrs, flag.can, flag.about)
			Write(progress.NewJSON(&js), flag.name, c.listen, c.addrs, flag.can, flag.about)
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
	if !strings.Contains(MetricsAbout, "no credentials") || !strings.Contains(MetricsAbout, "shape") {
		t.Errorf("the metrics warning must say they carry no credentials but reveal the target's shape: %q", MetricsAbout)
	}
}
