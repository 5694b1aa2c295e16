package workload

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Mix operation names, as in --mix and YCSB's *proportion keys.
const (
	OpRead   = "read"
	OpUpdate = "update"
	OpInsert = "insert"
	OpScan   = "scan"
	OpRMW    = "rmw"
)

var mixOps = []string{OpRead, OpUpdate, OpInsert, OpScan, OpRMW}

// Built-in workload names.
var BuiltinWorkloads = []string{"read", "update", "insert", "scan", "api", "mixed"}

// Distributions of the keys that reads and updates pick.
var Distributions = []string{"uniform", "zipfian", "latest"}

// MixEntry is one operation and its share of calls.
type MixEntry struct {
	Op     string  `json:"op"`
	Weight float64 `json:"weight"` // fraction of calls, the entries sum to 1
}

// Workload is what each call does and on which data.
type Workload struct {
	Name          string // read, update, insert, scan, api, mixed
	Label         string // the series label in results ("read", "mix 50:50:0", …)
	Mix           []MixEntry
	Distribution  string
	Records       int
	FieldCount    int
	FieldLength   int
	MaxScanLength int
	Database      string
	Collection    string
	File          string // YCSB property file it came from, if any
	From          Sources
	// ReadPreference and WriteConcern are the driver settings its calls
	// run with (results.ReadPreferences, results.WriteConcerns); "" keeps
	// the URI's or the driver's default.
	ReadPreference string
	WriteConcern   string
	// PoolOptions are the pool options beyond maxPoolSize its calls'
	// clients run with (the --min-pool, --max-connecting, --max-idle and
	// --timeout axes, and --cold); nil keeps poolsweep's steady-sweep
	// settings (a pool pre-warmed to the step's need).
	PoolOptions *results.PoolOptions
	// PoolSwept says which of PoolOptions' values were given (swept, and
	// named in Label); the others are 0 there and the step runs with the
	// URI's or the driver's value, recorded as it was in effect.
	PoolSwept results.PoolAxes
	// Replay, when set, is the workload file each call replays a shape
	// of (--workload-file; replay.go) instead of the mix.
	Replay *Replay
	// ServerParams are the server parameters its steps run with (the
	// --server-param axes): the session sets them on the target before
	// the series' steps; nil leaves the server's settings alone.
	ServerParams []results.ServerParam
}

// WithAxes crosses workloads with the read preferences and write concerns
// swept (either list may be empty: that axis is not swept), each pair its
// own series labelled by results.SeriesLabel. Workloads stay outermost so
// that the series of one mix sit together.
func WithAxes(ws []Workload, rps, wcs []string) []Workload {
	if len(rps) == 0 && len(wcs) == 0 {
		return ws
	}
	rps, wcs = orNone(rps), orNone(wcs)
	var out []Workload
	for _, w := range ws {
		for _, rp := range rps {
			for _, wc := range wcs {
				v := w
				v.ReadPreference, v.WriteConcern = rp, wc
				v.Label = results.SeriesLabel(w.Label, rp, wc)
				out = append(out, v)
			}
		}
	}
	return out
}

// WithPoolOptions crosses workloads with pool-option settings (plan's
// PoolAxes.Settings), each pair its own series labelled by
// results.PoolSeriesLabel naming the options swept. An empty settings
// list leaves the workloads as they are (no pool option was given).
// Workloads stay outermost, as in WithAxes.
func WithPoolOptions(ws []Workload, settings []results.PoolOptions, swept results.PoolAxes) []Workload {
	if len(settings) == 0 {
		return ws
	}
	var out []Workload
	for _, w := range ws {
		for _, s := range settings {
			v := w
			po := s
			v.PoolOptions, v.PoolSwept = &po, swept
			v.Label = results.PoolSeriesLabel(w.Label, s, swept)
			out = append(out, v)
		}
	}
	return out
}

// ParamAxis is one --server-param: a parameter and its values, each a
// series.
type ParamAxis struct {
	Name   string
	Values []string
}

// WithServerParams crosses workloads with every combination of the
// server parameters' values (the first parameter outermost), each its
// own series labelled "… NAME=V". No axes leave the workloads as they
// are. Workloads stay outermost, as in WithAxes, so that within a trial
// each value's steps run together and the values take turns trial by
// trial (plan's expand puts trials outermost).
func WithServerParams(ws []Workload, axes []ParamAxis) []Workload {
	if len(axes) == 0 {
		return ws
	}
	combos := [][]results.ServerParam{nil}
	for _, a := range axes {
		var next [][]results.ServerParam
		for _, c := range combos {
			for _, v := range a.Values {
				next = append(next, append(slices.Clone(c), results.ServerParam{Name: a.Name, Value: v}))
			}
		}
		combos = next
	}
	var out []Workload
	for _, w := range ws {
		for _, c := range combos {
			v := w
			v.ServerParams = c
			v.Label = w.Label + results.ParamLabel(c)
			out = append(out, v)
		}
	}
	return out
}

func orNone(vs []string) []string {
	if len(vs) == 0 {
		return []string{""}
	}
	return vs
}

// DefaultWorkload has YCSB's core-workload defaults for the data shape.
func DefaultWorkload() Workload {
	return Workload{Name: "read", Label: "read", Mix: []MixEntry{{OpRead, 1}}, Distribution: "uniform",
		Records: 1000, FieldCount: 10, FieldLength: 100, MaxScanLength: 10,
		Database: "poolsweep", Collection: "usertable"}
}

// OpsPerCall is the mean number of driver operations per call: 3 for the
// api workload (2 finds + 1 update), 2 for rmw.
func (w Workload) OpsPerCall() float64 {
	if w.Replay != nil {
		return 1
	}
	if w.Name == "api" {
		return 3
	}
	n := 0.0
	for _, m := range w.Mix {
		k := 1.0
		if m.Op == OpRMW {
			k = 2
		}
		n += m.Weight * k
	}
	return n
}

// MaxDocumentBytes is MongoDB's largest BSON document.
const MaxDocumentBytes = 16 << 20

// DocumentBytes is the approximate BSON size of one loaded document: the
// _id and FieldCount string fields of FieldLength bytes, with their names
// and framing.
func (w Workload) DocumentBytes() int {
	const perField = 1 + len("field999") + 1 + 4 + 1 // type, name, NUL, length, NUL
	return 5 + perField + 16 + w.FieldCount*(perField+w.FieldLength)
}

// Validate checks the data shape; the mix was validated when parsed.
// Each value is named by where it came from (From): its flag, or the file,
// line and key of a workload file, never a flag that was not given.
func (w Workload) Validate() error {
	switch {
	case w.Records < 1 || w.Records > MaxRecords:
		return fmt.Errorf("%s: %s", w.From.name(w.From.Records, "records"), between(w.Records, 1, MaxRecords, w.From.Records))
	case w.FieldCount < 1 || w.FieldCount > 1000:
		return fmt.Errorf("%s: %s", w.From.name(w.From.FieldCount, "fieldcount"), between(w.FieldCount, 1, 1000, w.From.FieldCount))
	case w.FieldLength < 1 || w.FieldLength > 1<<20:
		return fmt.Errorf("%s: %s", w.From.name(w.From.FieldLength, "fieldlength"), between(w.FieldLength, 1, 1<<20, w.From.FieldLength))
	case w.MaxScanLength < 1 || w.MaxScanLength > 100000:
		return fmt.Errorf("%s: %s", w.From.name(w.From.MaxScanLength, "maxscanlength"), between(w.MaxScanLength, 1, 100000, w.From.MaxScanLength))
	case w.DocumentBytes() > MaxDocumentBytes:
		size := fmt.Sprintf("%d × %d makes %d-byte documents", w.FieldCount, w.FieldLength, w.DocumentBytes())
		if w.From.FieldCount != "" || w.From.FieldLength != "" {
			size = "they make documents"
		}
		return fmt.Errorf("%s and %s: %s, over MongoDB's 16 MiB limit", w.From.name(w.From.FieldCount, "fieldcount"), w.From.name(w.From.FieldLength, "fieldlength"), size)
	}
	if err := CheckDatabaseName(w.Database); err != nil {
		return fmt.Errorf("--database: %w", err)
	}
	if err := CheckCollectionName(w.Database, w.Collection); err != nil {
		return fmt.Errorf("collection: %w", err)
	}
	if !contains(Distributions, w.Distribution) {
		return fmt.Errorf("%s: not %s", w.From.name(w.From.Distribution, "distribution"), strings.Join(Distributions, ", "))
	}
	return nil
}

// Sources say where the values of a workload's data shape came from, as
// an error names them: a flag ("--records") or a workload file's line and
// key ("w.props:3: recordcount"). Empty: poolsweep's default.
type Sources struct {
	Records, FieldCount, FieldLength, MaxScanLength, Distribution string
}

// name is where a value came from, or field for a default.
func (Sources) name(from, field string) string {
	if from == "" {
		return "the default " + field
	}
	return from
}

// between says v is out of [lo, hi]; a value from a flag or a default is
// shown, one read from a file only by its key (its line is named).
func between(v, lo, hi int, from string) string {
	if strings.HasPrefix(from, "--") || from == "" {
		return fmt.Sprintf("%d is not between %d and %d", v, lo, hi)
	}
	return fmt.Sprintf("not between %d and %d", lo, hi)
}

// BuiltinWorkload returns the named workload; mix is used by "mixed".
func BuiltinWorkload(name, mix string) (Workload, error) {
	w := DefaultWorkload()
	w.Name, w.Label = name, name
	switch name {
	case "read", "update", "insert", "scan":
		if mix != "" {
			return w, fmt.Errorf("--mix: only used with --workload mixed (got --workload %s)", name)
		}
		w.Mix = []MixEntry{{name, 1}}
	case "api":
		if mix != "" {
			return w, errors.New("--mix: only used with --workload mixed (got --workload api)")
		}
		w.Mix = []MixEntry{{OpRead, 2.0 / 3}, {OpUpdate, 1.0 / 3}}
	case "mixed":
		if mix == "" {
			return w, errors.New("--workload mixed: needs --mix, e.g. --mix read=70,update=30 (ops: read, update, insert, scan, rmw)")
		}
		m, err := ParseMix(mix)
		if err != nil {
			return w, fmt.Errorf("--mix: %w", err)
		}
		w.Mix = m
		w.Label = "mixed " + FormatMix(m)
	default:
		return w, fmt.Errorf("--workload: %s is not one of %s", textfmt.Token(name), strings.Join(BuiltinWorkloads, ", "))
	}
	return w, nil
}

// ParseMix parses "read=70,update=30" (percentages summing to 100) or
// "read=0.7,update=0.3" (proportions summing to 1).
func ParseMix(s string) ([]MixEntry, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty mix")
	}
	seen := map[string]bool{}
	var out []MixEntry
	sum := 0.0
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("%s is not op=share", textfmt.Token(part))
		}
		name = strings.ToLower(strings.TrimSpace(name))
		if !contains(mixOps, name) {
			return nil, fmt.Errorf("%s is not one of %s", textfmt.Token(name), strings.Join(mixOps, ", "))
		}
		if seen[name] {
			return nil, fmt.Errorf("%s is given twice", name)
		}
		seen[name] = true
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s=%s: not a number", name, textfmt.Short(val))
		}
		if v < 0 {
			return nil, fmt.Errorf("%s=%s: negative share", name, textfmt.Short(val))
		}
		sum += v
		if v > 0 {
			out = append(out, MixEntry{name, v})
		}
	}
	return normalise(out, sum)
}

func normalise(out []MixEntry, sum float64) ([]MixEntry, error) {
	var scale float64
	switch {
	case math.Abs(sum-1) < 1e-6:
		scale = 1
	case math.Abs(sum-100) < 1e-4:
		scale = 100
	default:
		return nil, fmt.Errorf("shares sum to %g; they must sum to 1 (proportions) or 100 (percent)", sum)
	}
	for i := range out {
		out[i].Weight /= scale
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Weight > out[j].Weight })
	return out, nil
}

// FormatMix is the canonical text of a mix, "read=70,update=30".
func FormatMix(m []MixEntry) string {
	parts := make([]string, len(m))
	for i, e := range m {
		parts[i] = fmt.Sprintf("%s=%s", e.Op, strconv.FormatFloat(e.Weight*100, 'f', -1, 64))
	}
	return strings.Join(parts, ",")
}

// ParseMixes parses --mixes "100:0:0,0:0:100,50:50:0" (insert:read:update
// percentages, as in the audit-log study) into one workload each.
func ParseMixes(s string, base Workload) ([]Workload, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty list")
	}
	var out []Workload
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		f := strings.Split(part, ":")
		if len(f) != 3 {
			return nil, fmt.Errorf("%s is not insert:read:update", textfmt.Token(part))
		}
		var vals [3]float64
		sum := 0.0
		for i, x := range f {
			v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: %s is not a non-negative number", textfmt.Token(part), textfmt.Token(x))
			}
			vals[i], sum = v, sum+v
		}
		var mix []MixEntry
		for i, op := range []string{OpInsert, OpRead, OpUpdate} {
			if vals[i] > 0 {
				mix = append(mix, MixEntry{op, vals[i]})
			}
		}
		mix, err := normalise(mix, sum)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", textfmt.Token(part), err)
		}
		label := "mix " + part
		if seen[label] {
			return nil, fmt.Errorf("%s is given twice", textfmt.Token(part))
		}
		seen[label] = true
		w := base
		w.Name, w.Label, w.Mix = "mixed", label, mix
		out = append(out, w)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
