package render

import (
	"fmt"
	"io"
	"strconv"

	"github.com/poolsweep/poolsweep/analysis/conncost"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// ConnectionCost writes what one connection costs the server, as analyze
// prints it: the fits with their intervals, the limit and where the
// server refused, then the levels they were fitted from.
func ConnectionCost(w io.Writer, c *conncost.Cost) {
	ew := textfmt.NewErrWriter(w)
	ew.Printf("connection cost: %s on %s, %s pool %s at %d calls/s over all clients (%.0f%% intervals)\n",
		textfmt.Escape(c.Target), textfmt.Escape(c.Server), textfmt.Escape(c.Workload), textfmt.Escape(c.Pool), c.Rate, c.Confidence*100)
	memText := bytesText
	if c.MemoryBytes != nil {
		// The interval in the value's unit, so that the three read alike.
		memText = bytesIn(c.MemoryBytes.Value)
	}
	ew.Printf("  memory per connection:  %s\n", fitText(c.MemoryBytes, memText))
	ew.Printf("  CPU per connection:     %s\n", fitText(c.CPUusPerS, usPerS))
	if c.MemoryBytesPerClient != nil {
		ew.Printf("  memory per client:      %s (its pool and monitors)\n", fitText(c.MemoryBytesPerClient, bytesIn(c.MemoryBytesPerClient.Value)))
	}
	if c.CPUusPerSPerClient != nil {
		ew.Printf("  CPU per client:         %s\n", fitText(c.CPUusPerSPerClient, usPerS))
	}
	ew.Printf("  monitors per client:    %s\n", fitText(c.MonitorsPerClient, func(v float64) string { return fmt.Sprintf("%.2f", v) }))
	if c.Limit != nil {
		ew.Printf("  connection limit:       %s (connections.current + available)\n", textfmt.Thousands(*c.Limit))
	} else {
		ew.Printf("  connection limit:       not reported\n")
	}
	if r := c.Refused; r != nil {
		ew.Printf("  refused at %d clients (%s connections): %s\n", r.Clients, textfmt.Thousands(r.Connections), textfmt.Line(r.Reason))
	} else {
		ew.Printf("  refused: no level\n")
	}
	for _, n := range c.Notes {
		ew.Printf("  note: %s\n", textfmt.Line(n))
	}
	ew.Printf("  %8s %12s %12s %8s %9s %7s\n", "clients", "connections", "resident", "cpu %", "hello/s", "trials")
	for _, l := range c.Levels {
		ew.Printf("  %8d %12s %12s %8s %9s %7d\n", l.Clients, textfmt.Thousands(l.Connections),
			ptrOrDash(l.ResidentBytes, bytesText), ptrOrDash(l.CPUPct, func(v float64) string { return fmt.Sprintf("%.1f", v) }),
			ptrOrDash(l.HelloPerS, func(v float64) string { return fmt.Sprintf("%.1f", v) }), l.Trials)
	}
}

// usPerS writes CPU time a second to three significant figures, never
// in exponent form.
func usPerS(v float64) string {
	if max(v, -v) >= 100 {
		return fmt.Sprintf("%.0f µs/s", v)
	}
	return fmt.Sprintf("%.3g µs/s", v)
}

// fitText is a fit's value and interval, or why there is none.
func fitText(iv *results.Interval, f func(float64) string) string {
	if iv == nil {
		return "not fitted (see the notes)"
	}
	return fmt.Sprintf("%s [%s, %s]", f(iv.Value), f(iv.Low), f(iv.High))
}

func ptrOrDash(v *float64, f func(float64) string) string {
	if v == nil {
		return "-"
	}
	return f(*v)
}

// bytesText writes a size in the binary unit that suits it, to three
// significant figures (at least the units).
func bytesText(v float64) string { return bytesIn(v)(v) }

// bytesIn is bytesText in the unit that suits like.
func bytesIn(like float64) func(float64) string {
	unit, div := "B", 1.0
	for _, u := range []struct {
		name string
		size float64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if max(like, -like) >= u.size {
			unit, div = u.name, u.size
			break
		}
	}
	return func(v float64) string { return sizeIn(v, unit, div) }
}

func sizeIn(v float64, unit string, div float64) string {
	x := v / div
	decimals := 0
	switch a := max(x, -x); {
	case a < 10:
		decimals = 2
	case a < 100:
		decimals = 1
	}
	return strconv.FormatFloat(x, 'f', decimals, 64) + " " + unit
}

// roundedCost copies c with its figures rounded to what a measurement
// supports (three significant figures for a fit, one decimal for a
// level's means), so that the document is stable across machines.
func roundedCost(c *conncost.Cost) conncost.Cost {
	out := *c
	sig := func(iv *results.Interval) *results.Interval {
		if iv == nil {
			return nil
		}
		return &results.Interval{Value: roundSig(iv.Value, 3), Low: roundSig(iv.Low, 3), High: roundSig(iv.High, 3)}
	}
	out.MemoryBytes, out.CPUusPerS, out.MonitorsPerClient = sig(c.MemoryBytes), sig(c.CPUusPerS), sig(c.MonitorsPerClient)
	out.MemoryBytesPerClient, out.CPUusPerSPerClient = sig(c.MemoryBytesPerClient), sig(c.CPUusPerSPerClient)
	out.Levels = append([]conncost.Level{}, c.Levels...)
	for i := range out.Levels {
		l := &out.Levels[i]
		l.Connections = round(l.Connections, 1)
		l.ResidentBytes, l.CPUPct, l.HelloPerS = roundPtr(l.ResidentBytes, 0), roundPtr(l.CPUPct, 2), roundPtr(l.HelloPerS, 2)
	}
	if c.Refused != nil {
		r := *c.Refused
		r.Connections = round(r.Connections, 1)
		out.Refused = &r
	}
	return out
}
