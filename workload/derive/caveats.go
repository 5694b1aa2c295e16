package derive

import (
	"fmt"
	"maps"
	"math"
	"sort"
	"strings"

	"github.com/poolsweep/poolsweep/querylog"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// File is the workload file of the operations added, with its source and
// the caveats of what its input could not say.
func (b *Builder) File(rep *querylog.Report, app string) *shapes.File {
	list, left := b.Shapes()
	f := &shapes.File{Kind: shapes.Kind, Version: shapes.Version, Shapes: list}
	f.Source = shapes.Source{Format: rep.Format, Files: rep.Files, Lines: rep.Lines, Operations: rep.Ops - left, App: app}
	if len(rep.Skipped) > 0 {
		f.Source.LeftOut = maps.Clone(rep.Skipped)
	}
	if len(rep.Settings) > 0 && rep.Unknown == 0 {
		// The highest threshold in effect: every operation kept was
		// logged at or above it, so it bounds what the shares can miss.
		slow, rate := rep.Settings[0].SlowMs, rep.Settings[0].SampleRate
		for _, s := range rep.Settings {
			slow, rate = math.Max(slow, s.SlowMs), math.Min(rate, s.SampleRate)
		}
		f.Source.SlowMs, f.Source.SampleRate = &slow, &rate
		f.Source.Complete = slow == 0 && rate == 1 && !rep.ProfileFilter
	}
	f.Caveats = caveats(rep, left, f)
	return f
}

// maxSettingsSaid is the most thresholds a caveat lists.
const maxSettingsSaid = 4

func caveats(rep *querylog.Report, left int64, f *shapes.File) []string {
	var c []string
	add := func(format string, a ...any) { c = append(c, fmt.Sprintf(format, a...)) }
	switch rep.Format {
	case shapes.FormatMongodLog:
		switch {
		case rep.Unknown > 0 && len(rep.Settings) == 0:
			add("the log does not say the slowms it was written at (its startup lines are not in it): " +
				"shares are of the operations logged, which at the default slowms of 100 ms are the slow ones only")
		case rep.Unknown > 0:
			add("the log says its slowms for only part of its lines; shares are of the operations logged")
		case f.Source.Complete:
			add("the log was written at slowms 0 and sample rate 1: every operation of the period is in it")
		default:
			add("shares are of the operations logged (slowms %s ms, sample rate %s), not of all the deployment ran: "+
				"fast operations are missing. For every operation, log at slowms 0 for a while "+
				"(db.setProfilingLevel(0, {slowms: 0})) or read a profile recorded at level 2",
				num(*f.Source.SlowMs), num(*f.Source.SampleRate))
		}
		if len(rep.Settings) > 1 {
			// The most used few: a log may change its threshold any number
			// of times, and a caveat is one line.
			parts := make([]string, 0, maxSettingsSaid+1)
			for i, s := range rep.Settings {
				if i == maxSettingsSaid {
					parts = append(parts, fmt.Sprintf("%d more thresholds", len(rep.Settings)-i))
					break
				}
				parts = append(parts, fmt.Sprintf("%d at slowms %s, sample rate %s", s.Ops, num(s.SlowMs), num(s.SampleRate)))
			}
			add("the threshold changed while the log was written (%s): shares mix operations logged at each", strings.Join(parts, "; "))
		}
		add("an update or delete batch whose statements were each under slowms is not seen: its batch line holds no statements")
	case shapes.FormatProfiler:
		add("a system.profile export does not say the level it was recorded at: at level 2 it holds every operation; " +
			"at level 1 only those above slowms, and shares are of those")
		if !math.IsNaN(rep.MinDurationMs) && rep.MinDurationMs > 0 {
			add("the fastest operation in the profile took %s ms: the profile likely holds only slow operations", num(rep.MinDurationMs))
		}
	case shapes.FormatQueryStats:
		add("$queryStats has shapes and counts but no values: every placeholder is drawn from its type alone")
		add("$queryStats records find, aggregate and distinct only: writes are not in it, and shares are of reads")
		add("$queryStats normalises limits and skips to placeholders: the shapes run without them")
		add("$queryStats gives means and maxima, not percentiles: observed p50 and p99 are the mean")
	}
	if rep.ProfileFilter {
		add("a profile filter was set: what was logged is what the filter chose")
	}
	if rep.Redacted > 0 {
		add("%d operations had their values redacted (redactClientLogData): those values are known only by their types", rep.Redacted)
	}
	if c1 := insertCaveat(rep); c1 != "" {
		add("%s", c1)
	}
	if left > 0 {
		add("%d operations of shapes left out of the shares: rarer shapes beyond the %d most frequent, "+
			"shapes first seen past the memory bound, or shapes whose values would make a command larger than MongoDB takes "+
			"(docs/workload-file.md)", left, shapes.MaxShapes)
	}
	if len(rep.Grew) > 0 {
		add("%d files grew while they were read: they were read to their size when opened", len(rep.Grew))
	}
	own, other := leftOut(rep.Skipped)
	if own != "" {
		add("left out as the server's own or its tools' work, not the application's: %s", own)
	}
	if other != "" {
		add("left out: %s", other)
	}
	return c
}

// leftOut is the operations left out in words, most first: those that are
// the server's own or its tools' work, and the others.
func leftOut(skipped map[string]int64) (own, other string) {
	kinds := make([]string, 0, len(skipped))
	for k := range skipped {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if skipped[kinds[i]] != skipped[kinds[j]] {
			return skipped[kinds[i]] > skipped[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	var o, x []string
	for _, k := range kinds {
		part := fmt.Sprintf("%d %s", skipped[k], querylog.LeftOutWords(k))
		if querylog.OwnWork(k) {
			o = append(o, part)
		} else {
			x = append(x, part)
		}
	}
	return strings.Join(o, "; "), strings.Join(x, "; ")
}

// insertCaveat says what the inserts' entries held of their documents,
// as each line showed it: whether a line holds them depends on how the
// client sent them, not on the server's version.
func insertCaveat(rep *querylog.Report) string {
	in := rep.Inserts
	total := in.Whole + in.Count + in.None
	if total == 0 {
		return ""
	}
	const replay = "the replay takes documents' sizes and types from a sample of the collection"
	if in.None == total {
		return "insert payloads are not in the entries (the clients sent the documents apart from the command, " +
			"as a document sequence; only ninserted counts them): " + replay
	}
	var parts []string
	if in.Whole > 0 {
		parts = append(parts, fmt.Sprintf("%d hold their documents whole (sent in the command's body)", in.Whole))
	}
	if in.Count > 0 {
		parts = append(parts, fmt.Sprintf("%d hold only their number", in.Count))
	}
	if in.None > 0 {
		parts = append(parts, fmt.Sprintf("%d hold neither (sent as a document sequence; ninserted counts them)", in.None))
	}
	return fmt.Sprintf("of the %d inserts' entries, %s: the shapes keep documents per command only, and %s",
		total, strings.Join(parts, ", "), replay)
}
