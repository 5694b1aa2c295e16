package knee

import (
	"strconv"
	"strings"
)

// boundClient is the bound label telemetry gives a step whose numbers the
// load host (poolsweep's own machine) set, not the server.
const boundClient = "client"

// loadHostAdvice is what to do about a client-bound knee; bound_reason on
// each step holds the evidence (CPU, scheduler latency, CPU pressure).
const loadHostAdvice = "see bound_reason; rerun with --clients on more machines"

// clientLimited reports whether at least half of a level's trials were
// labelled client-bound: its median is then more the load host's than the
// server's.
func (l level) clientLimited() bool {
	return l.Trials > 0 && 2*l.clientBound >= l.Trials
}

// limitedRuns lists the client-limited levels among levels[from..to]
// (clamped to the slice) as runs of neighbouring levels of the grid. A run
// that reaches to is followed to its end: the flat stretch a knee rests on
// is only as good as the first server-bound level in it.
func limitedRuns(levels []level, from, to int) [][]int {
	var b runBuilder
	for i := max(from, 0); i < len(levels) && (i <= to || len(b.cur) > 0); i++ {
		b.add(levels[i].Concurrency, levels[i].clientLimited())
	}
	return b.done()
}

// runBuilder groups the marked levels of a grid, walked in order, into
// runs of neighbours: 16, 32, 64 marked and 128 not make the run 16–64.
type runBuilder struct {
	runs [][]int
	cur  []int // the run being extended
}

func (b *runBuilder) add(concurrency int, marked bool) {
	if marked {
		b.cur = append(b.cur, concurrency)
		return
	}
	if len(b.cur) > 0 {
		b.runs = append(b.runs, b.cur)
		b.cur = nil
	}
}

func (b *runBuilder) done() [][]int {
	b.add(0, false)
	return b.runs
}

// kneeWindow is the levels that decided a knee at index k: the one below
// it, the knee's range, the level above it and every level up to the peak
// (the plateau is measured against the peak, and the marginal rule against
// the doublings after the knee). limitedRuns follows a client-limited run
// past the window's end.
func kneeWindow(k, lo, hi, peak int) (from, to int) {
	return min(lo, k-1), max(hi, k+1, peak)
}

// decidingTrials is the fewest trials among the levels that decide the
// point estimate's knee: the knee, the levels either side of it, and the
// peak the plateau is measured against; among all levels when there is no
// knee. A grid with the same trials everywhere gets that number; an
// adaptive search, which repeats only those levels, is judged by them,
// not by a coarse probe far from the knee that it measured once.
func decidingTrials(levels []level, e estimate) int {
	idx := make([]int, 0, len(levels))
	if e.knee >= 0 {
		idx = append(idx, e.knee-1, e.knee, e.knee+1, e.peak)
	} else {
		for i := range levels {
			idx = append(idx, i)
		}
	}
	n := 0
	for _, i := range idx {
		if i >= 0 && i < len(levels) && (n == 0 || levels[i].Trials < n) {
			n = levels[i].Trials
		}
	}
	return n
}

// flatten is the levels of runs in order.
func flatten(runs [][]int) []int {
	var out []int
	for _, r := range runs {
		out = append(out, r...)
	}
	return out
}

// limitNote words the load host's part: "the load host limited steps
// 16–64, see bound_reason; rerun with --clients on more machines".
func limitNote(runs [][]int) string {
	var parts []string
	n := 0
	for _, r := range runs {
		n += len(r)
		if len(r) == 1 {
			parts = append(parts, strconv.Itoa(r[0]))
		} else {
			parts = append(parts, strconv.Itoa(r[0])+"–"+strconv.Itoa(r[len(r)-1]))
		}
	}
	steps := "steps "
	if n == 1 {
		steps = "step "
	}
	return "the load host limited " + steps + strings.Join(parts, ", ") + ", " + loadHostAdvice
}

// capForLoadHost lowers a knee's confidence to at most low when the load
// host limited the levels that decided it, and says so in the statement's
// confidence clause. conf is the clause as consensus wrote it.
func capForLoadHost(k *Knee, conf string, runs [][]int) string {
	if len(runs) == 0 {
		return conf
	}
	k.LoadHostLimited = flatten(runs)
	note := limitNote(runs)
	switch k.Confidence {
	case "high", "medium":
		k.Confidence = "low"
		return "low confidence: " + note
	case "low":
		return "low confidence: " + note + "; " + strings.TrimPrefix(conf, "low confidence: ")
	}
	return conf + "; " + note // unconfirmed stays unconfirmed, which is lower
}

// LoadHostNote is the words for the levels at which the load host
// limited r's knee (Knee.LoadHostLimited), as the statement has them: ""
// when it limited none.
func LoadHostNote(r Report) string {
	if len(r.Knee.LoadHostLimited) == 0 {
		return ""
	}
	return limitNote(runsIn(r.Levels, r.Knee.LoadHostLimited))
}

// runsIn regroups levels named in concs into runs of neighbours in the
// report's grid, for rendering a Knee.LoadHostLimited list.
func runsIn(levels []Level, concs []int) [][]int {
	in := map[int]bool{}
	for _, c := range concs {
		in[c] = true
	}
	var b runBuilder
	for _, l := range levels {
		b.add(l.Concurrency, in[l.Concurrency])
	}
	return b.done()
}
