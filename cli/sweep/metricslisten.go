package sweep

import (
	"fmt"
	"net"
	"strconv"

	"github.com/poolsweep/poolsweep/cli/serve"
	runlib "github.com/poolsweep/poolsweep/runner"
)

// listenAddr reads --metrics-listen: HOST:PORT as serve --listen takes it
// (serve.CheckListen), but with a fixed port (1 to 65535: a scraper must know
// it), and a HOST left out (":9464") meaning the loopback address
// 127.0.0.1, so that nothing is served beyond this machine unless asked.
func listenAddr(s string) (string, error) {
	if err := serve.CheckListen(s); err != nil {
		return "", err
	}
	host, port, _ := net.SplitHostPort(s)
	if n, _ := strconv.Atoi(port); n == 0 {
		return "", fmt.Errorf("port 0 picks a port no scraper knows; give one from 1 to 65535")
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// checkMetricsListen is listenAddr as a flag's check.
func checkMetricsListen(s string) error {
	_, err := listenAddr(s)
	return err
}

// metricsOptions are --metrics-listen for the run; nil when not asked.
func (o *Options) metricsOptions() *runlib.MetricsOptions {
	if o.metricsFD != 0 {
		return &runlib.MetricsOptions{FD: o.metricsFD}
	}
	if o.metricsListen == "" {
		return nil
	}
	addr, _ := listenAddr(o.metricsListen) // checked as it was parsed
	return &runlib.MetricsOptions{Addr: addr}
}
