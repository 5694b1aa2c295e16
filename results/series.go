package results

import (
	"fmt"
	"slices"
	"strings"
)

// Read preferences and write concerns a sweep takes as axes (sweep
// --read-preference, --write-concern): each value is its own series. The
// read preferences are the driver's modes; a write concern is w:1 or
// w:"majority" (w:0 is not acknowledged, so it measures nothing a user
// waits for).
var (
	ReadPreferences = []string{"primary", "primaryPreferred", "secondary", "secondaryPreferred", "nearest"}
	WriteConcerns   = []string{"1", "majority"}
)

// SeriesLabel is the workload label of a series that runs base with read
// preference rp and write concern wc ("" when the axis is not swept):
// "read rp=secondaryPreferred", "mix 50:50:0 w=majority". The label keeps
// the series apart everywhere a workload label does (analyze, plot,
// report, compare, --resume).
func SeriesLabel(base, rp, wc string) string {
	if rp != "" {
		base += " rp=" + rp
	}
	if wc != "" {
		base += " w=" + wc
	}
	return base
}

// PoolAxes says which pool and driver options a run sweeps as series
// axes (sweep --min-pool, --max-connecting, --max-idle, --timeout,
// --retry, --server-selection-timeout, --heartbeat): the options a
// series label names. The others are in effect all the same (the URI's,
// or the driver's defaults) and the label leaves them out.
type PoolAxes struct {
	MinPool, MaxConnecting, MaxIdle, Timeout bool
	Retry, ServerSelectionTimeout, Heartbeat bool
}

// PoolSeriesLabel is the workload label of a series that runs base with
// the pool options o, naming the options on the axes swept and "cold"
// when the pools start empty: "read minPool=16 maxConnecting=2
// maxIdle=500ms timeout=50ms retry=off serverSelection=2s heartbeat=500ms
// cold". The words are the options' own (the drivers' names without
// Size, TimeMS, TimeoutMS or FrequencyMS; retry for retryReads and
// retryWrites together), so that a label reads as a setting; a duration
// is in whole seconds when it is one, else in ms.
func PoolSeriesLabel(base string, o PoolOptions, swept PoolAxes) string {
	if swept.MinPool {
		base += fmt.Sprintf(" minPool=%d", o.MinPoolSize)
	}
	if swept.MaxConnecting {
		base += fmt.Sprintf(" maxConnecting=%d", o.MaxConnecting)
	}
	if swept.MaxIdle {
		base += " maxIdle=" + labelMS(o.MaxIdleMS)
	}
	if swept.Timeout {
		base += " timeout=" + labelMS(o.TimeoutMS)
	}
	if swept.Retry {
		base += " retry=" + o.RetryReads
	}
	if swept.ServerSelectionTimeout {
		base += " serverSelection=" + labelMS(o.ServerSelectionTimeoutMS)
	}
	if swept.Heartbeat {
		base += " heartbeat=" + labelMS(o.HeartbeatMS)
	}
	if o.Cold {
		base += " cold"
	}
	return base
}

// PoolLabelBase is label without the words PoolSeriesLabel added: the
// workload's own label ("read" of "read minPool=16 maxConnecting=2
// cold"), for a title that names the workload once above settings that
// each name their options.
func PoolLabelBase(label string) string {
	words := strings.Fields(label)
	for len(words) > 1 {
		w := words[len(words)-1]
		key, _, isOpt := strings.Cut(w, "=")
		if w != "cold" && !(isOpt && slices.Contains(poolLabelKeys, key)) {
			break
		}
		words = words[:len(words)-1]
	}
	return strings.Join(words, " ")
}

// poolLabelKeys are the words PoolSeriesLabel names options by.
var poolLabelKeys = []string{"minPool", "maxConnecting", "maxIdle", "timeout", "retry", "serverSelection", "heartbeat"}

// labelMS writes a length in milliseconds as a label's value: "0",
// "500ms", "10s".
func labelMS(ms int64) string {
	switch {
	case ms == 0:
		return "0"
	case ms%1000 == 0:
		return fmt.Sprintf("%ds", ms/1000)
	}
	return fmt.Sprintf("%dms", ms)
}

// Axis names a series axis of a step: its read preference or its write
// concern.
type Axis string

// The series axes.
const (
	AxisReadPreference Axis = "read preference"
	AxisWriteConcern   Axis = "write concern"
)

// AxisValue is a step's value on an axis ("" when it was not swept).
func (s *StepResult) AxisValue(a Axis) string {
	if name := a.serverParamName(); name != "" {
		return s.paramValue(name)
	}
	if a == AxisReadPreference {
		return s.ReadPreference
	}
	return s.WriteConcern
}

// WorkloadWithout is the step's workload label without its value on axis
// a: the label both sides of an A/B over that axis share ("read w=1" and
// "read w=majority" are both "read").
func (s *StepResult) WorkloadWithout(a Axis) string {
	return LabelWithout(s.Workload, a, s.AxisValue(a))
}

// LabelWithout takes value on axis a out of a series label made by
// SeriesLabel.
func LabelWithout(label string, a Axis, value string) string {
	if value == "" {
		return label
	}
	suffix := " rp=" + value
	if a == AxisWriteConcern {
		suffix = " w=" + value
	}
	if name := a.serverParamName(); name != "" {
		suffix = " " + name + "=" + value
	}
	if i := strings.LastIndex(label, suffix); i >= 0 && (i+len(suffix) == len(label) || label[i+len(suffix)] == ' ') {
		return label[:i] + label[i+len(suffix):]
	}
	return label
}

// AxisText names a value on an axis for people: "write concern majority",
// "read preference secondaryPreferred".
func AxisText(a Axis, value string) string {
	if name := a.serverParamName(); name != "" {
		return "server parameter " + name + "=" + value
	}
	if a == AxisWriteConcern {
		return "write concern w:" + value
	}
	return string(a) + " " + value
}

// ParseAxisValue reads a name given to compare --baseline/--candidate as a
// value of an axis: a read preference (any case), a write concern as
// "1", "w1", "w:1", "w=1", "majority", "w:majority"…, or a server
// parameter's value as NAME=V (sweep --server-param). ok is false when
// the name is none of these.
func ParseAxisValue(name string) (a Axis, value string, ok bool) {
	for _, rp := range ReadPreferences {
		if strings.EqualFold(name, rp) || strings.EqualFold(name, "rp="+rp) {
			return AxisReadPreference, rp, true
		}
	}
	w := strings.ToLower(name)
	for _, p := range []string{"w:", "w=", "w"} {
		if rest, found := strings.CutPrefix(w, p); found && rest != "" {
			w = rest
			break
		}
	}
	for _, wc := range WriteConcerns {
		if w == wc {
			return AxisWriteConcern, wc, true
		}
	}
	// Any other NAME=V is a server parameter's value (--server-param).
	return parseParamAxis(name)
}

// Text says a change of primary in a few words, for a table's mark:
// "primary a:1 → b:2, 412 ms without one".
func (p *PrimaryChange) Text() string {
	before, after := p.Before, p.After
	if before == "" {
		before = "none"
	}
	if after == "" {
		after = "none"
	}
	return fmt.Sprintf("primary %s → %s, %.0f ms without one", before, after, p.NoPrimaryMS)
}

// OnOff is a boolean option's word in flags and labels.
func OnOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
