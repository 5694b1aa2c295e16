package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/fdlimit"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// driverMonitors is the connections the driver keeps to each host beside
// its pool: the monitor and, in streaming mode, the round-trip-time one.
const driverMonitors = 2

// checkFiles refuses a sweep whose largest step does not fit this
// process's open-file limit (raising the soft limit to the hard one
// first, fdlimit.Ensure): every client's pool to each of hosts (a
// sharded target's routers; 1 otherwise) with its monitors, and the
// descriptors the process keeps for itself. When the sweep starts the
// server on this machine (the embedded server, a sim: target), that
// process inherits the same limit and accepts the connections of every
// process that sweeps it (procs: --spawn's agents, or 1), so it must fit
// them all. Past the limit, the kernel refuses connections and a sweep
// would count the refusals as the server's timeouts.
func checkFiles(p plan.Plan, hosts, procs int, local bool) error {
	maxC := p.MaxLevel() // the largest over every target's levels
	conns, flag := maxC, "--concurrency"
	if p.IsOpen() {
		flag = "--max-in-flight"
	}
	if !p.Pool.Match {
		if top := slices.Max(p.Pool.Sizes); top < maxC {
			conns, flag = top, "--pool"
		}
	}
	hosts = max(hosts, 1)
	perClient := uint64(conns+driverMonitors) * uint64(hosts)
	client := uint64(p.Clients) * perClient
	need := client + fdlimit.Reserve
	if local {
		need = max(need, uint64(max(procs, 1))*client+fdlimit.Reserve)
	}
	if err := fdlimit.Ensure(need); err != nil {
		total := uint64(conns) * uint64(hosts) * uint64(p.Clients)
		var parts []string
		if hosts > 1 {
			parts = append(parts, fmt.Sprintf("%d hosts", hosts))
		}
		if p.Clients > 1 {
			parts = append(parts, fmt.Sprintf("%d clients", p.Clients))
		}
		if local && procs > 1 {
			total *= uint64(procs)
			parts = append(parts, fmt.Sprintf("%d agents to the server this sweep starts", procs))
		}
		how := ""
		if len(parts) > 0 {
			how = fmt.Sprintf(" (%d each × %s)", conns, strings.Join(parts, " × "))
		}
		lower := flag
		if p.Clients > 1 {
			lower += " or --clients"
		}
		return errext.Usagef("%s: the largest step opens %d connections%s; with the driver's monitors and the process's own files they %w; or lower %s",
			flag, total, how, err, lower)
	}
	return nil
}

// CheckPlannedFiles is checkFiles for each target before anything
// starts: one host for a URI (its routers are known once connected,
// checkTargetFiles), a sim: target's routers from its spec, and whether
// the sweep starts the server itself.
func CheckPlannedFiles(p plan.Plan, targets []topology.Target, procs int) error {
	for _, t := range targets {
		hosts := 1
		if t.SimSpec != "" {
			if spec, err := sim.ParseSpec(t.SimSpec); err == nil && spec.Sharded() {
				hosts = max(spec.Routers, 1)
			}
		}
		if err := checkFiles(p, hosts, procs, t.Embedded || t.SimSpec != ""); err != nil {
			return err
		}
	}
	return nil
}

// checkTargetFiles is checkFiles again once the targets are detected: a
// sharded target's clients keep a pool to each of its routers.
func checkTargetFiles(p plan.Plan, targets []*Target, procs int) error {
	for _, t := range targets {
		if t.Header.Topology != topology.Sharded || len(t.Header.Hosts) < 2 {
			continue
		}
		if err := checkFiles(p, len(t.Header.Hosts), procs, t.child != nil); err != nil {
			return fmt.Errorf("target %s: %w", t.Name, err)
		}
	}
	return nil
}

// CheckRunTime refuses a sweep whose every step at its longest takes more
// than plan.MaxRunTime over its targets (each at its own levels) and
// series; a search with --budget ends at its budget.
func CheckRunTime(p plan.Plan, targets []string, series int) error {
	total, shared := 0.0, -1.0
	for _, t := range targets {
		// The targets without levels of their own share one grid: it is
		// laid out once, however many they are.
		_, own := p.TargetConcurrency[t]
		if !own && shared >= 0 {
			total += shared
			continue
		}
		s := p.LongestS(p.Steps([]string{t}, []string{"x"}))
		if !own {
			shared = s
		}
		total += s
	}
	total *= float64(series)
	if p.Search != nil && p.Search.BudgetS > 0 {
		total = min(total, p.Search.BudgetS)
	}
	flags := "--concurrency, --pool and --trials"
	switch {
	case p.IsProfile():
		flags = "--profile, --pool and --trials"
	case p.IsOpen():
		flags = "--rate, --pool and --trials"
	}
	if len(targets) > 1 || series > 1 {
		flags = fmt.Sprintf("%s over %d target(s) × %d series", flags, len(targets), series)
	}
	if err := plan.CheckRunTime(flags, series*p.SeriesSteps(targets), "steps", total); err != nil {
		if p.IsProfile() {
			return errext.Usagef("%w; plan fewer steps (pool sizes, settings, trials), or a shorter profile", err)
		}
		return errext.Usagef("%w; plan fewer steps, or shorter ones (--warmup, --duration; with auto ones --max-warmup, --max-duration)", err)
	}
	return nil
}
