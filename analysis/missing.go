package analysis

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Missing is the planned steps of one series (target × workload × pool
// setting × clients) that a results file does not hold: never run, still
// to run, cut short (interrupted steps are not measurements), or measured
// without some of an agent run's agents (partial steps). A run that
// ended partial, interrupted or failed, or never wrote its end record,
// leaves some.
type Missing struct {
	File     string `json:"file"`
	Target   string `json:"target"`
	Workload string `json:"workload,omitempty"`
	Pool     string `json:"pool"`
	Clients  int    `json:"clients"`
	// Planned is the series' steps in the header's plan; Measured how many
	// of them the file holds.
	Planned  int `json:"planned"`
	Measured int `json:"measured"`
	// Steps groups the missing steps: concurrency levels missing the same
	// trials.
	Steps []MissingGroup `json:"steps"`
	// RunEnd is how the run ended: "the run ended partial: 2 step(s)
	// failed", "the run has no end record (still running, or killed)".
	RunEnd string `json:"run_end"`
	// Text is the line analyze (and report) prints, with names escaped:
	// "missing: target=sim pool=match C=32,64 (trial 2); the run ended
	// partial: 2 step(s) failed".
	Text string `json:"text"`
}

// MissingGroup is concurrency levels that miss the same trials.
type MissingGroup struct {
	Concurrency []int `json:"concurrency"`
	Trials      []int `json:"trials"`
}

// MissingSteps compares each file's planned grid (header.plan: concurrency
// × pools × clients × trials, for each target and workload) with the steps
// it holds and returns one Missing per series that lacks any, in plan
// order. A file whose header has no plan (older or hand-made files), or
// whose plan is a search, is skipped: what was planned cannot be told.
func MissingSteps(rs []*results.Results) []Missing {
	var out []Missing
	for _, r := range rs {
		if r != nil {
			out = append(out, missingIn(r, len(rs) > 1)...)
		}
	}
	return out
}

func missingIn(r *results.Results, nameFile bool) []Missing {
	plan := r.Header.Plan
	pools := plannedPools(plan)
	// An adaptive search (plan.search) chooses its steps as it goes: the
	// grid levels it did not measure were never planned.
	if len(plan.Concurrency) == 0 || plan.Trials < 1 || len(pools) == 0 || plan.Search != nil || profileOnly(r) {
		return nil
	}
	clients := max(plan.Clients, 1)
	var targets []string
	for _, t := range r.Header.Targets {
		targets = append(targets, t.Name)
	}
	if len(targets) == 0 {
		targets = distinctSteps(r.Steps, func(s *results.StepResult) string { return s.Target })
	}
	workloads := r.Header.Workload.Mixes
	if len(workloads) == 0 {
		// One workload: the steps carry its series label, which the header
		// does not (it has the workload's name).
		workloads = distinctSteps(r.Steps, func(s *results.StepResult) string { return s.Workload })
		if len(workloads) == 0 {
			workloads = []string{r.Header.Workload.Name}
		}
	}

	type key struct {
		target, workload, pool string
		c, k, trial            int
	}
	have := map[key]bool{}
	for i := range r.Steps {
		// A partial step (it ran without some agents) is left out of the
		// knee as an interrupted one is: not measured as planned; so is one
		// during which the target failed.
		if s := &r.Steps[i]; s.Measured() && !s.Partial {
			have[key{s.Target, s.Workload, s.PoolSetting, s.Concurrency, max(s.Clients, 1), s.Trial}] = true
		}
	}
	// A grid whose --trials is a maximum plans one trial per level; the
	// others are taken where they pay, and were never owed.
	planned := plan.Trials
	if plan.TrialsAtMost {
		planned = 1
	}
	runEnd := runEndPhrase(r)
	var out []Missing
	for _, t := range targets {
		for _, w := range workloads {
			for _, p := range pools {
				m := Missing{File: r.Path, Target: t, Workload: w, Pool: p, Clients: clients, RunEnd: runEnd}
				miss := map[int][]int{} // concurrency → missing trials
				// The target's own levels, where it had them.
				for _, c := range plan.LevelsOf(t) {
					for tr := 1; tr <= planned; tr++ {
						m.Planned++
						if have[key{t, w, p, c, clients, tr}] {
							m.Measured++
						} else {
							miss[c] = append(miss[c], tr)
						}
					}
				}
				if len(miss) == 0 {
					continue
				}
				m.Steps = groupMissing(plan.LevelsOf(t), miss)
				m.Text = missingText(m, planned, len(workloads) > 1, nameFile)
				out = append(out, m)
			}
		}
	}
	return out
}

// plannedPools is the pool settings of the plan as steps record them.
func plannedPools(p results.PlanInfo) []string {
	if len(p.Pools) > 0 {
		out := make([]string, len(p.Pools))
		for i, n := range p.Pools {
			out[i] = strconv.Itoa(n)
		}
		return out
	}
	if p.Pool == "match" {
		return []string{"match"}
	}
	return nil
}

func distinctSteps(steps []results.StepResult, f func(*results.StepResult) string) []string {
	var out []string
	for i := range steps {
		if v := f(&steps[i]); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// groupMissing puts together, in plan order, the levels missing the same
// trials.
func groupMissing(concs []int, miss map[int][]int) []MissingGroup {
	var out []MissingGroup
	for _, c := range concs {
		trials, ok := miss[c]
		if !ok {
			continue
		}
		i := slices.IndexFunc(out, func(g MissingGroup) bool { return slices.Equal(g.Trials, trials) })
		if i < 0 {
			out = append(out, MissingGroup{Trials: trials})
			i = len(out) - 1
		}
		out[i].Concurrency = append(out[i].Concurrency, c)
	}
	return out
}

// runEndPhrase says how the run ended, for the missing lines.
func runEndPhrase(r *results.Results) string {
	e := r.End
	if e == nil {
		return "the run has no end record (still running, or killed)"
	}
	s := "the run ended " + textfmt.Escape(e.Status)
	switch {
	case e.Reason != "":
		s += ": " + textfmt.Escape(e.Reason)
	case r.Header.Plan.Steps > 0:
		s += fmt.Sprintf(": %d of %d planned steps recorded", e.Steps, r.Header.Plan.Steps)
	}
	return s
}

// missingText is the line for one series.
func missingText(m Missing, trials int, showWorkload, showFile bool) string {
	var b strings.Builder
	b.WriteString("missing: ")
	if showFile {
		b.WriteString(textfmt.Escape(m.File) + ": ")
	}
	b.WriteString("target=" + textfmt.Escape(m.Target))
	if showWorkload {
		b.WriteString(" workload=" + textfmt.Escape(m.Workload))
	}
	b.WriteString(" pool=" + textfmt.Escape(m.Pool))
	if m.Clients > 1 {
		fmt.Fprintf(&b, " clients=%d", m.Clients)
	}
	for i, g := range m.Steps {
		if i > 0 {
			b.WriteString(",")
		}
		cs := make([]string, len(g.Concurrency))
		for j, c := range g.Concurrency {
			cs[j] = strconv.Itoa(c)
		}
		b.WriteString(" C=" + strings.Join(cs, ","))
		if t := trialsPhrase(g.Trials, trials); t != "" {
			b.WriteString(" (" + t + ")")
		}
	}
	b.WriteString("; " + m.RunEnd)
	return b.String()
}

// trialsPhrase names missing trials out of planned: "" with one trial
// planned, "all 3 trials", "trial 2", "trials 2–3", "trials 1, 3".
func trialsPhrase(missing []int, planned int) string {
	switch {
	case planned <= 1:
		return ""
	case len(missing) == planned:
		return fmt.Sprintf("all %d trials", planned)
	case len(missing) == 1:
		return "trial " + strconv.Itoa(missing[0])
	}
	var parts []string
	for i := 0; i < len(missing); {
		j := i
		for j+1 < len(missing) && missing[j+1] == missing[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, strconv.Itoa(missing[i])+"–"+strconv.Itoa(missing[j]))
		} else {
			parts = append(parts, strconv.Itoa(missing[i]))
		}
		i = j + 1
	}
	return "trials " + strings.Join(parts, ", ")
}

// profileOnly says r ran a profile (sweep --profile) and nothing else:
// its steps are timelines, one per pool setting and trial, not points of
// the concurrency grid, so no grid step is owed.
func profileOnly(r *results.Results) bool {
	for i := range r.Steps {
		if r.Steps[i].Mode != results.ModeProfile {
			return false
		}
	}
	return len(r.Steps) > 0
}
