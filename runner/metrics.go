package runner

import (
	"context"
	"errors"
	"fmt"
	"github.com/poolsweep/poolsweep/internal/listenwarn"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/livemetrics"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
)

// Metrics is --metrics-listen: the exporter and the server serving it
// at /metrics.
type Metrics struct {
	exporter *livemetrics.Exporter
	srv      *http.Server
	done     chan struct{}
}

// StartMetrics listens on m's address before anything starts: a port
// that is taken refuses the sweep (exit 2). nil when m is. An address
// beyond loopback is warned about once on messages.
func StartMetrics(m *MetricsOptions, messages io.Writer) (*Metrics, error) {
	if m == nil {
		return nil, nil
	}
	var ln net.Listener
	if m.FD != 0 {
		f := os.NewFile(uintptr(m.FD), "metrics")
		l, err := net.FileListener(f)
		f.Close() // FileListener holds a copy
		if err != nil {
			return nil, errext.Usagef("--metrics-fd: %d is not a listening socket: %w", m.FD, err)
		}
		ln = l
	} else {
		l, err := listenMetrics(m, messages)
		if err != nil {
			return nil, err
		}
		ln = l
	}
	s := &Metrics{exporter: livemetrics.New(), done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.Handle("/metrics", s.exporter.Handler())
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln) // ends with ErrServerClosed when stopped
	}()
	return s, nil
}

// listenMetrics opens m's address: a port that is taken refuses the
// sweep; an address beyond loopback is warned about once on messages.
func listenMetrics(m *MetricsOptions, messages io.Writer) (net.Listener, error) {
	ln, err := net.Listen("tcp", m.Addr)
	if err != nil {
		return nil, errext.Usagef("--metrics-listen: cannot listen on %s: %w", m.Addr, errors.Unwrap(err))
	}
	listenwarn.Write(messages, "--metrics-listen", m.Addr, []string{ln.Addr().String()}, listenwarn.MetricsCan, listenwarn.MetricsAbout)
	return ln, nil
}

// metricsSocket opens m's address for --spawn's leading agent, which
// serves it: the launcher holds the port from before anything starts, so
// a taken port still refuses the run, and no two processes bind it.
// nil when m is.
func metricsSocket(m *MetricsOptions, messages io.Writer) (*os.File, error) {
	if m == nil {
		return nil, nil
	}
	ln, err := listenMetrics(m, messages)
	if err != nil {
		return nil, err
	}
	defer ln.Close() // the file is a copy that stays open
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		return nil, fmt.Errorf("--metrics-listen: %w", err)
	}
	return f, nil
}

// Stop ends the server, letting a scrape in progress finish.
func (m *Metrics) Stop() {
	if m == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = m.srv.Shutdown(ctx)
	<-m.done
}

// hooks are h with the exporter's hooks after each of h's.
func (m *Metrics) hooks(h sweep.SessionHooks) sweep.SessionHooks {
	if m == nil {
		return h
	}
	x := m.exporter
	return sweep.SessionHooks{
		Loading: h.Loading, Loaded: h.Loaded, Waiting: h.Waiting, Server: h.Server, Failed: h.Failed, Stopping: h.Stopping,
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
