package compare

import (
	"github.com/poolsweep/poolsweep/results"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// headline is the comparison's one-line finding about throughput, for a
// figure's title or a summary: the largest significant change among the
// verdicts' reference steps (each workload's baseline peak).
type headline struct {
	// Text is e.g. "throughput −17% [−19%, −14%] at C=64", or
	// "throughput +5.0% at C=8 (unconfirmed: too few trials)", or
	// "no significant change in throughput".
	Text string
	// Step is the reference step the text is about; nil when no change
	// was found.
	Step *Step
	// Confirmed says the change is significant at Alpha; false for an
	// unconfirmed change (too few trials to test) and for no change.
	Confirmed bool
}

// Headline picks the largest significant throughput change among the
// verdicts' reference steps; failing that the largest unconfirmed one,
// flagged; failing that it says there is no significant change. The
// workload is named only when there are several verdicts.
func (c *Comparison) Headline() headline {
	var best, bestUnconf *metricComparison
	var bestStep, unconfStep *Step
	for _, v := range c.Verdicts {
		for _, s := range c.Steps {
			if !v.refersTo(s) {
				continue
			}
			m := s.Metrics[OpsPerS]
			if m == nil || m.DeltaPct == nil {
				continue
			}
			switch {
			case m.Significant && (best == nil || math.Abs(*m.DeltaPct) > math.Abs(*best.DeltaPct)):
				best, bestStep = m, s
			case m.Status == StatusUnconfirmed && (bestUnconf == nil || math.Abs(*m.DeltaPct) > math.Abs(*bestUnconf.DeltaPct)):
				bestUnconf, unconfStep = m, s
			}
		}
	}
	where := func(s *Step) string {
		w := "at " + levelLabel(s.Concurrency, s.Rate)
		if len(c.Verdicts) > 1 && s.Workload != "" {
			w += ", " + s.Workload
		}
		return w
	}
	switch {
	case best != nil:
		t := "throughput " + textfmt.SignedPct(*best.DeltaPct)
		if best.CILowPct != nil && best.CIHighPct != nil {
			t += " [" + textfmt.SignedPct(*best.CILowPct) + ", " + textfmt.SignedPct(*best.CIHighPct) + "]"
		}
		return headline{Text: t + " " + where(bestStep), Step: bestStep, Confirmed: true}
	case bestUnconf != nil:
		return headline{Text: "throughput " + textfmt.SignedPct(*bestUnconf.DeltaPct) + " " + where(unconfStep) + " (unconfirmed: too few trials)", Step: unconfStep}
	}
	return headline{Text: "no significant change in throughput"}
}

// refersTo says s is the verdict's reference step.
func (v verdict) refersTo(s *Step) bool {
	if s.Workload != v.Workload || s.Concurrency != v.Concurrency || s.Pool != v.Pool || s.Clients != v.Clients || s.Rate != v.Rate {
		return false
	}
	return v.Target == "" || s.Target == v.Target
}

// OneFile says both sides were read from the same files: one file's two
// targets compared (--baseline a --candidate b).
func (c *Comparison) OneFile() bool {
	return slices.Equal(c.Baseline.Files, c.Candidate.Files)
}

// Name names a side for a legend: its run ids and file names, or in the
// one-file mode its target with the run.
func (s sideInputs) Name(oneFile bool) string {
	files := baseNames(s.Files)
	if s.Series != "" {
		run := strings.Join(s.RunIDs, ", ")
		if run == "" {
			run = strings.Join(files, ", ")
		}
		return s.Series + " (" + run + ")"
	}
	if oneFile {
		run := strings.Join(s.RunIDs, ", ")
		if run == "" {
			run = strings.Join(files, ", ")
		}
		return "target " + strings.Join(s.Targets, ", ") + " (" + run + ")"
	}
	if len(s.RunIDs) > 0 {
		return strings.Join(s.RunIDs, ", ") + " (" + strings.Join(files, ", ") + ")"
	}
	return strings.Join(files, ", ")
}

// ShortName names a side in a title: its target in the one-file mode,
// else its run ids, else its file names.
func (s sideInputs) ShortName(oneFile bool) string {
	switch {
	case s.Series != "":
		return s.Series
	case oneFile:
		return strings.Join(s.Targets, ", ")
	case len(s.RunIDs) > 0:
		return strings.Join(s.RunIDs, ", ")
	}
	return strings.Join(baseNames(s.Files), ", ")
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}

// SeriesKey is what pairs a baseline series (one curve over concurrency)
// with a candidate series, as Match pairs their steps: the target role
// when a side has several targets (then targets pair by name), workload,
// pool setting and clients.
type SeriesKey struct {
	Role, Workload, Pool string
	Clients              int
}

// SeriesKey is the pairing key of a series of either side.
func (c *Comparison) SeriesKey(target, workload, pool string, clients int) SeriesKey {
	if c.Axis != "" { // both sides' labels without their value on the axis
		workload = results.LabelWithout(results.LabelWithout(workload, c.Axis, c.axisValues[0]), c.Axis, c.axisValues[1])
	}
	k := SeriesKey{Workload: workload, Pool: pool, Clients: clients}
	if len(c.Baseline.Targets) > 1 || len(c.Candidate.Targets) > 1 {
		k.Role = target
	}
	return k
}
