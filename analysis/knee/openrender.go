package knee

import (
	"fmt"
	"io"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// WriteOpenText renders open-loop reports for people: per series the
// recommendation, the levels of every pool, the smallest pool per rate,
// and the warnings.
func WriteOpenText(w io.Writer, reports []OpenReport) error {
	ew := textfmt.NewErrWriter(w)
	for i, r := range reports {
		tw := section(ew, i, "open loop: "+openName(r), r.Recommendation,
			"pool\trate/s\ttrials\toffered/s\tachieved/s\tachieved\tp50 ms\tp99 ms\tuncorrected p99\tpool wait\tdropped\tcarried\t\n")
		for _, p := range r.Pools {
			for _, l := range p.Levels {
				unc := "-"
				if l.UncorrectedP99Ms != nil {
					unc = textfmt.Ms(*l.UncorrectedP99Ms)
				}
				c := "yes"
				if !l.Carried {
					c = "no"
				}
				fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%.0f%%\t%s\t%s\t%s\t%.0f%%\t%d\t%s\t\n", p.MaxPoolSize, textfmt.Thousands(float64(l.Rate)), l.Trials,
					textfmt.Thousands(l.OfferedPerS), textfmt.Thousands(l.AchievedPerS), 100*l.AchievedShare, textfmt.Ms(l.P50Ms), textfmt.Ms(l.P99Ms),
					unc, 100*l.PoolWaitShare, l.Dropped, c)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		ew.Printf("\n%s\n", textfmt.Wrap(textfmt.Capitalise(r.Rule)+"; latencies are corrected (from each call's intended start) unless marked uncorrected (from its send).", 78))
		var parts []string
		for _, c := range r.ByRate {
			p := "none"
			if c.MaxPoolSize != nil {
				p = fmt.Sprintf("≥ %d", *c.MaxPoolSize)
			}
			parts = append(parts, fmt.Sprintf("%s/s: %s", textfmt.Thousands(float64(c.Rate)), p))
		}
		ew.Printf("smallest maxPoolSize per rate: %s\n", strings.Join(parts, "; "))
		for _, p := range r.Pools {
			for _, l := range p.Levels {
				if !l.Carried && l.Why != "" {
					ew.Printf("  pool %d at %s/s not carried: %s\n", p.MaxPoolSize, textfmt.Thousands(float64(l.Rate)), l.Why)
				}
			}
		}
		writeWarnings(ew, r.Warnings)
	}
	return ew.Err
}

// roundedOpen copies r with floats rounded for output.
func roundedOpen(r OpenReport) OpenReport {
	r.Pools = append([]OpenPool{}, r.Pools...)
	for i := range r.Pools {
		ls := append([]OpenLevel{}, r.Pools[i].Levels...)
		for j := range ls {
			l := &ls[j]
			l.OfferedPerS, l.AchievedPerS = round(l.OfferedPerS, 1), round(l.AchievedPerS, 1)
			l.AchievedShare, l.PoolWaitShare, l.ErrorShare = round(l.AchievedShare, 4), round(l.PoolWaitShare, 4), round(l.ErrorShare, 5)
			l.P50Ms, l.P99Ms = round(l.P50Ms, 3), round(l.P99Ms, 3)
			l.UncorrectedP99Ms = roundPtr(l.UncorrectedP99Ms, 3)
		}
		r.Pools[i].Levels = ls
	}
	return r
}
