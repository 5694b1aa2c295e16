package sweep

import (
	"fmt"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/poolsweep/poolsweep/results"
)

// A server that freezes without failing (SIGSTOP, a stalled disk, a
// blackholed network) sends no error: with an op timeout longer than the
// freeze, its calls simply take as long as it lasts. Across the end of a
// window they straddle the close, are recorded whole, and a handful of
// them among a thousand leave the step's p99 untouched: the step would
// read clean. Their evidence is their length against the window's own
// calls: a freeze holds every call in flight while it lasts, so most of
// the calls at the close (or, inside the window, at least half the
// workers' calls) took many times what the window's calls take, and
// longer than any pause of a busy load host (its GC and scheduler stall
// it for tens to a few hundred milliseconds).

// Thresholds of the freeze rule.
const (
	// minFreeze is the shortest hang that counts: past a busy host's
	// pauses, and no longer than the shortest op timeout a sweep is run
	// with in practice (a timed-out call takes at least its timeout).
	minFreeze = time.Second
	// freezeLatencies is how many times the window's p99 a call must
	// take to count as hung.
	freezeLatencies = 10
)

// slowCall is a call's start (recorder clock) and latency (µs).
type slowCall struct {
	start time.Duration
	us    int64
}

// stuck is the evidence of hung calls, from the recorder's histograms.
type stuck struct {
	ref  time.Duration // p99 of the window's calls, less the slowest one per worker
	need time.Duration // max(minFreeze, freezeLatencies × ref)
	// late calls straddled the close; atClose of them took need or more.
	late, atClose int64
	// inWindow calls ended inside the window after need or more.
	inWindow int64
	workers  int
	// The slowest call at the close and inside the window.
	slowLate, slowWindow slowCall
	sealed               int // calls still running when the step was sealed
}

// frozenAtClose says most of the calls in flight at the close hung.
func (s stuck) frozenAtClose() bool { return s.atClose > 0 && 2*s.atClose >= s.late }

// frozenInWindow says at least half the workers' calls hung inside the
// window (one worker's call at C=1).
func (s stuck) frozenInWindow() bool {
	return s.inWindow > 0 && 2*s.inWindow >= int64(s.workers)
}

// findStuck measures the hung calls: win holds the calls that ended
// inside the window, slowest the slowest of them; r.late those that
// straddled its end (r.lateMu is held). The reference is the window's
// p99 without the slowest call of each worker, so that the calls a
// freeze held inside the window (one per worker) do not raise it.
func (r *recorder) findStuck(win *hdr.Histogram, slowest slowCall) stuck {
	s := stuck{workers: len(r.slots), late: int64(len(r.late)), slowWindow: slowest, sealed: r.sealedCalls}
	n, w := win.TotalCount(), int64(len(r.slots))
	if n > 0 {
		q := 50.0
		if n > 2*w {
			q = max(q, 99*float64(n-w)/float64(n))
		}
		s.ref = time.Duration(win.ValueAtQuantile(q)) * time.Microsecond
	}
	s.need = max(minFreeze, freezeLatencies*s.ref)
	need := int64(s.need / time.Microsecond)
	for _, c := range r.late {
		if c.us >= need {
			s.atClose++
		}
		if c.us > s.slowLate.us {
			s.slowLate = c
		}
	}
	if slowest.us >= need {
		for _, b := range win.Distribution() {
			if b.To >= need {
				s.inWindow += b.Count
			}
		}
	}
	return s
}

// frozenMark is the mark of a freeze, or nil: most calls in flight at the
// close hung (a freeze across the window's end, or a target that died
// without the driver seeing it), or half the workers' calls hung inside
// the window. Its stall is the slowest such call: from its start, as
// long as it took; recovered when an operation succeeded as it ended or
// later (lastOK, from the window's opening: a frozen server's hung calls
// succeed when it thaws; a dead one's time out).
func frozenMark(s stuck, lastOK time.Duration) *results.TargetFailed {
	var c slowCall
	switch {
	case s.frozenAtClose():
		c = s.slowLate
	case s.frozenInWindow():
		c = s.slowWindow
	default:
		return nil
	}
	took := time.Duration(c.us) * time.Microsecond
	from := max(c.start, 0).Seconds()
	return &results.TargetFailed{Failed: true, Cause: results.CauseFrozen, FirstFailureS: from, StalledFromS: from,
		StalledS: took.Seconds(), Recovered: s.sealed == 0 && lastOK >= c.start+took-10*time.Millisecond}
}

// frozenReason says what a freeze mark rests on.
func frozenReason(b *strings.Builder, f *results.TargetFailed) {
	fmt.Fprintf(b, "%d call(s) hung for %.1f s or more (the longer of %s and %d × the window's p99 of %.1f ms), the longest %.1f s from %.1f s into the window",
		f.StuckCalls, f.StuckAfterMS/1000, minFreeze, freezeLatencies, f.WindowP99MS, f.StalledS, f.StalledFromS)
	if !f.Recovered {
		b.WriteString(", and no operation succeeded after it")
	}
	b.WriteString(": the target stopped answering")
}

// minNotFoundShare is the share of the ops by loaded keys that must find
// no document to mark a step: below it, a few documents someone removed
// are warned about, the step kept (its numbers barely moved).
const minNotFoundShare = 0.01

// dataLostMark is the mark of a target that lost the data poolsweep
// loaded, or nil: at least minNotFoundShare of the ops by a loaded key
// found no document. A key is loaded only below the records poolsweep
// loaded or found loaded (workload.KeySpace.Loaded): an insert's key,
// which another worker may read before it lands, never counts.
func dataLostMark(step *results.StepResult) *results.TargetFailed {
	if step.NotFound == 0 || float64(step.NotFound) < minNotFoundShare*float64(step.LoadedKeyOps) {
		return nil
	}
	return &results.TargetFailed{Failed: true, Cause: results.CauseDataLost, Recovered: true}
}

// dataLostReason says what a data-lost mark rests on.
func dataLostReason(b *strings.Builder, f *results.TargetFailed) {
	b.WriteString(notFoundEvidence(f.NotFound, f.LoadedKeyOps))
	b.WriteString(": the target lost the data poolsweep loaded (restarted empty, dropped or reloaded), so the step measured lookups of nothing")
}

// notFoundEvidence is the count of ops by loaded keys that found nothing.
func notFoundEvidence(notFound, of int64) string {
	return fmt.Sprintf("%d of %d reads and updates by loaded keys found no document", notFound, of)
}

// notFoundWarning warns of ops by loaded keys that found nothing, too few
// to mark the step; "" when none did or the step is marked.
func notFoundWarning(step *results.StepResult) string {
	if step.NotFound == 0 || step.TargetFailed != nil {
		return ""
	}
	return notFoundEvidence(step.NotFound, step.LoadedKeyOps) + fmt.Sprintf(" (under %.0f%%: some of the data poolsweep loaded is gone; the step is kept)", 100*minNotFoundShare)
}

// msOf is d in milliseconds.
func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
