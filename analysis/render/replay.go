package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Replays renders the replayed series for people, after Text: each
// series' knee beside the find-by-_id knee, its shapes' numbers at the
// knee (at the peak when there is none), and which shape saturates first
// (analysis.Replay). It writes nothing when there is no replayed series.
func Replays(w io.Writer, a *analysis.Analysis) error {
	ew := textfmt.NewErrWriter(w)
	for _, rp := range a.Replays {
		ew.Printf("\nreplay of %s on %s (pool %s, %d client(s)): %s\n", textfmt.Escape(rp.File), textfmt.Escape(rp.Target), textfmt.Escape(rp.Pool), rp.Clients, replayKneeText(rp.Knee, rp.Peak))
		if b := rp.FindByID; b != nil {
			ew.Printf("  find by _id on the same target (pool %s): %s\n", textfmt.Escape(b.Pool), replayKneeText(b.Knee, b.Peak))
			if b.Peak.QPS > 0 && rp.Peak.QPS > 0 {
				ew.Printf("  the replay peaks at %.2f× find-by-_id's throughput: its shapes cost the server %s per op\n",
					rp.Peak.QPS/b.Peak.QPS, map[bool]string{true: "more", false: "less"}[rp.Peak.QPS < b.Peak.QPS])
			}
		}
		c, where := rp.Peak.Concurrency, "the peak"
		if rp.Knee.Found {
			c, where = rp.Knee.Concurrency, "the knee"
		}
		ew.Printf("  per shape at %s (C=%d):\n", where, c)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "    shape\tcommand\tclass\tshare\tops/s\tp50 ms\tp99 ms\ttime share\n")
		for _, s := range rp.Shapes {
			if l, ok := s.At(c); ok {
				fmt.Fprintf(tw, "    %s\t%s\t%s\t%.0f%%\t%.0f\t%.2f\t%.2f\t%.0f%%\n", textfmt.Escape(s.ID), textfmt.Escape(s.Command), textfmt.Escape(s.Class),
					100*s.Share, l.OpsPerS, l.P50Ms, l.P99Ms, 100*l.TimeShare)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if sat := rp.Saturates; sat != nil {
			ew.Printf("  saturates first: %s — at C=%d %s %s %.2f ms more at the median than at C=%d (they wait in the same queue); %s takes %.0f%% of the ops' time at C=%d: its work is what fills it\n",
				textfmt.Escape(sat.Shape), sat.Concurrency, escapedList(sat.Queued), map[bool]string{true: "waits", false: "wait"}[len(sat.Queued) == 1], sat.AddedMs,
				sat.From, textfmt.Escape(sat.Shape), 100*sat.TimeShare, sat.From)
		} else {
			ew.Printf("  saturates first: no shape's median latency doubled within the levels measured\n")
		}
	}
	return ew.Err
}

// replayKneeText is a knee and peak in a few words.
func replayKneeText(k knee.Knee, p knee.Peak) string {
	if !k.Found {
		return fmt.Sprintf("no knee within the tested range; peak %.0f ops/s at C=%d", p.QPS, p.Concurrency)
	}
	return fmt.Sprintf("knee at C=%d (%.0f ops/s, confidence %s); peak %.0f ops/s at C=%d", k.Concurrency, k.QPS, k.Confidence, p.QPS, p.Concurrency)
}

func escapedList(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = textfmt.Escape(id)
	}
	return strings.Join(out, ", ")
}
