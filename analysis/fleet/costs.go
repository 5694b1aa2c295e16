package fleet

import (
	"fmt"
	"math"

	"github.com/poolsweep/poolsweep/internal/serverversion"
	"github.com/poolsweep/poolsweep/results"
)

const mib = 1 << 20

// Memory is the server memory per connection the plan counts, and where
// it comes from: measured by a connection sweep (--costs), given
// (--conn-memory), or MongoDB's guidance of about 1 MiB, an assumption.
type Memory struct {
	MiB float64 `json:"mib"`
	// LowMiB and HighMiB are the measurement's interval; nil when the
	// figure was not measured.
	LowMiB   *float64 `json:"low_mib,omitempty"`
	HighMiB  *float64 `json:"high_mib,omitempty"`
	Measured bool     `json:"measured"`
	Source   string   `json:"source"`
}

// CPU is the server CPU one idle connection costs, as a connection sweep
// measured it, in microseconds per second, with its interval and source.
type CPU struct {
	USPerS float64 `json:"us_per_s"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	Source string  `json:"source"`
}

// cpuOf is the measured CPU per connection; nil without a measurement
// (there is no figure to assume).
func cpuOf(o Options) *CPU {
	c := o.Costs
	if c == nil || c.CPUusPerS == nil {
		return nil
	}
	return &CPU{USPerS: c.CPUusPerS.Value, Low: c.CPUusPerS.Low, High: c.CPUusPerS.High,
		Source: fmt.Sprintf("measured by the connection sweep in %s on %s", orUnknown(o.CostsFrom), orUnknown(c.Server))}
}

// memoryOf decides the memory per connection: a measured cost first,
// then the given figure, then the assumption.
func memoryOf(o Options) Memory {
	if c := o.Costs; c != nil && c.MemoryBytes != nil && c.MemoryBytes.Value > 0 {
		lo, hi := c.MemoryBytes.Low/mib, c.MemoryBytes.High/mib
		return Memory{MiB: c.MemoryBytes.Value / mib, LowMiB: &lo, HighMiB: &hi, Measured: true,
			Source: fmt.Sprintf("measured by the connection sweep in %s on %s (interval %.3g to %.3g MiB)", orUnknown(o.CostsFrom), orUnknown(c.Server), lo, hi)}
	}
	if o.ConnMemoryMiB > 0 {
		return Memory{MiB: o.ConnMemoryMiB, Source: "--conn-memory"}
	}
	return Memory{MiB: DefaultConnMemoryMiB, Source: "assumed: about 1 MiB per connection on mongod, MongoDB's guidance, not measured (fleet --costs takes it from a connection sweep)"}
}

// monitorsOf is the connections each instance holds to every host beside
// its pool, and why: measured by the connection sweep (the server's
// connections less the pools'), else by the server's version: from 4.4
// the driver streams the server's state over one connection and measures
// round trips over another; before 4.4 one connection polls.
func monitorsOf(rs []*results.Results, target string, o Options) (int, string) {
	if c := o.Costs; c != nil && c.MonitorsPerClient != nil && c.MonitorsPerClient.Value >= 0 {
		m := int(math.Round(c.MonitorsPerClient.Value))
		return m, fmt.Sprintf("measured: %.2f per client (%.2f to %.2f) by the connection sweep in %s", c.MonitorsPerClient.Value, c.MonitorsPerClient.Low, c.MonitorsPerClient.High, orUnknown(o.CostsFrom))
	}
	t, ok := header(rs, target)
	if !ok || t.ServerVersion == "" {
		return monitoringPerInstance, "the server's version is not recorded: 2 assumed, the monitor and the round-trip monitor of a 4.4 or later server"
	}
	v, ok := serverversion.Parse(t.ServerVersion)
	switch {
	case !ok:
		return monitoringPerInstance, "the server's version is not one a server reports: 2 assumed, as from 4.4"
	case v.AtLeast(4, 4):
		return monitoringPerInstance, fmt.Sprintf("server %s: from 4.4 each client streams the server's state over one connection and measures round trips over another", v.Text)
	}
	return 1, fmt.Sprintf("server %s: before 4.4 each client polls the server over one monitoring connection", v.Text)
}

// limitOf is the connection limit per host: --max-connections, then
// --limit, then the steps' telemetry, then the connection sweep's.
func limitOf(rs []*results.Results, target string, o Options) Limit {
	if o.MaxConnections <= 0 && o.Limit != nil {
		lim := o.Limit.PerHost
		return Limit{PerHost: &lim, Source: o.Limit.Source}
	}
	l := learnLimit(rs, target, o.MaxConnections)
	if l.PerHost == nil && o.Costs != nil && o.Costs.Limit != nil && *o.Costs.Limit > 0 {
		lim := int(math.Round(*o.Costs.Limit))
		return Limit{PerHost: &lim, Source: fmt.Sprintf("serverStatus connections.current + available in the connection sweep in %s", orUnknown(o.CostsFrom))}
	}
	return l
}

// fitPool is the largest maxPoolSize whose n instances' connections, m
// monitoring each, stay within lim per host; 0 when not even 1 fits.
func fitPool(lim, n, m int) int {
	return max(lim/n-m, 0)
}
