package sweep

import (
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Op types as they appear in ops_by_type.
const (
	TypeFind   = "find"
	TypeUpdate = "update"
	TypeInsert = "insert"
	TypeScan   = "scan"
)

var opTypes = []string{TypeFind, TypeUpdate, TypeInsert, TypeScan}

// Error kinds.
const (
	errNone = iota
	errTimeout
	errNetwork
	errServer
)

// stripes spreads recording over several locks so that a thousand workers
// on two cores rarely wait for each other; each stripe has its own
// histograms, merged once when the window closes.
//
// Memory: each stripe's five histograms (1 µs … 60 s, 3 digits) are about
// 0.7 MB, allocated before each step's pre-warm, so 16 stripes stay near
// 11 MB per step.
const stripes = 16

type stripe struct {
	mu       sync.Mutex
	call     *hdr.Histogram
	ops      [4]*hdr.Histogram
	opErrs   [4]int64
	errs     [4]int64 // by error kind
	calls    int64
	firstErr string
	_        [64]byte // keep stripes on separate cache lines
}

// recorder collects one step's measurements. Latencies are recorded in
// microseconds from 1 µs to the histogram's highest trackable value.
type recorder struct {
	measuring atomic.Bool
	live      atomic.Int64 // calls completed in any phase, for the live rate
	s         [stripes]stripe
	highest   int64
}

func newRecorder(opTimeout time.Duration) *recorder {
	r := &recorder{highest: max(int64(opTimeout/time.Microsecond)*4, 60_000_000)}
	for i := range r.s {
		r.s[i].call = hdr.New(1, r.highest, 3)
		for j := range r.s[i].ops {
			r.s[i].ops[j] = hdr.New(1, r.highest, 3)
		}
	}
	return r
}

func (r *recorder) clamp(d time.Duration) int64 {
	us := int64(d / time.Microsecond)
	if us < 1 {
		return 1
	}
	if us > r.highest {
		return r.highest
	}
	return us
}

// op records one driver operation completed by worker w.
func (r *recorder) op(w int, typ int, d time.Duration, kind int, err error) {
	if !r.measuring.Load() {
		return
	}
	s := &r.s[w%stripes]
	s.mu.Lock()
	s.ops[typ].RecordValue(r.clamp(d))
	if kind != errNone {
		s.opErrs[typ]++
		s.errs[kind]++
		if s.firstErr == "" && err != nil {
			s.firstErr = err.Error()
		}
	}
	s.mu.Unlock()
}

// call records one workload call completed by worker w.
func (r *recorder) call(w int, d time.Duration) {
	r.live.Add(1)
	if !r.measuring.Load() {
		return
	}
	s := &r.s[w%stripes]
	s.mu.Lock()
	s.call.RecordValue(r.clamp(d))
	s.calls++
	s.mu.Unlock()
}

// summary merges the stripes into the step's counts and distributions.
func (r *recorder) summary(step *StepResult, window time.Duration) {
	call := hdr.New(1, r.highest, 3)
	var ops [4]*hdr.Histogram
	for j := range ops {
		ops[j] = hdr.New(1, r.highest, 3)
	}
	var opErrs, errs [4]int64
	for i := range r.s {
		s := &r.s[i]
		s.mu.Lock()
		call.Merge(s.call)
		for j := range ops {
			ops[j].Merge(s.ops[j])
			opErrs[j] += s.opErrs[j]
		}
		for k := range errs {
			errs[k] += s.errs[k]
		}
		step.Calls += s.calls
		if step.ErrorSample == "" {
			step.ErrorSample = s.firstErr
		}
		s.mu.Unlock()
	}
	secs := window.Seconds()
	step.DurationS = secs
	step.Latency = latencySummary(call)
	step.OpsByType = map[string]OpTypeStats{}
	for j, h := range ops {
		if h.TotalCount() == 0 {
			continue
		}
		step.Ops += h.TotalCount()
		step.OpsByType[opTypes[j]] = OpTypeStats{Count: h.TotalCount(), PerS: float64(h.TotalCount()) / secs, Errors: opErrs[j], Latency: latencySummary(h)}
	}
	if secs > 0 {
		step.CallsPerS = float64(step.Calls) / secs
		step.OpsPerS = float64(step.Ops) / secs
	}
	step.Errors = ErrorCounts{Timeout: errs[errTimeout], Network: errs[errNetwork], Server: errs[errServer]}
}

func latencySummary(h *hdr.Histogram) LatencySummary {
	if h.TotalCount() == 0 {
		return LatencySummary{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return LatencySummary{
		Mean: h.Mean() / 1000,
		P50:  ms(h.ValueAtQuantile(50)),
		P90:  ms(h.ValueAtQuantile(90)),
		P99:  ms(h.ValueAtQuantile(99)),
		P999: ms(h.ValueAtQuantile(99.9)),
		Max:  ms(h.Max()),
	}
}

// poolRecorder turns the driver's pool events into the step's pool
// numbers: open connections (created − closed), and checkout wait during
// the measured window.
type poolRecorder struct {
	open      atomic.Int64
	maxOpen   atomic.Int64
	created   atomic.Int64
	failed    atomic.Int64
	measuring atomic.Bool
	s         [stripes]struct {
		mu sync.Mutex
		h  *hdr.Histogram
		_  [48]byte
	}
}

func newPoolRecorder() *poolRecorder {
	p := &poolRecorder{}
	for i := range p.s {
		p.s[i].h = hdr.New(1, 600_000_000, 3)
	}
	return p
}

func (p *poolRecorder) created1() {
	p.created.Add(1)
	n := p.open.Add(1)
	if p.measuring.Load() {
		for {
			m := p.maxOpen.Load()
			if n <= m || p.maxOpen.CompareAndSwap(m, n) {
				break
			}
		}
	}
}

func (p *poolRecorder) checkedOut(connID int64, d time.Duration) {
	if !p.measuring.Load() {
		return
	}
	us := max(int64(d/time.Microsecond), 1)
	s := &p.s[uint64(connID)%stripes]
	s.mu.Lock()
	s.h.RecordValue(min(us, 600_000_000))
	s.mu.Unlock()
}

func (p *poolRecorder) summary() Quantiles {
	h := hdr.New(1, 600_000_000, 3)
	for i := range p.s {
		p.s[i].mu.Lock()
		h.Merge(p.s[i].h)
		p.s[i].mu.Unlock()
	}
	if h.TotalCount() == 0 {
		return Quantiles{}
	}
	return Quantiles{Mean: h.Mean() / 1000, P50: float64(h.ValueAtQuantile(50)) / 1000, P99: float64(h.ValueAtQuantile(99)) / 1000, Max: float64(h.Max()) / 1000}
}
