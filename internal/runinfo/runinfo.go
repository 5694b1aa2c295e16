// Package runinfo holds the facts about runs and steps that the figures
// (plot) and the report both show, in one place so that they name and
// order things alike: a run's name, a target's server kind, the
// connections of a step, the order of pool settings.
package runinfo

import (
	"math"
	"path/filepath"
	"strconv"

	"github.com/poolsweep/poolsweep/results"
)

// Connections is the step's measured connection count, or the planned
// K × min(C, P) when the runner did not record one.
func Connections(s *results.StepResult) float64 {
	if s.Connections > 0 {
		return float64(s.Connections)
	}
	k := max(s.Clients, 1)
	c := s.Concurrency
	if s.MaxPoolSize > 0 && s.MaxPoolSize < c {
		c = s.MaxPoolSize
	}
	return float64(k * c)
}

// CallsDiffer says the workload's calls hold several ops, so calls/s is a
// different number from ops/s and worth its own line.
func CallsDiffer(s *results.StepResult) bool {
	return s.CallsPerS > 0 && s.OpsPerS/s.CallsPerS > 1.05
}

// Rank is k's place in m (a target's place in its header, say), or after
// every known one.
func Rank(m map[string]int, k string) int {
	if r, ok := m[k]; ok {
		return r
	}
	return math.MaxInt
}

// PoolRank sorts "match" first and numeric pools by size.
func PoolRank(p string) int {
	if p == "match" {
		return -1
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		return math.MaxInt
	}
	return n
}

// RunName tells result files apart: the run id, else the directory name,
// else the file name.
func RunName(r *results.Results) string {
	if r.Header.RunID != "" {
		return r.Header.RunID
	}
	if d := filepath.Base(filepath.Dir(r.Path)); d != "." && d != "/" {
		return d
	}
	return filepath.Base(r.Path)
}

// SharedTargets reports target names that occur in more than one file.
func SharedTargets(rs []*results.Results) map[string]bool {
	files := map[string]int{}
	for _, r := range rs {
		seen := map[string]bool{}
		for i := range r.Steps {
			seen[r.Steps[i].Target] = true
		}
		for t := range seen {
			files[t]++
		}
	}
	out := map[string]bool{}
	for t, n := range files {
		if n > 1 {
			out[t] = true
		}
	}
	return out
}

// ServerKind says what kind of server a target is when it is not a real
// MongoDB, because its numbers must not be read as MongoDB's.
func ServerKind(h *results.TargetHeader) string {
	if h == nil {
		return ""
	}
	switch h.ServerKind {
	case "ferretdb":
		return "embedded FerretDB"
	case "simulator":
		return "simulated"
	}
	return ""
}
