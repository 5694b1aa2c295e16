package sweep

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/workload"
)

// Per-item costs behind estimateMemory, rounded up from what was measured
// with driver v2 on 64-bit Linux (peak RSS of one-step sweeps against the
// simulator, C = 100 … 2,000: about 49 KB per worker and 23 KB per open
// connection, linear in both), so that a plan refused is one that could
// not have run, and a plan accepted has room to spare.
const (
	memPerWorker     = 64 << 10 // goroutine stack, worker state, driver op state
	memPerConnection = 32 << 10 // socket buffers, wire message buffers, pool bookkeeping
	memPerStep       = 16 << 20 // latency histograms and telemetry of one step
	// memPerClient is a driver client beside its pool, per server: its
	// topology, the server's monitor and that monitor's connection, about
	// 15 KB of heap idle (BenchmarkIdleClient), and the stacks of its 3
	// or 4 goroutines, rounded up.
	memPerClient = 64 << 10
	opCopies     = 3 // a document is built, encoded and framed
)

// estimateMemory is the peak memory one step of the plan needs in this
// process, in bytes: the largest step's workers and connections, each
// worker holding the largest document it sends, plus the loader's batches.
func estimateMemory(p plan.Plan, ws []workload.Workload, hosts int) uint64 {
	maxC := p.MaxLevel() // the largest over every target's levels
	maxP := maxC
	if !p.Pool.Match {
		maxP = min(maxC, p.Pool.Sizes[len(p.Pool.Sizes)-1])
	}
	var doc, load uint64
	for _, w := range ws {
		sent := uint64(w.FieldLength) // an update sends one field
		for _, m := range w.Mix {
			if m.Op == workload.OpInsert && m.Weight > 0 {
				sent = uint64(w.DocumentBytes())
			}
		}
		if w.Replay != nil { // a replayed shape's command, at its declared lengths and values
			sent = max(sent, uint64(w.Replay.MaxCommandBytes()))
		}
		doc = max(doc, sent)
		load = max(load, 4*uint64(workload.LoadBatch(w))*uint64(w.DocumentBytes())*opCopies)
	}
	workers := uint64(maxC) * uint64(p.Clients)
	conns := uint64(maxP) * uint64(p.Clients) * uint64(max(hosts, 1))
	clients := uint64(p.Clients) * uint64(max(hosts, 1))
	run := workers*(memPerWorker+opCopies*doc) + conns*memPerConnection + clients*memPerClient + memPerStep
	return max(run, load)
}

// MachineMemory is the memory this machine has (MemTotal), or 0 when the
// platform does not say.
func MachineMemory() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	return parseMemTotal(bufio.NewScanner(f))
}

func parseMemTotal(sc *bufio.Scanner) uint64 {
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}

// CheckMemory refuses a plan whose estimated peak exceeds the machine's
// memory; the error names the flags that set the size.
func CheckMemory(p plan.Plan, ws []workload.Workload, hosts int, machine uint64) error {
	if machine == 0 {
		return nil
	}
	need := estimateMemory(p, ws, hosts)
	if need <= machine {
		return nil
	}
	return fmt.Errorf("--concurrency, --clients and the document size (%s): the largest step needs about %s of memory, more than this machine's %s; lower them, or spread the load with --clients over more machines",
		documentSize(ws), formatBytes(need), formatBytes(machine))
}

// documentSize names where the largest documents' size was set: the
// workload file's keys, or poolsweep's defaults.
func documentSize(ws []workload.Workload) string {
	var big workload.Workload
	for _, w := range ws {
		if w.DocumentBytes() >= big.DocumentBytes() {
			big = w
		}
	}
	for _, w := range ws {
		if w.Replay != nil && w.Replay.MaxCommandBytes() > int64(big.DocumentBytes()) {
			return "the commands the shapes of " + textfmt.Escape(w.File) + " build"
		}
	}
	if big.File == "" {
		return "fieldcount × fieldlength, the defaults"
	}
	return "fieldcount × fieldlength of " + textfmt.Escape(big.File)
}

// formatBytes prints a byte count in binary units.
func formatBytes(b uint64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := uint64(unit), 0
	for n := b / unit; n >= unit && exp < 4; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTP"[exp])
}
