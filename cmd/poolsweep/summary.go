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
	fmt.Fprintln(tw, "target\tC\tP\tK\ttrial\tconnections\tcalls/s\tops/s\tp50\tp99\terrors\tpool-wait p99\tbound\t")
	for _, s := range steps {
		if multiWorkload {
			fmt.Fprintf(tw, "%s\t", s.Workload)
		}
		mark := ""
		if s.Interrupted {
			mark = " (interrupted)"
		}
		bound := s.Bound
		if bound == "" {
			bound = "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", s.Target, s.Concurrency, s.MaxPoolSize, s.Clients, s.Trial, s.Connections,
			fmtRate(s.CallsPerS), fmtRate(s.OpsPerS), fmtMs(s.Latency.P50), fmtMs(s.Latency.P99), s.Errors.Total(), fmtMs(s.Pool.CheckoutWait.P99), bound, mark)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, h := range res.Header.Targets {
		if h.Note != "" {
			fmt.Fprintf(w, "note: %s: %s\n", h.Name, h.Note)
		}
	}
	clientBound := 0
	for _, s := range steps {
		if s.Bound == "client" {
			clientBound++
		}
	}
	if clientBound > 0 {
		fmt.Fprintf(w, "WARNING: %d of %d steps were CLIENT-BOUND: this machine's CPU, not the server, set their numbers.\n"+
			"         Run poolsweep on more (or larger) client machines, or with fewer workers per process, before trusting the knee.\n", clientBound, len(steps))
	}
	errs := int64(0)
	ops := int64(0)
	for _, s := range steps {
		errs += s.Errors.Total()
		ops += s.Ops
	}
	if errs > 0 && ops > 0 {
		fmt.Fprintf(w, "note: %d of %d operations failed (%.2f%%); they are counted in ops/s and latency, see errors per step\n", errs, ops, 100*float64(errs)/float64(ops))
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
	return writeReport(filepath.Join(dir, "report.html"), "html", rs, abRequest{}, nil)
}
