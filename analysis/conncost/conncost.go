// Package conncost estimates what one connection costs a server from a
// connection sweep: steps that hold the total rate fixed and vary the
// number of clients, so the connections the server holds grow while the
// work it does stays the same. The growth of the server's resident memory
// and CPU against its connections, fitted over the levels, is the cost of
// a connection; the connections it holds beyond the clients' pools are
// their monitors.
package conncost

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// ErrNoConnectionSweep is Estimate's answer for a run without a
// connection sweep: fewer than two levels of clients at one total rate.
var ErrNoConnectionSweep = errors.New("the run holds no connection sweep (steps at one total rate with two or more client counts)")

// Cost is the measured cost of one connection on the server, with the
// levels it was fitted from. A field the server did not report is nil.
type Cost struct {
	// MemoryBytes is the server's resident memory per connection.
	MemoryBytes *results.Interval `json:"memory_bytes"`
	// CPUusPerS is the server CPU one idle connection costs, in
	// microseconds per second.
	CPUusPerS *results.Interval `json:"cpu_us_per_s"`
	// MonitorsPerClient is the connections each client holds to one
	// server beside its pool: the drivers' monitors (2 from 4.4, 1
	// before), measured as the server's connections less the pools'.
	MonitorsPerClient *results.Interval `json:"monitors_per_client"`
	// MemoryBytesPerClient and CPUusPerSPerClient are the same costs per
	// client (its pool's connections and its monitors together), fitted
	// against the clients: what a server that does not report its
	// connections (FerretDB) can be measured by.
	MemoryBytesPerClient *results.Interval `json:"memory_bytes_per_client,omitempty"`
	CPUusPerSPerClient   *results.Interval `json:"cpu_us_per_s_per_client,omitempty"`
	// Limit is the server's connection limit (connections.current +
	// available), nil where it did not report one.
	Limit *float64 `json:"limit"`
	// Refused is the first level at which the server refused or failed
	// connections, and what it said; nil when none did.
	Refused *Refusal `json:"refused,omitempty"`
	Levels  []Level  `json:"levels"`
	// Server is the host the cost was measured on.
	Server string `json:"server"`
	// Target, Workload, Pool and Rate name the steps the sweep is: one
	// series at one total rate (calls/s over all clients).
	Target   string `json:"target"`
	Workload string `json:"workload"`
	Pool     string `json:"pool"`
	Rate     int    `json:"rate"`
	// Confidence is the two-sided confidence of the intervals.
	Confidence float64 `json:"confidence"`
	// Notes say what could not be fitted and why (a server that reports
	// no memory, too few points for an interval).
	Notes []string `json:"notes,omitempty"`
}

// Level is one client count of the sweep, its trials' medians.
type Level struct {
	Clients         int      `json:"clients"`
	Connections     float64  `json:"connections"`
	ResidentBytes   *float64 `json:"resident_bytes"`
	CPUPct          *float64 `json:"cpu_pct"`
	HelloPerS       *float64 `json:"hello_per_s"`
	ClientBytesEach *float64 `json:"client_bytes_each,omitempty"`
	Trials          int      `json:"trials"`
}

// Refusal is where the server stopped accepting connections.
type Refusal struct {
	Clients     int     `json:"clients"`
	Connections float64 `json:"connections"`
	// Reason is the server's or the network's words: the connection
	// limit, the open-file limit, the establishment limiter.
	Reason string `json:"reason"`
}

// Estimate fits the cost of a connection from a run's connection sweep.
// It returns ErrNoConnectionSweep when the run has none.
//
// The sweep is the open-loop series (target, workload, pool, rate and
// calls in flight alike) with the most client counts, two at least; of
// several with as many, the first in the file. Its server is the host
// that held the most connections. Every measured step is a point: memory
// and CPU against the server's connections (connections.current), and
// the connections beyond the clients' pools against the clients, each
// fitted by least squares with a Confidence interval; the levels are the
// steps' medians per client count, below the count at which the server
// refused.
func Estimate(r *results.Results) (*Cost, error) {
	steps := sweepSteps(r)
	if steps == nil {
		return nil, ErrNoConnectionSweep
	}
	first := steps[0]
	c := &Cost{Target: first.Target, Workload: first.Workload, Pool: first.PoolSetting, Rate: first.Rate,
		Confidence: Confidence, Server: busiestHost(steps)}
	// From the level at which the server refused on, its connections
	// are its limit's, not the clients': those steps measure no cost.
	if c.Refused = refusal(r, first, c.Server); c.Refused != nil {
		steps = slices.DeleteFunc(steps, func(st *results.StepResult) bool { return st.Clients >= c.Refused.Clients })
	}
	var mem, cpu, mon, memK, cpuK []point
	byClients := map[int][]*results.StepResult{}
	for _, st := range steps {
		byClients[st.Clients] = append(byClients[st.Clients], st)
		h := st.Server.Hosts[c.Server]
		if h == nil {
			continue
		}
		k := float64(st.Clients)
		if b := residentBytes(h); b != nil {
			memK = append(memK, point{k, *b})
		}
		if pct := cpuPct(h); pct != nil {
			cpuK = append(cpuK, point{k, *pct * 1e4})
		}
		if h.Connections == nil || h.Connections.Current == nil {
			continue
		}
		conns := *h.Connections.Current
		if b := residentBytes(h); b != nil {
			mem = append(mem, point{conns, *b})
		}
		if pct := cpuPct(h); pct != nil {
			cpu = append(cpu, point{conns, *pct * 1e4})
		}
		if pool, ok := poolConnections(st, c.Server); ok {
			mon = append(mon, point{float64(st.Clients), conns - pool})
		}
		if l := h.Connections.Limit; l != nil && (c.Limit == nil || *l > *c.Limit) {
			c.Limit = l
		}
	}
	c.MemoryBytes, c.CPUusPerS, c.MonitorsPerClient = slope(mem), slope(cpu), slope(mon)
	c.MemoryBytesPerClient, c.CPUusPerSPerClient = slope(memK), slope(cpuK)
	for _, f := range []struct {
		what string
		got  *results.Interval
		pts  []point
	}{{"memory per connection", c.MemoryBytes, mem}, {"CPU per connection", c.CPUusPerS, cpu}, {"monitors per client", c.MonitorsPerClient, mon}} {
		switch {
		case f.got != nil:
		case len(f.pts) == 0 && len(memK)+len(cpuK) > 0 && f.what != "monitors per client":
			c.Notes = append(c.Notes, f.what+": the server reports no connections.current; per client (its pool and monitors together) instead")
		case len(f.pts) == 0:
			c.Notes = append(c.Notes, f.what+": the server reported none of what it needs")
		default:
			c.Notes = append(c.Notes, fmt.Sprintf("%s: %d step(s) measured it; an interval needs %d (more --trials or client levels)", f.what, len(f.pts), minPoints))
		}
	}
	levels := slices.Sorted(func(yield func(int) bool) {
		for k := range byClients {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range levels {
		c.Levels = append(c.Levels, level(k, byClients[k], c.Server))
	}
	return c, nil
}

// seriesKey is what the steps of one connection sweep share: all but
// their clients and trial.
func seriesKey(st *results.StepResult) string {
	return st.Target + "\x00" + st.Workload + "\x00" + st.PoolSetting + "\x00" + strconv.Itoa(st.Rate) + "\x00" + strconv.Itoa(st.Concurrency)
}

// sweepSteps are the measured steps of the run's connection sweep, in
// file order, or nil when it has none.
func sweepSteps(r *results.Results) []*results.StepResult {
	groups := map[string][]*results.StepResult{}
	var order []string
	for i := range r.Steps {
		st := &r.Steps[i]
		if st.Mode != results.ModeOpen || st.Rate <= 0 || st.TargetFailed != nil || st.Partial || st.Interrupted || st.Server == nil {
			continue
		}
		k := seriesKey(st)
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], st)
	}
	var best []*results.StepResult
	bestLevels := 1
	for _, k := range order {
		if n := distinctClients(groups[k]); n > bestLevels {
			best, bestLevels = groups[k], n
		}
	}
	return best
}

func distinctClients(steps []*results.StepResult) int {
	seen := map[int]bool{}
	for _, st := range steps {
		seen[st.Clients] = true
	}
	return len(seen)
}

// busiestHost is the host that held the most connections in any of the
// steps: the one the clients' pools are to (a standalone, a replica set's
// primary, a router); where none reports its connections, the first host
// by name.
func busiestHost(steps []*results.StepResult) string {
	best, most := "", -1.0
	for _, st := range steps {
		for h := range st.Server.Hosts {
			if best == "" || h < best {
				best = h
			}
		}
	}
	for _, st := range steps {
		for _, host := range slices.Sorted(func(yield func(string) bool) {
			for h := range st.Server.Hosts {
				if !yield(h) {
					return
				}
			}
		}) {
			h := st.Server.Hosts[host]
			if h != nil && h.Connections != nil && h.Connections.Current != nil && *h.Connections.Current > most {
				best, most = host, *h.Connections.Current
			}
		}
	}
	return best
}

// residentBytes is the server's resident memory in bytes: its own report
// (mem.resident, in MiB as MongoDB counts them), else the process's as
// poolsweep read it (rss_mb).
func residentBytes(h *results.ServerSample) *float64 {
	mb := cmp.Or(h.ResidentMB, h.RSSMB)
	if mb == nil {
		return nil
	}
	b := *mb * (1 << 20)
	return &b
}

// cpuPct is the server's CPU in % of one core: its own report, else the
// process's as poolsweep read it.
func cpuPct(h *results.ServerSample) *float64 { return cmp.Or(h.ReportedCPUPct, h.CPUPct) }

// poolConnections is what the step's pools held open to host when its
// window opened: the host's own entry, or every pool's when the step kept
// pools to one host only.
func poolConnections(st *results.StepResult, host string) (float64, bool) {
	for _, hp := range st.Pool.Hosts {
		if hp.Host == host {
			return float64(hp.ConnectionsOpen), true
		}
	}
	if len(st.Pool.Hosts) <= 1 && len(st.Server.Hosts) == 1 {
		return float64(st.Pool.ConnectionsOpen), true
	}
	return 0, false
}

// level is one client count's medians over its trials.
func level(k int, steps []*results.StepResult, host string) Level {
	l := Level{Clients: k, Trials: len(steps)}
	var conns, res, cpu, hello []float64
	for _, st := range steps {
		if st.Pool.HeartbeatsPerS != nil {
			hello = append(hello, *st.Pool.HeartbeatsPerS)
		}
		h := st.Server.Hosts[host]
		if h == nil {
			continue
		}
		if h.Connections != nil && h.Connections.Current != nil {
			conns = append(conns, *h.Connections.Current)
		}
		if b := residentBytes(h); b != nil {
			res = append(res, *b)
		}
		if pct := cpuPct(h); pct != nil {
			cpu = append(cpu, *pct)
		}
	}
	if m := median(conns); m != nil {
		l.Connections = *m
	}
	l.ResidentBytes, l.CPUPct, l.HelloPerS = median(res), median(cpu), median(hello)
	return l
}

func median(v []float64) *float64 {
	if len(v) == 0 {
		return nil
	}
	s := slices.Sorted(slices.Values(v))
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return &m
}

// refusal is the first client count at which the server refused or
// failed connections, and what was said: a step of the sweep's series
// that failed to run (its error), or one, measured or marked as a
// failure of the target, whose connections failed (network errors,
// failed checkouts, connections lost: its error sample, the driver's
// words for what the server did) or reached the server's limit. A
// server that refuses a connection past its limit closes it during the
// handshake, which a sweep sees as the target failing: so the steps the
// cost was not fitted from count here.
func refusal(r *results.Results, first *results.StepResult, host string) *Refusal {
	same := func(target, workload, pool string, rate, conc int) bool {
		return target == first.Target && workload == first.Workload && pool == first.PoolSetting && rate == first.Rate && conc == first.Concurrency
	}
	type seen struct {
		conns  float64
		reason string
	}
	at := map[int]*seen{}
	note := func(k int, conns float64, reason string) {
		s := at[k]
		if s == nil {
			s = &seen{}
			at[k] = s
		}
		s.conns = max(s.conns, conns)
		if s.reason == "" {
			s.reason = reason
		}
	}
	if r.End != nil {
		for _, f := range r.End.FailedSteps {
			if !f.TargetFailed && same(f.Target, f.Workload, f.PoolSetting, f.Rate, f.Concurrency) {
				note(f.Clients, 0, f.Error)
			}
		}
	}
	for i := range r.Steps {
		st := &r.Steps[i]
		if st.Mode != results.ModeOpen || !same(st.Target, st.Workload, st.PoolSetting, st.Rate, st.Concurrency) {
			continue
		}
		var h *results.ServerSample
		if st.Server != nil {
			h = st.Server.Hosts[host]
		}
		var conns float64
		if h != nil && h.Connections != nil && h.Connections.Peak != nil {
			conns = *h.Connections.Peak
		}
		switch {
		case st.Errors.Network > 0 || st.Pool.CheckoutFailed > 0 || st.Pool.ConnectionsLost > 0:
			why := st.ErrorSample
			if why == "" {
				why = fmt.Sprintf("%d network errors, %d failed checkouts, %d connections lost", st.Errors.Network, st.Pool.CheckoutFailed, st.Pool.ConnectionsLost)
			}
			note(st.Clients, conns, why)
		case h != nil && h.Connections != nil && h.Connections.Peak != nil && h.Connections.Limit != nil && *h.Connections.Peak >= *h.Connections.Limit:
			note(st.Clients, conns, fmt.Sprintf("the server's connections reached its limit, %.0f", *h.Connections.Limit))
		}
	}
	if len(at) == 0 {
		return nil
	}
	k := slices.Min(slices.Collect(maps.Keys(at)))
	return &Refusal{Clients: k, Connections: at[k].conns, Reason: textfmt.Line(at[k].reason)}
}
