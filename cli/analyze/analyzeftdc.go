package analyze

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/telemetry/fromftdc"
	"github.com/poolsweep/poolsweep/topology"
)

// ftdcFlags are analyze's --ftdc options: a deployment's own diagnostic
// data, attached to the steps of a run by time (telemetry/fromftdc).
type ftdcFlags struct {
	dirs    []string
	replace bool
}

func (f *ftdcFlags) add(fs *pflag.FlagSet) {
	cmdutil.TextArrayVar(fs, &f.dirs, "ftdc", "a diagnostic.data folder", func(string) error { return nil },
		"a host's diagnostic.data folder (repeat once per host): the steps' server telemetry from the deployment's own FTDC, by time, for a run whose sampler could not run serverStatus or did not run")
	fs.BoolVar(&f.replace, "ftdc-replace", false, "with --ftdc: use the FTDC's numbers also for steps that have the sampler's")
}

// Sources of a step's server numbers, as analyze reports them.
const (
	sourceSampler = "sampler"
	sourceFTDC    = "ftdc"
	sourceNone    = "none"
)

// ftdcReport is what --ftdc did: the captures read, and each step's source.
type ftdcReport struct {
	Captures []ftdcCapture `json:"captures"`
	Steps    []ftdcStep    `json:"steps"`
}

type ftdcCapture struct {
	Folder       string    `json:"folder"`
	Host         string    `json:"host"`
	Version      string    `json:"version"`
	Role         string    `json:"role"`
	RoleEvidence string    `json:"role_evidence"`
	First        time.Time `json:"first"`
	Last         time.Time `json:"last"`
	Samples      int       `json:"samples"`
	Files        int       `json:"files"`
	Truncated    int       `json:"truncated_files,omitempty"`
	// LeftOut counts the metric chunks left out for declaring more than
	// the folder's bytes pay for; Warnings name the first of them.
	LeftOut  int      `json:"left_out_chunks,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

type ftdcStep struct {
	File        string    `json:"file"`
	Target      string    `json:"target"`
	Workload    string    `json:"workload"`
	Pool        string    `json:"pool"`
	Concurrency int       `json:"concurrency"`
	Clients     int       `json:"clients"`
	Trial       int       `json:"trial"`
	StartedAt   time.Time `json:"started_at"`
	DurationS   float64   `json:"duration_s"`
	// Source is where the step's server numbers come from: the sweep's
	// sampler, the FTDC, or none.
	Source      string     `json:"source"`
	Hosts       []ftdcHost `json:"hosts"`
	Bound       string     `json:"bound,omitempty"`
	BoundReason string     `json:"bound_reason,omitempty"`
}

type ftdcHost struct {
	Folder  string     `json:"folder"`
	Host    string     `json:"host"`
	Role    string     `json:"role"`
	Covered bool       `json:"covered"`
	Samples int        `json:"samples"`
	From    *time.Time `json:"from,omitempty"`
	To      *time.Time `json:"to,omitempty"`
	Why     string     `json:"why,omitempty"`
	// Shard is the shard whose primary the host was; LeftOut why its
	// numbers are not the step's (a config server, a shard's secondary).
	Shard   string `json:"shard,omitempty"`
	LeftOut string `json:"left_out,omitempty"`
}

// liveServer says whether the sweep's sampler measured the step: some
// host with two samples or more (a rate needs two).
func liveServer(st *results.ServerTelemetry) bool {
	if st == nil {
		return false
	}
	for _, h := range st.Hosts {
		if h != nil && h.Samples >= 2 {
			return true
		}
	}
	return false
}

// attach reads the folders and gives each step the FTDC's server
// telemetry where every host covers its window (and the sampler's is
// absent, or --ftdc-replace), then judges those steps again with the bound
// rules, in file order so that the growth rules compare each with the step
// before it. Errors are usage errors naming --ftdc.
func (f *ftdcFlags) attach(ctx context.Context, rs []*results.Results, warn io.Writer) (*ftdcReport, error) {
	var windows []fromftdc.Window
	for _, r := range rs {
		for _, s := range r.Steps {
			windows = append(windows, stepWindow(s))
		}
	}
	caps, err := fromftdc.ReadFolders(ctx, f.dirs, windows)
	switch {
	case ctx.Err() != nil:
		return nil, errext.InterruptedBy(ctx)
	case err != nil:
		return nil, errext.Usagef("--ftdc: %w", textfmt.EscapeError(err))
	}
	rep := &ftdcReport{}
	for _, c := range caps {
		for _, w := range c.Warnings {
			fmt.Fprintf(warn, "poolsweep: warning: --ftdc: %s\n", cmdutil.SafeLine(w))
		}
		if more := c.LeftOut - len(c.Warnings); more > 0 {
			fmt.Fprintf(warn, "poolsweep: warning: --ftdc: %s: %d more metric chunks left out\n", cmdutil.SafeLine(c.Folder), more)
		}
		rep.Captures = append(rep.Captures, ftdcCapture{Folder: c.Folder, Host: c.Host, Version: c.Version, Role: c.Role,
			RoleEvidence: c.RoleEvidence, First: c.First.UTC(), Last: c.Last.UTC(), Samples: c.Samples, Files: c.Files, Truncated: c.Truncated,
			LeftOut: c.LeftOut, Warnings: c.Warnings})
	}
	for _, r := range rs {
		judges := map[string]*bound.Judge{}
		for i := range r.Steps {
			s := &r.Steps[i]
			j := judges[s.Target]
			if j == nil {
				j = bound.NewJudge(bound.JudgeConfig{Sharded: targetTopology(r, s.Target) == topology.Sharded})
				judges[s.Target] = j
			}
			rep.Steps = append(rep.Steps, f.attachStep(r.Path, s, caps, j))
		}
	}
	return rep, nil
}

// attachStep attaches the FTDC to one step and judges it.
func (f *ftdcFlags) attachStep(file string, s *results.StepResult, caps []*fromftdc.Capture, j *bound.Judge) ftdcStep {
	st, covs := fromftdc.WindowTelemetry(caps, stepWindow(*s))
	out := ftdcStep{File: file, Target: s.Target, Workload: s.Workload, Pool: s.PoolSetting, Concurrency: s.Concurrency,
		Clients: s.Clients, Trial: s.Trial, StartedAt: s.StartedAt, DurationS: s.DurationS}
	for _, c := range covs {
		h := ftdcHost{Folder: c.Folder, Host: c.Host, Role: c.Role, Covered: c.Covered, Samples: c.Samples, Why: c.Why, Shard: c.Shard, LeftOut: c.LeftOut}
		if c.Covered {
			from, to := c.From.UTC(), c.To.UTC()
			h.From, h.To = &from, &to
		}
		out.Hosts = append(out.Hosts, h)
	}
	live := liveServer(s.Server)
	switch {
	case st != nil && (!live || f.replace):
		s.Server, out.Source = st, sourceFTDC
	case live:
		out.Source = sourceSampler
	default:
		out.Source = sourceNone
	}
	// Every step goes through the judge, which keeps each series' last
	// step for the growth rules; only those given the FTDC's numbers keep
	// its verdict. Little's law and its warning read client numbers only,
	// which the FTDC does not change.
	keep := *s
	j.Judge(s)
	s.LittlesLaw, s.Warnings = keep.LittlesLaw, keep.Warnings
	if out.Source != sourceFTDC {
		s.Bound, s.BoundReason = keep.Bound, keep.BoundReason
	}
	out.Bound, out.BoundReason = s.Bound, s.BoundReason
	return out
}

// stepWindow is a step's measured window: it opened at started_at and
// lasted duration_s.
func stepWindow(s results.StepResult) fromftdc.Window {
	return fromftdc.Window{Start: s.StartedAt, End: s.StartedAt.Add(time.Duration(s.DurationS * float64(time.Second)))}
}

// targetTopology is the named target's topology in r's header.
func targetTopology(r *results.Results, name string) string {
	for _, t := range r.Header.Targets {
		if t.Name == name {
			return t.Topology
		}
	}
	return ""
}

// writeText says what --ftdc read and where each step's server numbers
// come from. Names read from files (hosts, targets) are escaped.
func (rep *ftdcReport) writeText(ew *textfmt.ErrWriter) {
	ew.Printf("\nserver telemetry from FTDC (--ftdc): %s\n", rep)
	for _, c := range rep.Captures {
		ew.Printf("  %s: host %s, %s, %s (%s); %d samples from %s to %s in %d file(s)",
			textfmt.Escape(c.Folder), textfmt.Escape(c.Host), textfmt.Escape(c.Version), c.Role, c.RoleEvidence,
			c.Samples, c.First.Format(time.RFC3339), c.Last.Format(time.RFC3339), c.Files)
		if c.Truncated > 0 {
			ew.Printf(", %d cut off mid-document", c.Truncated)
		}
		if c.LeftOut > 0 {
			ew.Printf(", %d metric chunks left out (more than the files' bytes pay for)", c.LeftOut)
		}
		ew.Printf("\n")
	}
	for _, s := range rep.Steps {
		name := textfmt.Escape(s.Target)
		if s.Workload != "" {
			name += " · " + textfmt.Escape(s.Workload)
		}
		ew.Printf("  %s C=%d P=%s K=%d trial %d (%s, %.1f s): ", name, s.Concurrency, textfmt.Escape(s.Pool), s.Clients, s.Trial,
			s.StartedAt.UTC().Format("15:04:05"), s.DurationS)
		switch s.Source {
		case sourceFTDC:
			ew.Printf("server numbers from FTDC")
		case sourceSampler:
			ew.Printf("server numbers from the sweep's sampler (kept; --ftdc-replace uses the FTDC's)")
		default:
			ew.Printf("no server numbers (the record's bound is kept)")
		}
		if s.Bound != "" {
			ew.Printf("; bound %s", s.Bound)
		}
		ew.Printf("\n")
		for _, h := range s.Hosts {
			if h.Covered {
				ew.Printf("    %s (%s): %d samples in the window", textfmt.Escape(h.Host), textfmt.Escape(h.Role), h.Samples)
				switch {
				case h.Shard != "":
					ew.Printf(", the primary of shard %s", textfmt.Escape(h.Shard))
				case h.LeftOut != "":
					ew.Printf("; left out: %s", h.LeftOut)
				}
				ew.Printf("\n")
			} else {
				ew.Printf("    %s: FTDC does not cover the window: %s\n", textfmt.Escape(h.Host), h.Why)
			}
		}
	}
}

// String is a one-line count of the steps by source.
func (rep *ftdcReport) String() string {
	n := map[string]int{}
	for _, s := range rep.Steps {
		n[s.Source]++
	}
	return fmt.Sprintf("%d step(s) from FTDC, %d from the sampler, %d without", n[sourceFTDC], n[sourceSampler], n[sourceNone])
}
