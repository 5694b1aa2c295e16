package render

import (
	"fmt"
	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/openloop"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// KneeLine is the one-line verdict for a sweep's end-of-run summary and the
// plots. It always starts "knee: <target> concurrency=<C> ops/s=<X>" when a
// knee was found, and "knee: <target> none within tested range" when not.
func KneeLine(r knee.Report) string {
	r.Target, r.Pool = textfmt.Escape(r.Target), textfmt.Escape(r.Pool)
	limited := knee.LoadHostNote(r)
	if !r.Knee.Found {
		if r.Peak.QPS <= 0 {
			return fmt.Sprintf("knee: %s none within tested range (no throughput measured)", r.Target)
		}
		if limited != "" {
			limited = "; " + limited
		}
		return fmt.Sprintf("knee: %s none within tested range (peak ops/s=%.0f at concurrency=%d%s)", r.Target, r.Peak.QPS, r.Peak.Concurrency, limited)
	}
	var extra []string
	if r.Pool != "" {
		extra = append(extra, "pool="+r.Pool)
	}
	if r.Knee.Low != r.Knee.High {
		extra = append(extra, fmt.Sprintf("range %d–%d", r.Knee.Low, r.Knee.High))
	}
	conf := r.Knee.Confidence
	switch {
	case conf == "unconfirmed":
		conf += ": 1 trial"
		if limited != "" {
			conf += "; " + limited
		}
	case conf != "":
		conf += " confidence"
		if limited != "" {
			conf += ": " + limited
		}
	}
	extra = append(extra, conf)
	if r.Retrograde != nil {
		extra = append(extra, fmt.Sprintf("falls %.0f%% by %d", r.Retrograde.DropPct, r.Retrograde.To))
	}
	return fmt.Sprintf("knee: %s concurrency=%d ops/s=%.0f (%s)", r.Target, r.Knee.Concurrency, r.Knee.QPS, strings.Join(extra, ", "))
}

// seriesText renders reports for people: per series a verdict paragraph,
// the numbers per level, then each method's answer; then one line per
// series with planned steps missing (MissingSteps), if any.
func seriesText(w io.Writer, reports []knee.Report, missing ...analysis.Missing) error {
	ew := textfmt.NewErrWriter(w)
	for i, r := range reports {
		tw := section(ew, i, knee.SeriesName(r), r.Verdict, "concurrency\ttrials\tmedian ops/s\t[low, high]\tp99 ms\tbound\t\n")
		for _, l := range r.Levels {
			p99 := "-"
			if l.P99Ms != nil {
				p99 = textfmt.Ms(*l.P99Ms)
			}
			bound := l.Bound
			if bound == "" {
				bound = "-"
			}
			fmt.Fprintf(tw, "%d\t%d\t%s\t[%s, %s]\t%s\t%s\t\n", l.Concurrency, l.Trials, textfmt.Thousands(l.QPS), textfmt.Thousands(l.QPSLow), textfmt.Thousands(l.QPSHigh), p99, bound)
		}
		if err := tw.Flush(); err != nil {
			return err
		}

		ew.Printf("\nmethods:\n")
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		if r.Peak.Concurrency > 0 {
			fmt.Fprintf(tw, "  peak\t%d\t%s ops/s\n", r.Peak.Concurrency, textfmt.Thousands(r.Peak.QPS))
		} else {
			fmt.Fprintf(tw, "  peak\t-\tno measurements\n")
		}
		for _, m := range []struct {
			name string
			m    knee.Method
		}{{"plateau", r.Methods.Plateau}, {"kneedle", r.Methods.Kneedle}, {"marginal", r.Methods.Marginal}, {"slo", r.Methods.SLO},
			{"server in-flight", r.Methods.ServerInFlight}} {
			c := "-"
			if m.m.Concurrency != nil {
				c = strconv.Itoa(*m.m.Concurrency)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", m.name, c, m.m.Note)
		}
		u := r.Methods.USL
		switch {
		case u.Accepted():
			ns := "∞ (κ = 0)"
			if u.NStar != nil {
				ns = strconv.FormatFloat(*u.NStar, 'f', 1, 64)
			}
			fmt.Fprintf(tw, "  usl\t%s\tλ=%s σ=%s κ=%s %s, R²=%.3f, %s-bound\n",
				ns, fmtSig(u.Lambda), fmtSig(u.Sigma), fmtSig(u.Kappa), uslPeak(u), u.R2, u.Bound)
		case u.Fitted:
			fmt.Fprintf(tw, "  usl\t-\trejected: %s (λ=%s σ=%s κ=%s)\n", u.Rejected, fmtSig(u.Lambda), fmtSig(u.Sigma), fmtSig(u.Kappa))
		default:
			fmt.Fprintf(tw, "  usl\t-\tskipped: %s\n", u.Skipped)
		}
		if rg := r.Retrograde; rg != nil {
			fmt.Fprintf(tw, "  retrograde\t%d\tfalls %.1f%% below the peak by %d\n", rg.From, rg.DropPct, rg.To)
		} else {
			fmt.Fprintf(tw, "  retrograde\t-\tnone beyond the noise and 5%%\n")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		ew.Printf("\n%s\n", textfmt.Wrap(textfmt.Capitalise(r.Knee.Statement), 78))
		rc := r.Recommendation
		if rc.Concurrency > 0 {
			ew.Printf("recommendation: concurrency %d per client, maxPoolSize %d per client per host\n", rc.Concurrency, rc.MaxPoolSize)
		} else {
			ew.Printf("recommendation: none\n")
		}
		ew.Printf("%s\n", textfmt.Indent(textfmt.Wrap(rc.Why, 76), "  "))
		if r.BoundPastKnee != "" {
			ew.Printf("bound past the knee: %s\n", r.BoundPastKnee)
		}
		writeWarnings(ew, r.Warnings)
	}
	if len(missing) > 0 {
		ew.Printf("\n")
		for _, m := range missing {
			ew.Printf("%s\n", m.Text)
		}
	}
	return ew.Err
}

// section starts report i's part of a text report: a blank line before
// all but the first, "== name ==", the summary wrapped, then a table of
// the levels whose heading row is head.
func section(ew *textfmt.ErrWriter, i int, name, summary, head string) *tabwriter.Writer {
	if i > 0 {
		ew.Printf("\n")
	}
	ew.Printf("== %s ==\n", name)
	ew.Printf("%s\n\n", textfmt.Wrap(summary, 78))
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, head)
	return tw
}

// writeWarnings ends a report's part with its warnings, if any.
func writeWarnings(ew *textfmt.ErrWriter, warnings []string) {
	if len(warnings) > 0 {
		ew.Printf("warnings:\n")
		for _, wn := range warnings {
			ew.Printf("  - %s\n", wn)
		}
	}
}

// uslPeak words the fit's peak: "fitted peak X ops/s" when κ > 0 gives one
// at N*, otherwise that there is none, with the level throughput
// approaches when it levels off (σ > 0).
func uslPeak(u knee.USL) string {
	switch {
	case u.NStar != nil:
		return "fitted peak " + textfmt.Thousands(u.PeakQPS) + " ops/s"
	case u.Sigma > 0:
		return "no finite peak (approaches " + textfmt.Thousands(u.PeakQPS) + " ops/s)"
	}
	return "no finite peak (linear)"
}

// openText renders open-loop reports for people: per series the
// recommendation, the levels of every pool, the smallest pool per rate,
// and the warnings.
func openText(w io.Writer, reports []openloop.Report) error {
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

// openLine is the one-line open-loop verdict for a sweep's summary.
func openLine(r openloop.Report) string {
	name := textfmt.Escape(r.Target)
	if r.Workload != "" {
		name += " " + textfmt.Escape(r.Workload)
	}
	return "open loop: " + name + ": " + r.Recommendation
}

// openName names a report's series, as the text headings do.
func openName(r openloop.Report) string {
	s := textfmt.Escape(r.Target)
	if r.Workload != "" {
		s += " · " + textfmt.Escape(r.Workload)
	}
	if r.Clients > 1 {
		s += " · clients=" + strconv.Itoa(r.Clients)
	}
	return s
}

// fmtSig is a fitted parameter as the methods table prints it: four
// significant digits, no trailing zeros.
func fmtSig(v float64) string { return strconv.FormatFloat(roundSig(v, 4), 'g', -1, 64) }
