package fromftdc

import (
	"fmt"
	"sort"
	"time"

	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/telemetry"
)

// How closely a host's samples must cover a window. A server samples every
// second by default (diagnosticDataCollectionPeriodMillis), so the first
// sample inside a window is at most a period after its start and the last
// at most a period before its end; EdgeTolerance allows that and some
// jitter. A gap longer than MaxGap inside the window (a server too busy to
// sample, a stopped capture) leaves the window not covered: its rates would
// hide what happened in the gap less than the sampler's would.
const (
	EdgeTolerance = 1500 * time.Millisecond
	MaxGap        = 3 * time.Second
)

// HostCoverage says whether one host's capture covers a window, and with
// what.
type HostCoverage struct {
	Folder, Host string
	// Role is the host's role during the window (a replica-set member's
	// state may change from one window to the next).
	Role    string
	Covered bool
	// Samples are the samples inside the window; From and To the first
	// and the last of them (zero when none).
	Samples  int
	From, To time.Time
	// Why says why the window is not covered; "" when it is.
	Why string
	// Shard is the shard whose primary the host was (a sharded
	// cluster's); LeftOut why its numbers are not the step's although it
	// covers the window (a config server, a shard's secondary).
	Shard, LeftOut string
}

// cover finds the samples of points (oldest first) inside w: lo..hi
// (inclusive), or why they do not cover it. The samples used are those
// inside the window only, as the step's load was; the window is covered
// when the first is within EdgeTolerance of its start, the last within
// EdgeTolerance of its end, no two in a row are more than MaxGap apart, and
// the server's uptime never went back (a restart: its counters started
// over).
func cover(points []point, w Window) (lo, hi int, why string) {
	lo = sort.Search(len(points), func(i int) bool { return !points[i].at.Before(w.Start) })
	hi = sort.Search(len(points), func(i int) bool { return points[i].at.After(w.End) }) - 1
	secs := func(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
	switch {
	case len(points) == 0:
		return -1, -1, "no samples"
	case lo > hi:
		return -1, -1, fmt.Sprintf("no sample in the window (the capture runs from %s to %s)", stamp(points[0].at), stamp(points[len(points)-1].at))
	case lo == hi:
		return -1, -1, "only one sample in the window (rates need two)"
	case points[lo].at.Sub(w.Start) > EdgeTolerance:
		return -1, -1, fmt.Sprintf("its first sample in the window is %s after the window opened (the capture starts at %s)", secs(points[lo].at.Sub(w.Start)), stamp(points[lo].at))
	case w.End.Sub(points[hi].at) > EdgeTolerance:
		return -1, -1, fmt.Sprintf("its last sample in the window is %s before the window closed (the capture ends at %s)", secs(w.End.Sub(points[hi].at)), stamp(points[hi].at))
	}
	for i := lo + 1; i <= hi; i++ {
		if gap := points[i].at.Sub(points[i-1].at); gap > MaxGap {
			return -1, -1, fmt.Sprintf("a gap of %s between samples at %s", secs(gap), stamp(points[i-1].at))
		}
		if a, b := points[i-1].uptimeMS, points[i].uptimeMS; a >= 0 && b >= 0 && b < a {
			return -1, -1, fmt.Sprintf("the server restarted during the window (its uptime went back at %s)", stamp(points[i].at))
		}
	}
	return lo, hi, ""
}

// stamp is t as the report prints it: UTC to the millisecond.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// WindowTelemetry is the server telemetry of one window from the hosts'
// captures, and each host's coverage. It is nil unless every host whose
// numbers count covers the window: a deployment's numbers summed over some
// of its hosts would read as the whole deployment's.
//
// With a mongos among the captures the deployment is a sharded cluster,
// and the hosts are placed as the sweep's sampler places them: the routers
// are the step's hosts, each shard's primary (by its replica set's name,
// which is the shard's name unless addShard gave another) is sampled
// behind them, and the config servers and the shards' secondaries are left
// out, saying so.
func WindowTelemetry(caps []*Capture, w Window) (*results.ServerTelemetry, []HostCoverage) {
	covs := make([]HostCoverage, 0, len(caps))
	hosts := make([]telemetry.HostSamples, 0, len(caps))
	var shards map[string]telemetry.HostSamples
	sharded := false
	for _, c := range caps {
		sharded = sharded || c.Role == telemetry.RoleMongos
	}
	if sharded {
		shards = map[string]telemetry.HostSamples{}
	}
	all := true
	for _, c := range caps {
		hc, h := c.coverage(w)
		switch {
		case !sharded || c.Role == telemetry.RoleMongos:
			all = all && hc.Covered
			if hc.Covered {
				hosts = append(hosts, h)
			}
		case c.opt("sharding", "clusterRole") == "configsvr":
			hc.LeftOut = "a config server: the sampler samples the routers and the shards' primaries only"
		case !hc.Covered:
			// A shard member whose capture does not cover the window may
			// have been its primary: the shards' numbers would miss it.
			all = false
		case hc.Role != "shard primary" && hc.Role != "primary" && hc.Role != telemetry.RoleStandalone: // a standalone shard is its own primary
			hc.LeftOut = "not its shard's primary throughout the window: the sampler samples each shard's primary only"
		default:
			name := c.setName()
			if _, dup := shards[name]; dup {
				hc.LeftOut = "a second primary of the shard in the window"
				break
			}
			hc.Shard = name
			shards[name] = h
		}
		covs = append(covs, hc)
	}
	if !all || len(hosts) == 0 {
		return nil, covs
	}
	return telemetry.WindowOf(hosts, shards), covs
}

// coverage is c's coverage of w and, when it covers w, its samples in w.
func (c *Capture) coverage(w Window) (HostCoverage, telemetry.HostSamples) {
	hc := HostCoverage{Folder: c.Folder, Host: c.Host, Role: c.Role}
	h := telemetry.HostSamples{Host: c.Host, HostInfo: c.hostInfo}
	lo, hi, why := cover(c.points, w)
	if why == "" {
		for _, p := range c.points[lo : hi+1] {
			if p.kept == nil { // not kept: a window the reading was not told of
				why = "a sample in the window was not read"
				break
			}
			h.Samples = append(h.Samples, *p.kept)
		}
	}
	if why != "" {
		hc.Why = why
		return hc, h
	}
	hc.Covered, hc.Samples, hc.From, hc.To = true, len(h.Samples), c.points[lo].at, c.points[hi].at
	hc.Role = c.windowRole(c.points[lo : hi+1])
	return hc, h
}
