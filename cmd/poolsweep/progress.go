package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// progressPrinter renders the engine's progress on stderr: one line per
// finished step, and a live line (rewritten in place) when stderr is a
// terminal. The engine calls live from its own goroutine.
type progressPrinter struct {
	mu        sync.Mutex
	w         io.Writer
	tty       bool
	total     int
	current   int // 1-based position of the running step
	liveShown bool
}

func newProgressPrinter(w io.Writer, total int) *progressPrinter {
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return &progressPrinter{w: w, tty: tty, total: total}
}

func (p *progressPrinter) live(pr sweep.Progress) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := pr.Step
	var line string
	switch pr.Phase {
	case sweep.PhasePrewarm:
		line = fmt.Sprintf("[%d/%d] %s %s P=%s: opening connections, %d open", p.current, p.total, s.Target, levelText(s.Concurrency, s.Rate), s.PoolSetting, pr.Open)
	default:
		frac := 0.0
		if pr.Total > 0 {
			frac = min(pr.Elapsed.Seconds()/pr.Total.Seconds(), 1)
		}
		bar := strings.Repeat("█", int(frac*20)) + strings.Repeat("░", 20-int(frac*20))
		line = fmt.Sprintf("[%d/%d] %s %s P=%s %-7s %s %.0f calls/s, %d conns", p.current, p.total, s.Target, levelText(s.Concurrency, s.Rate), s.PoolSetting, pr.Phase, bar, pr.CallsPerS, pr.Open)
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
	p.liveShown = true
}

// hooks are the session's reports, rendered here.
func (p *progressPrinter) hooks() sweep.SessionHooks {
	return sweep.SessionHooks{
		Loading: p.loading,
		Loaded: func(target string, lr workload.LoadResult) {
			p.endLine()
			p.println("target %s: %s", target, lr.Note)
		},
		Waiting: func(target, msg string) {
			p.endLine()
			p.println("target %s: %s", target, safeLine(msg))
		},
		Begin: func(n, of int, _ plan.StepSpec) {
			p.mu.Lock()
			p.current = n
			p.total = of // a search's estimate changes as it goes
			p.mu.Unlock()
		},
		Progress: p.live,
		Step: func(n, _ int, s results.StepResult) {
			p.endLine()
			p.step(n, s)
		},
		Failed: func(_, _ int, _ plan.StepSpec, err error) {
			p.endLine()
			p.println("poolsweep: %s (skipped: --keep-going)", safeLine(topology.Redact(err.Error())))
		},
	}
}

// loading shows data-loading progress.
func (p *progressPrinter) loading(target string, done, total int) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\033[Ktarget %s: loading %d/%d documents", target, done, total)
	p.liveShown = true
}

func (p *progressPrinter) println(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format+"\n", a...)
}

// endLine clears the live line before a normal line is printed.
func (p *progressPrinter) endLine() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.liveShown {
		fmt.Fprint(p.w, "\r\033[K")
		p.liveShown = false
	}
}

func (p *progressPrinter) step(n int, s results.StepResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "[%d/%d] %s %s %s P=%s K=%d trial %d: %s ops/s, %s calls/s, p99 %s, errors %d, conns %d%s\n",
		n, p.total, s.Target, s.Workload, levelText(s.Concurrency, s.Rate), s.PoolSetting, s.Clients, s.Trial, fmtRate(s.OpsPerS), fmtRate(s.CallsPerS), fmtMs(s.Latency.P99), s.Errors.Total(), s.Connections, openProgress(s))
	if s.Bound != "" {
		fmt.Fprintf(p.w, "        bound: %s — %s\n", s.Bound, s.BoundReason)
	}
	if s.Server != nil && s.Server.SamplerErrors > 0 {
		fmt.Fprintf(p.w, "        warning: %d serverStatus sample(s) failed (%s); the step's own numbers are unaffected\n", s.Server.SamplerErrors, safeLine(s.Server.SamplerError))
	}
	if s.Pool.ConnectionsLost > 0 {
		fmt.Fprintf(p.w, "        warning: %d connection(s) failed during the window (resets, or the server went away); the driver's retries may have hidden some from the ops\n", s.Pool.ConnectionsLost)
	}
	if s.InFlightAtClose > 0 && s.OldestInFlightMS >= 1000 {
		fmt.Fprintf(p.w, "        warning: %d call(s) still in flight when the window closed, the oldest for %s; they are counted with their full latency or as timeouts\n", s.InFlightAtClose, fmtMs(s.OldestInFlightMS))
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(p.w, "        warning: %s\n", safeLine(w))
	}
}

// fmtRate is a throughput as the tables print it (render.Rate).
func fmtRate(v float64) string { return render.Rate(v) }

// fmtMs is milliseconds as the tables print them (render.Millis).
func fmtMs(v float64) string { return render.Millis(v) }

// levelText names a step's level: "C=64", or "rate=2000/s" for an open
// loop.
func levelText(concurrency, rate int) string {
	if rate > 0 {
		return fmt.Sprintf("rate=%d/s", rate)
	}
	return fmt.Sprintf("C=%d", concurrency)
}

// openProgress is what an open-loop step adds to its progress line.
func openProgress(s results.StepResult) string {
	if s.Open == nil {
		return ""
	}
	return fmt.Sprintf(", offered %s/s, dropped %d, p99 uncorrected %s", fmtRate(s.Open.OfferedPerS), s.Open.Dropped, render.UncorrectedP99(s.Open))
}
