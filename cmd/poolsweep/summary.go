package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"text/tabwriter"

	"github.com/poolsweep/poolsweep/plot"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/sweep/knee"
)

// writeSummary prints the end-of-sweep table and the knee of each series.
func writeSummary(w io.Writer, res *sweep.Results) {
	steps := append([]sweep.StepResult(nil), res.Steps...)
	sort.SliceStable(steps, func(i, j int) bool {
		a, b := steps[i], steps[j]
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		if a.Concurrency != b.Concurrency {
			return a.Concurrency < b.Concurrency
		}
		if a.MaxPoolSize != b.MaxPoolSize {
			return a.MaxPoolSize < b.MaxPoolSize
		}
		return a.Trial < b.Trial
	})
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	multiWorkload := len(res.Header.Workload.Mixes) > 1
	if multiWorkload {
		fmt.Fprint(tw, "workload\t")
	}
	fmt.Fprintln(tw, "target\tC\tP\tK\ttrial\tconnections\tcalls/s\tops/s\tp50\tp99\terrors\tpool-wait p99\t")
	for _, s := range steps {
		if multiWorkload {
			fmt.Fprintf(tw, "%s\t", s.Workload)
		}
		mark := ""
		if s.Interrupted {
			mark = " (interrupted)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", s.Target, s.Concurrency, s.MaxPoolSize, s.Clients, s.Trial, s.Connections,
			fmtRate(s.CallsPerS), fmtRate(s.OpsPerS), fmtMs(s.Latency.P50), fmtMs(s.Latency.P99), s.Errors.Total(), fmtMs(s.Pool.CheckoutWait.P99), mark)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, h := range res.Header.Targets {
		if h.Note != "" {
			fmt.Fprintf(w, "note: %s: %s\n", h.Name, h.Note)
		}
	}
	for _, r := range knee.AnalyzeAll(knee.FromResults([]*sweep.Results{res}), knee.DefaultOptions()) {
		fmt.Fprintln(w, knee.Summary(r))
	}
}

// writeArtifacts draws every applicable figure and report.html into dir.
func writeArtifacts(dir string, rs []*sweep.Results) error {
	reports := plot.Analyze(rs)
	figs, _, err := plot.Figures(rs, reports, nil)
	if err != nil {
		return err
	}
	if _, err := plot.WriteFiles(dir, figs); err != nil {
		return err
	}
	return writeReport(filepath.Join(dir, "report.html"), "html", rs, nil)
}
