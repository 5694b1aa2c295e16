package knee

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Summary is the one-line verdict for a sweep's end-of-run summary and the
// plots. It always starts "knee: <target> concurrency=<C> ops/s=<X>" when a
// knee was found, and "knee: <target> none within tested range" when not.
func Summary(r Report) string {
	r.Target, r.Pool = textfmt.Escape(r.Target), textfmt.Escape(r.Pool)
	limited := ""
	if len(r.Knee.LoadHostLimited) > 0 {
		limited = limitNote(runsIn(r.Levels, r.Knee.LoadHostLimited))
	}
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

// WriteText renders reports for people: per series a verdict paragraph,
// the numbers per level, then each method's answer; then one line per
// series with planned steps missing (MissingSteps), if any.
func WriteText(w io.Writer, reports []Report, missing ...Missing) error {
	ew := textfmt.NewErrWriter(w)
	for i, r := range reports {
		tw := section(ew, i, seriesName(r), r.Verdict, "concurrency\ttrials\tmedian ops/s\t[low, high]\tp99 ms\tbound\t\n")
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
			m    Method
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
func uslPeak(u USL) string {
	switch {
	case u.NStar != nil:
		return "fitted peak " + textfmt.Thousands(u.PeakQPS) + " ops/s"
	case u.Sigma > 0:
		return "no finite peak (approaches " + textfmt.Thousands(u.PeakQPS) + " ops/s)"
	}
	return "no finite peak (linear)"
}

// WriteJSON renders reports as {"series": [...], "open_loop": [...],
// "missing": [...]} with numbers rounded to what a measurement can
// support, so output is stable across machines. open_loop is left out when
// there are no open-loop reports; missing is [] when nothing planned is
// missing.
func WriteJSON(w io.Writer, reports []Report, open []OpenReport, missing ...Missing) error {
	out := struct {
		Series   []Report     `json:"series"`
		OpenLoop []OpenReport `json:"open_loop,omitempty"`
		Missing  []Missing    `json:"missing"`
	}{Series: make([]Report, len(reports)), Missing: append([]Missing{}, missing...)}
	for i, r := range reports {
		out.Series[i] = rounded(r)
	}
	for _, r := range open {
		out.OpenLoop = append(out.OpenLoop, roundedOpen(r))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("encode knee report: %w", err)
	}
	return nil
}

// rounded copies r with floats rounded for output.
func rounded(r Report) Report {
	r.Levels = append(make([]Level, 0, len(r.Levels)), r.Levels...) // [] not null when empty
	for i := range r.Levels {
		l := &r.Levels[i]
		l.QPS, l.QPSLow, l.QPSHigh, l.QPSMean = round(l.QPS, 1), round(l.QPSLow, 1), round(l.QPSHigh, 1), round(l.QPSMean, 1)
		l.P99Ms = roundPtr(l.P99Ms, 3)
		l.ServerInFlight = roundPtr(l.ServerInFlight, 2)
		l.PoolWaitP99Ms, l.MeanLatencyMs = round(l.PoolWaitP99Ms, 3), round(l.MeanLatencyMs, 3)
	}
	r.Peak.QPS = round(r.Peak.QPS, 1)
	r.Knee.QPS = round(r.Knee.QPS, 1)
	r.Knee.Stability = roundPtr(r.Knee.Stability, 3)
	u := &r.Methods.USL
	u.Lambda, u.Sigma, u.Kappa = roundSig(u.Lambda, 5), roundSig(u.Sigma, 5), roundSig(u.Kappa, 5)
	u.PeakQPS, u.R2 = round(u.PeakQPS, 1), round(u.R2, 4)
	u.NStar = roundPtr(u.NStar, 2)
	if r.Retrograde != nil {
		rg := *r.Retrograde
		rg.DropPct = round(rg.DropPct, 1)
		r.Retrograde = &rg
	}
	return r
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// roundPtr rounds *v, keeping nil (not reported) as nil.
func roundPtr(v *float64, digits int) *float64 {
	if v == nil {
		return nil
	}
	r := round(*v, digits)
	return &r
}

func roundSig(v float64, sig int) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	d := sig - 1 - int(math.Floor(math.Log10(math.Abs(v))))
	if d < 0 {
		p := math.Pow(10, float64(-d))
		return math.Round(v/p) * p
	}
	return round(v, d)
}

func fmtSig(v float64) string { return strconv.FormatFloat(roundSig(v, 4), 'g', -1, 64) }
