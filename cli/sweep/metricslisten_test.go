package sweep

import (
	"bytes"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/internal/testkit/loopback"
	runlib "github.com/poolsweep/poolsweep/runner"
)

// TestMetricsListenLoopbackQuiet: --metrics-listen on a loopback address,
// and with its host left out (which means 127.0.0.1), starts without a
// warning.
func TestMetricsListenLoopbackQuiet(t *testing.T) {
	t.Parallel()
	addr := loopback.ClosedAddr(t)
	_, port, _ := strings.Cut(addr, ":")
	for _, listen := range []string{addr, ":" + port, "localhost:" + port} {
		var stderr bytes.Buffer
		o := &Options{metricsListen: listen}
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
