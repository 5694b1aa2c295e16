package telemetry

import (
	"fmt"
	"slices"
	"strings"

	"github.com/poolsweep/poolsweep/sweep"
)

// NotReported is the wording for a field the server did not report, e.g.
// "not reported by ferretdb". serverKind is TargetHeader.ServerKind.
func NotReported(serverKind string) string {
	if serverKind == "" {
		serverKind = "this server"
	}
	return "not reported by " + serverKind
}

// Describe renders one server sample as short lines for text output, one
// per topic, saying "not reported by <serverKind>" for what is nil rather
// than printing a zero.
func Describe(s *sweep.ServerSample, serverKind string) []string {
	nr := NotReported(serverKind)
	if s == nil {
		return []string{"server: " + nr}
	}
	f := func(v *float64, format string) string {
		if v == nil {
			return "—"
		}
		return fmt.Sprintf(format, *v)
	}
	all := func(vs ...*float64) bool {
		for _, v := range vs {
			if v != nil {
				return false
			}
		}
		return true
	}
	var out []string

	if c := s.Connections; c == nil {
		out = append(out, "connections: "+nr)
	} else {
		out = append(out, fmt.Sprintf("connections: current %s, available %s, created %s/s",
			f(c.Current, "%.0f"), f(c.Available, "%.0f"), f(c.CreatedPerS, "%.1f")))
	}

	if s.OpcountersPerS == nil {
		out = append(out, "opcounters: "+nr)
	} else {
		keys := make([]string, 0, len(s.OpcountersPerS))
		for k := range s.OpcountersPerS {
			keys = append(keys, k)
		}
		// MongoDB's order, then anything else alphabetically.
		slices.SortFunc(keys, func(a, b string) int {
			ia, ib := slices.Index(opcounterNames, a), slices.Index(opcounterNames, b)
			if ia < 0 {
				ia = len(opcounterNames)
			}
			if ib < 0 {
				ib = len(opcounterNames)
			}
			if ia != ib {
				return ia - ib
			}
			return strings.Compare(a, b)
		})
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %.1f", k, s.OpcountersPerS[k])
		}
		out = append(out, "opcounters/s: "+strings.Join(parts, ", "))
	}

	if all(s.ReadLatencyUS, s.WriteLatencyUS) {
		out = append(out, "server latency: "+nr+" (or no ops)")
	} else {
		out = append(out, fmt.Sprintf("server latency: read %s, write %s",
			f(s.ReadLatencyUS, "%.0f µs"), f(s.WriteLatencyUS, "%.0f µs")))
	}

	if s.Queue == nil && s.ActiveClients == nil {
		out = append(out, "queue: "+nr)
	} else {
		var r, w *float64
		if s.Queue != nil {
			r, w = s.Queue.Readers, s.Queue.Writers
		}
		out = append(out, fmt.Sprintf("queue: readers %s, writers %s; active clients %s",
			f(r, "%.1f"), f(w, "%.1f"), f(s.ActiveClients, "%.1f")))
	}

	if t := s.Tickets; t == nil {
		out = append(out, "tickets: "+nr)
	} else {
		out = append(out, fmt.Sprintf("tickets: in use %s, available %s, queued %s",
			f(t.InUse, "%.1f"), f(t.Available, "%.1f"), f(t.Queued, "%.1f")))
	}

	if all(s.CPUPct, s.RSSMB) {
		out = append(out, "cpu/memory: "+nr)
	} else {
		out = append(out, fmt.Sprintf("cpu %s, rss %s", f(s.CPUPct, "%.0f%%"), f(s.RSSMB, "%.0f MB")))
	}

	if all(s.NetInBytesPerS, s.NetOutBytesPerS) {
		out = append(out, "network: "+nr)
	} else {
		mb := func(v *float64) *float64 {
			if v == nil {
				return nil
			}
			return ptr(*v / 1e6)
		}
		out = append(out, fmt.Sprintf("network: in %s MB/s, out %s MB/s",
			f(mb(s.NetInBytesPerS), "%.2f"), f(mb(s.NetOutBytesPerS), "%.2f")))
	}

	if p := s.ConnPool; p != nil {
		out = append(out, fmt.Sprintf("router pool: in use %s, available %s, created %s",
			f(p.InUse, "%.0f"), f(p.Available, "%.0f"), f(p.Created, "%.0f")))
	}
	return out
}
