package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// Text renders the engine's progress on its writer (the CLI's stderr):
// one line per finished step, and a live line (rewritten in place) when
// the writer is a terminal. The engine calls live from its own goroutine.
type Text struct {
	mu        sync.Mutex
	w         io.Writer
	tty       bool
	total     int
	current   int // 1-based position of the running step
	liveShown bool
}

// NewText renders on w a run of total steps (an estimate a search updates).
func NewText(w io.Writer, total int) *Text {
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return &Text{w: w, tty: tty, total: total}
}

func (p *Text) live(pr sweep.Progress) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := pr.Step
	var line string
	switch pr.Phase {
	case sweep.PhasePrewarm:
		line = fmt.Sprintf("[%d/%d] %s %s P=%s: opening connections, %d open", p.current, p.total, s.Target, specLevel(s), s.PoolSetting, pr.Open)
	default:
		frac := 0.0
		if pr.Total > 0 {
			frac = min(pr.Elapsed.Seconds()/pr.Total.Seconds(), 1)
		}
		bar := strings.Repeat("█", int(frac*20)) + strings.Repeat("░", 20-int(frac*20))
		line = fmt.Sprintf("[%d/%d] %s %s P=%s %-7s %s %.0f calls/s, %d conns", p.current, p.total, s.Target, specLevel(s), s.PoolSetting, pr.Phase, bar, pr.CallsPerS, pr.Open)
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
	p.liveShown = true
}

// Hooks are the session's reports, rendered here.
func (p *Text) Hooks() sweep.SessionHooks {
	return sweep.SessionHooks{
		Loading: p.loading,
		Loaded: func(target string, lr workload.LoadResult) {
			p.EndLine()
			p.println("target %s: %s", target, lr.Note)
		},
		Waiting: func(target, msg string) {
			p.EndLine()
			p.println("target %s: %s", target, textfmt.Line(msg))
		},
		Server: func(target, msg string) {
			p.EndLine()
			p.println("target %s: %s", target, textfmt.Line(msg))
		},
		Begin: func(n, of int, _ plan.StepSpec) {
			p.mu.Lock()
			p.current = n
			p.total = of // a search's estimate changes as it goes
			p.mu.Unlock()
		},
		Progress: p.live,
		Step: func(n, _ int, s results.StepResult) {
			p.EndLine()
			p.step(n, s)
		},
		Failed: func(_, _ int, _ plan.StepSpec, err error) {
			p.EndLine()
			p.println("poolsweep: %s (skipped: --keep-going)", textfmt.Line(topology.Redact(err.Error())))
		},
	}
}

// loading shows data-loading progress.
func (p *Text) loading(target string, done, total int) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\033[Ktarget %s: loading %d/%d documents", target, done, total)
	p.liveShown = true
}

func (p *Text) println(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format+"\n", a...)
}

// EndLine clears the live line before a normal line is printed.
func (p *Text) EndLine() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.liveShown {
		fmt.Fprint(p.w, "\r\033[K")
		p.liveShown = false
	}
}

func (p *Text) step(n int, s results.StepResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.Mode == results.ModeProfile && s.Profile != nil {
		fmt.Fprintln(p.w, profileLine(n, p.total, s))
	} else {
		fmt.Fprintf(p.w, "[%d/%d] %s %s %s P=%s K=%d trial %d: %s ops/s, %s calls/s, p99 %s, errors %d, conns %d%s\n",
			n, p.total, s.Target, s.Workload, Level(s.Concurrency, s.Rate), s.PoolSetting, s.Clients, s.Trial, render.Rate(s.OpsPerS), render.Rate(s.CallsPerS), render.Millis(s.Latency.P99), s.Errors.Total(), s.Connections, openStep(s))
	}
	if s.Bound != "" {
		fmt.Fprintf(p.w, "        bound: %s — %s\n", s.Bound, s.BoundReason)
	}
	if s.Server != nil && s.Server.SamplerErrors > 0 {
		fmt.Fprintf(p.w, "        warning: %d serverStatus sample(s) failed (%s); the step's own numbers are unaffected\n", s.Server.SamplerErrors, textfmt.Line(s.Server.SamplerError))
	}
	if s.Pool.ConnectionsLost > 0 {
		fmt.Fprintf(p.w, "        warning: %d connection(s) failed during the window (resets, or the server went away); the driver's retries may have hidden some from the ops\n", s.Pool.ConnectionsLost)
	}
	if s.InFlightAtClose > 0 && s.OldestInFlightMS >= 1000 {
		fmt.Fprintf(p.w, "        warning: %d call(s) still in flight when the window closed, the oldest for %s; they are counted with their full latency or as timeouts\n", s.InFlightAtClose, render.Millis(s.OldestInFlightMS))
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(p.w, "        warning: %s\n", textfmt.Line(w))
	}
}
