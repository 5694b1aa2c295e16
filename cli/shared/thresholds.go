package shared

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/threshold"
)

// ThresholdHelp documents the grammar in sweep's and analyze's --help.
const ThresholdHelp = `Thresholds (--threshold, repeatable) make the exit status a verdict: METRIC OP VALUE[@WHERE].
  METRIC  ops (or ops/s), calls (calls/s), p50, p99 (per call), errors, pool_wait (p99
          checkout wait), connections, or knee (the series' knee concurrency)
  OP      <  <=  >  >=
  VALUE   ops, calls: a rate per second (5000), at most 1000000000; p50, p99, pool_wait:
          a duration (20ms), at most 1h; errors: a count (10), at most 100000000000000, or
          a share of the operations (0.1%), at most 100%; connections: a whole number, at
          most 100000000; knee: a whole number, at most 100000
  WHERE   @64: the median of that concurrency level's trials; @knee: the same at the
          series' knee; @every (the default): every measured step, the worst counts
Each threshold is checked in every series and printed as pass or FAIL with the measured
value. One that cannot be evaluated (no knee found, the level not measured, no measured
step) fails and says why. Any failure exits 4.`

// ThresholdFlags are --threshold, as sweep and analyze take it.
type ThresholdFlags struct {
	texts []string
}

// Add registers --threshold on f.
func (g *ThresholdFlags) Add(f *pflag.FlagSet) {
	cmdutil.TextArrayVar(f, &g.texts, "threshold", "METRIC OP VALUE[@WHERE]", func(s string) error {
		_, err := threshold.Parse(s)
		return err
	}, `a pass/fail gate, e.g. 'p99<20ms@64', 'ops>5000@knee', 'errors<0.1%', 'knee>=32' (repeatable; see Thresholds below); any failure exits 4`)
}

// Given says whether any --threshold was given.
func (g *ThresholdFlags) Given() bool { return len(g.texts) > 0 }

// List is the thresholds, parsed (each was checked as it was parsed).
func (g *ThresholdFlags) List() []threshold.Threshold {
	ts := make([]threshold.Threshold, 0, len(g.texts))
	for _, s := range g.texts {
		t, err := threshold.Parse(s)
		if err == nil {
			ts = append(ts, t)
		}
	}
	return ts
}

// Evaluate judges the thresholds against the analysis a of rs; nil when
// there are none.
func (g *ThresholdFlags) Evaluate(rs []*results.Results, a *analysis.Analysis) []results.ThresholdOutcome {
	if len(g.texts) == 0 {
		return nil
	}
	return threshold.Evaluate(g.List(), rs, a)
}

// ThresholdsError is the gate error of failed outcomes; nil when all
// passed.
func ThresholdsError(os []results.ThresholdOutcome) error { return threshold.Gate(os) }

// WriteThresholds prints the outcomes after a blank line; nothing when
// there are none.
func WriteThresholds(w io.Writer, os []results.ThresholdOutcome) {
	if len(os) == 0 {
		return
	}
	fmt.Fprintln(w)
	_ = threshold.WriteText(w, os)
}
