package shared

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
)

// KneeFlags are analyze's knee options. Plot, report and fleet take them
// too, with the same names, defaults, help and checks, so that they read
// the same input the same way.
type KneeFlags struct {
	plateau float64
	minGain float64
	sloP99  time.Duration
}

// Add registers the knee flags on f.
func (k *KneeFlags) Add(f *pflag.FlagSet) {
	cmdutil.FloatVar(f, &k.plateau, "plateau", 0.95, 0, 1, true, false, "plateau knee: smallest concurrency reaching this fraction of the peak, above 0 and at most 1")
	cmdutil.FloatVar(f, &k.minGain, "min-gain", 0.10, 0, 10, true, true, "marginal-gain knee: the first doubling of concurrency adding less than this fraction, above 0 and below 10")
	cmdutil.DurationVar(f, &k.sloP99, "slo-p99", 0, 0, time.Hour, "SLO knee: the highest-throughput step whose p99 is within this (e.g. 20ms), up to 1h; open loop: the p99 a carried rate must meet")
}

// Options returns the knee flags as the analysis's options (their ranges
// were checked as they were parsed).
func (k KneeFlags) Options() (knee.Options, error) {
	opts := knee.DefaultOptions()
	opts.Plateau, opts.MinGain, opts.SLOP99 = k.plateau, k.minGain, k.sloP99
	return opts, nil
}
