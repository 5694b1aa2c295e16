package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/poolsweep/poolsweep/livemetrics"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
)

// listenAddr reads --metrics-listen: HOST:PORT as serve --listen takes it
// (checkListen), but with a fixed port (1 to 65535: a scraper must know
// it), and a HOST left out (":9464") meaning the loopback address
// 127.0.0.1, so that nothing is served beyond this machine unless asked.
func listenAddr(s string) (string, error) {
	if err := checkListen(s); err != nil {
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

// metricsServer is --metrics-listen: the exporter and the server
// serving it at /metrics.
type metricsServer struct {
	exporter *livemetrics.Exporter
	srv      *http.Server
	done     chan struct{}
}

// startMetrics listens on --metrics-listen before anything starts: a
// port that is taken refuses the sweep (exit 2). nil when not asked. An
// address beyond loopback is warned about once on stderr.
func (o *sweepOptions) startMetrics(stderr io.Writer) (*metricsServer, error) {
	if o.metricsListen == "" {
		return nil, nil
	}
	addr, err := listenAddr(o.metricsListen) // checked as it was parsed
	if err != nil {
		return nil, errext.Usagef("--metrics-listen: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, errext.Usagef("--metrics-listen: cannot listen on %s: %w", addr, errors.Unwrap(err))
	}
	warnPublicListen(stderr, "--metrics-listen", addr, []string{ln.Addr().String()}, metricsCan, metricsAbout)
	m := &metricsServer{exporter: livemetrics.New(), done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.exporter.Handler())
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		defer close(m.done)
		_ = m.srv.Serve(ln) // ends with ErrServerClosed when stopped
	}()
	return m, nil
}

// stop ends the server, letting a scrape in progress finish.
func (m *metricsServer) stop() {
	if m == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = m.srv.Shutdown(ctx)
	<-m.done
}

// hooks are h with the exporter's hooks after each of h's.
func (m *metricsServer) hooks(h sweep.SessionHooks) sweep.SessionHooks {
	if m == nil {
		return h
	}
	x := m.exporter
	return sweep.SessionHooks{
		Loading: h.Loading, Loaded: h.Loaded, Waiting: h.Waiting, Failed: h.Failed, Stopping: h.Stopping,
		Begin: func(n, of int, spec plan.StepSpec) {
			call3(h.Begin, n, of, spec)
			x.Begin(n, of, spec)
		},
		Progress: func(p sweep.Progress) {
			if h.Progress != nil {
				h.Progress(p)
			}
			x.Progress(p)
		},
		Step: func(n, of int, st results.StepResult) {
			call3(h.Step, n, of, st)
			x.Step(n, of, st)
		},
	}
}

// call3 calls f when it is set.
func call3[T any](f func(int, int, T), n, of int, v T) {
	if f != nil {
		f(n, of, v)
	}
}
