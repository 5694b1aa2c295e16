package compare

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// stepKey identifies a step across trials; role is "" when each side has a
// single target (or Options name them).
type stepKey struct {
	role     string
	workload string
	c        int
	pool     string
	k        int
	rate     int // open loop (sweep --rate); 0 for the closed loop
}

// side is one side's steps grouped by key.
type side struct {
	name   string // "baseline" or "candidate"
	files  []string
	steps  map[stepKey][]*results.StepResult
	keys   []stepKey // first-appearance order
	target map[string]string
}

// collect gathers the usable steps of a side: interrupted steps measured a
// cut-short window, and steps during which the target failed measured a
// deployment that was not all there; both are left out, with a note. A
// profile step (sweep --profile) is a timeline with no steady window to
// pair: analyze compares its pool settings (analysis.Scenarios).
func collect(rs []*results.Results) ([]*results.StepResult, []string) {
	var out []*results.StepResult
	var notes []string
	for _, r := range rs {
		skipped, failed, profiles := 0, 0, 0
		for i := range r.Steps {
			switch {
			case r.Steps[i].Mode == results.ModeProfile:
				profiles++
			case r.Steps[i].Interrupted:
				skipped++
			case r.Steps[i].TargetFailed != nil:
				failed++
			default:
				out = append(out, &r.Steps[i])
			}
		}
		if skipped > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d interrupted step(s) ignored", textfmt.Escape(r.Path), skipped))
		}
		if failed > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d step(s) during which the target failed ignored", textfmt.Escape(r.Path), failed))
		}
		if profiles > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d profile step(s) left out: analyze compares their pool settings", textfmt.Escape(r.Path), profiles))
		}
	}
	return out, notes
}

func sameFiles(a, b []*results.Results) bool {
	return slices.Equal(paths(a), paths(b))
}

// maxShownBytes is the longest name shown whole: a path of a usual length
// stays readable, and a list of them (textfmt.List) fits one line.
const maxShownBytes = 100

// shown joins names from the inputs (paths, targets, pools) for a message
// or a heading, each escaped and one longer than maxShownBytes cut to its
// token (textfmt.Token), as textfmt.List lists them: a side of a thousand
// targets or files heads the report in one line.
func shown(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		if len(n) > maxShownBytes {
			out[i] = textfmt.Token(n)
		} else {
			out[i] = textfmt.Escape(n)
		}
	}
	return textfmt.List(out, ", ")
}

func paths(rs []*results.Results) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Path
	}
	return out
}

// targetsOf lists the distinct targets of steps in first-appearance order.
func targetsOf(steps []*results.StepResult) []string {
	var out []string
	for _, s := range steps {
		if !slices.Contains(out, s.Target) {
			out = append(out, s.Target)
		}
	}
	return out
}

func pickTarget(steps []*results.StepResult, name, sideName string, rs []*results.Results) ([]*results.StepResult, error) {
	var out []*results.StepResult
	for _, s := range steps {
		if s.Target == name {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		// The file's own target names are what it holds, never quoted
		// in an error: their count says enough, analyze names them.
		return nil, fmt.Errorf("%s target %s is not in %s, which holds %d other target(s) (poolsweep analyze names them)", sideName, textfmt.Token(name),
			shown(paths(rs)), len(targetsOf(steps)))
	}
	return out, nil
}

// group keys a side's steps for pairing; in an A/B over a series axis
// their workload is their label without their value on it.
// axisSides reads --baseline and --candidate as two values of one series
// axis when neither names a target of its side; axis is "" when they are
// targets (or name nothing, which pickTarget then says).
func axisSides(bAll, cAll []*results.StepResult, o Options) (results.Axis, [2]string, error) {
	if slices.Contains(targetsOf(bAll), o.Baseline) || slices.Contains(targetsOf(cAll), o.Candidate) {
		return "", [2]string{}, nil
	}
	ba, bv, bok := results.ParseAxisValue(o.Baseline)
	ca, cv, cok := results.ParseAxisValue(o.Candidate)
	switch {
	case !bok || !cok:
		return "", [2]string{}, nil
	case ba != ca:
		return "", [2]string{}, fmt.Errorf("--baseline %s is a %s and --candidate %s a %s: an A/B varies one axis", textfmt.Short(o.Baseline), ba, textfmt.Short(o.Candidate), ca)
	case bv == cv:
		return "", [2]string{}, fmt.Errorf("--baseline and --candidate are both %s: nothing to compare", results.AxisText(ba, bv))
	}
	return ba, [2]string{bv, cv}, nil
}

// pickAxis keeps the steps run with value on axis a.
func pickAxis(steps []*results.StepResult, a results.Axis, value, sideName string, rs []*results.Results) ([]*results.StepResult, error) {
	var out []*results.StepResult
	var seen []string
	for _, s := range steps {
		v := s.AxisValue(a)
		if v == value {
			out = append(out, s)
		}
		if v != "" && !slices.Contains(seen, v) {
			seen = append(seen, v)
		}
	}
	if len(out) == 0 {
		have := "the axis was not swept"
		if len(seen) > 0 {
			have = fmt.Sprintf("%d other value(s) of it were swept; poolsweep analyze names them", len(seen))
		}
		return nil, fmt.Errorf("%s: no step of %s ran with %s (%s)", sideName, shown(paths(rs)), results.AxisText(a, value), have)
	}
	return out, nil
}

func group(name string, rs []*results.Results, steps []*results.StepResult, byRole bool, axis results.Axis) *side {
	s := &side{name: name, files: paths(rs), steps: map[stepKey][]*results.StepResult{}, target: map[string]string{}}
	for _, st := range steps {
		wl := st.Workload
		if axis != "" {
			wl = st.WorkloadWithout(axis)
		}
		k := stepKey{workload: wl, c: st.Concurrency, pool: st.PoolSetting, k: max(st.Clients, 1), rate: st.Rate}
		if byRole {
			k.role = st.Target
		}
		if _, ok := s.steps[k]; !ok {
			s.keys = append(s.keys, k)
		}
		s.steps[k] = append(s.steps[k], st)
		s.target[k.role] = st.Target
	}
	return s
}

func describe(rs []*results.Results, steps []*results.StepResult) sideInputs {
	d := sideInputs{Files: paths(rs), Targets: targetsOf(steps), Steps: len(steps)}
	for _, r := range rs {
		if r.Header.RunID != "" && !slices.Contains(d.RunIDs, r.Header.RunID) {
			d.RunIDs = append(d.RunIDs, r.Header.RunID)
		}
	}
	return d
}

// unmatched explains why key k of side s has no partner in side o, naming
// the first dimension on which o has nothing like it.
func unmatched(s, o *side, k stepKey, byRole bool) unmatchedStep {
	u := unmatchedStep{Side: s.name, Target: s.target[k.role], Workload: k.workload,
		Concurrency: k.c, Pool: k.pool, Clients: k.k, Trials: len(s.steps[k]), Rate: k.rate}
	var same []stepKey
	for _, ok := range o.keys {
		if ok.role == k.role {
			same = append(same, ok)
		}
	}
	if byRole && len(same) == 0 {
		u.Reason = fmt.Sprintf("%s has no target %q", o.name, k.role)
		return u
	}
	workloads := distinct(same, func(x stepKey) string { return x.workload })
	if !slices.Contains(workloads, k.workload) {
		if len(workloads) == 1 {
			bw, cw := k.workload, workloads[0]
			if s.name == "candidate" {
				bw, cw = cw, bw
			}
			u.Reason = fmt.Sprintf("workload differs: baseline %q vs candidate %q", bw, cw)
		} else {
			u.Reason = fmt.Sprintf("%s has no workload %q", o.name, k.workload)
		}
		return u
	}
	same = filter(same, func(x stepKey) bool { return x.workload == k.workload })
	if rs := distinct(same, func(x stepKey) int { return x.rate }); !slices.Contains(rs, k.rate) {
		u.Reason = fmt.Sprintf("%s has no %s (it has %s)", o.name, levelLabel(k.c, k.rate), joinLevels(same))
		return u
	}
	same = filter(same, func(x stepKey) bool { return x.rate == k.rate })
	if cs := distinct(same, func(x stepKey) int { return x.c }); !slices.Contains(cs, k.c) {
		slices.Sort(cs)
		u.Reason = fmt.Sprintf("%s has no concurrency=%d (it has %s)", o.name, k.c, joinInts(cs))
		return u
	}
	same = filter(same, func(x stepKey) bool { return x.c == k.c })
	if ps := distinct(same, func(x stepKey) string { return x.pool }); !slices.Contains(ps, k.pool) {
		u.Reason = fmt.Sprintf("%s has no pool=%s at concurrency=%d (it has %s)", o.name, textfmt.Escape(k.pool), k.c, shown(ps))
		return u
	}
	same = filter(same, func(x stepKey) bool { return x.pool == k.pool })
	ks := distinct(same, func(x stepKey) int { return x.k })
	slices.Sort(ks)
	u.Reason = fmt.Sprintf("%s has no clients=%d at concurrency=%d pool=%s (it has %s)", o.name, k.k, k.c, textfmt.Escape(k.pool), joinInts(ks))
	return u
}

func distinct[T comparable](keys []stepKey, f func(stepKey) T) []T {
	var out []T
	for _, k := range keys {
		if v := f(k); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func filter(keys []stepKey, keep func(stepKey) bool) []stepKey {
	var out []stepKey
	for _, k := range keys {
		if keep(k) {
			out = append(out, k)
		}
	}
	return out
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// sortSteps orders steps by role and workload as the baseline first ran
// them, then pool, clients and concurrency, so tables read like curves.
func sortSteps(steps []*Step, order []stepKey) {
	roleIdx, wlIdx := map[string]int{}, map[string]int{}
	for _, k := range order {
		if _, ok := roleIdx[k.role]; !ok {
			roleIdx[k.role] = len(roleIdx)
		}
		if _, ok := wlIdx[k.workload]; !ok {
			wlIdx[k.workload] = len(wlIdx)
		}
	}
	slices.SortStableFunc(steps, func(a, b *Step) int {
		if c := roleIdx[a.role] - roleIdx[b.role]; c != 0 && len(roleIdx) > 1 {
			return c
		}
		if c := wlIdx[a.Workload] - wlIdx[b.Workload]; c != 0 {
			return c
		}
		if c := comparePool(a.Pool, b.Pool); c != 0 {
			return c
		}
		if c := a.Clients - b.Clients; c != 0 {
			return c
		}
		if c := a.Concurrency - b.Concurrency; c != 0 {
			return c
		}
		return a.Rate - b.Rate
	})
}

// comparePool puts "match" first, then numbers in numeric order.
func comparePool(a, b string) int {
	if a == b {
		return 0
	}
	na, ea := strconv.Atoi(a)
	nb, eb := strconv.Atoi(b)
	switch {
	case ea != nil && eb != nil:
		return strings.Compare(a, b)
	case ea != nil:
		return -1
	case eb != nil:
		return 1
	}
	return na - nb
}
