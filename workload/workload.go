package workload

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/magiconair/properties"

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
	// ReadPreference and WriteConcern are the driver settings its calls
	// run with (results.ReadPreferences, results.WriteConcerns); "" keeps
	// the URI's or the driver's default.
	ReadPreference string
	WriteConcern   string
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
func (w Workload) Validate() error {
	switch {
	case w.Records < 1 || w.Records > MaxRecords:
		return fmt.Errorf("--records: %d is not between 1 and %d", w.Records, MaxRecords)
	case w.FieldCount < 1 || w.FieldCount > 1000:
		return fmt.Errorf("fieldcount: %d is not between 1 and 1000", w.FieldCount)
	case w.FieldLength < 1 || w.FieldLength > 1<<20:
		return fmt.Errorf("fieldlength: %d is not between 1 and 1048576", w.FieldLength)
	case w.MaxScanLength < 1 || w.MaxScanLength > 100000:
		return fmt.Errorf("maxscanlength: %d is not between 1 and 100000", w.MaxScanLength)
	case w.DocumentBytes() > MaxDocumentBytes:
		return fmt.Errorf("fieldcount × fieldlength: %d × %d makes %d-byte documents, over MongoDB's 16 MiB limit", w.FieldCount, w.FieldLength, w.DocumentBytes())
	}
	if err := CheckDatabaseName(w.Database); err != nil {
		return fmt.Errorf("--database: %w", err)
	}
	if err := CheckCollectionName(w.Database, w.Collection); err != nil {
		return fmt.Errorf("collection: %w", err)
	}
	if !contains(Distributions, w.Distribution) {
		return fmt.Errorf("--distribution: %q is not one of %s", w.Distribution, strings.Join(Distributions, ", "))
	}
	return nil
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
		return w, fmt.Errorf("--workload: %q is not one of %s", name, strings.Join(BuiltinWorkloads, ", "))
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
			return nil, fmt.Errorf("%q is not op=share", part)
		}
		name = strings.ToLower(strings.TrimSpace(name))
		if !contains(mixOps, name) {
			return nil, fmt.Errorf("%q is not one of %s", name, strings.Join(mixOps, ", "))
		}
		if seen[name] {
			return nil, fmt.Errorf("%s is given twice", name)
		}
		seen[name] = true
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s=%s: not a number", name, val)
		}
		if v < 0 {
			return nil, fmt.Errorf("%s=%s: negative share", name, val)
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
			return nil, fmt.Errorf("%q is not insert:read:update", part)
		}
		var vals [3]float64
		sum := 0.0
		for i, x := range f {
			v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%q: %q is not a non-negative number", part, x)
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
			return nil, fmt.Errorf("%q: %w", part, err)
		}
		label := "mix " + part
		if seen[label] {
			return nil, fmt.Errorf("%q is given twice", part)
		}
		seen[label] = true
		w := base
		w.Name, w.Label, w.Mix = "mixed", label, mix
		out = append(out, w)
	}
	return out, nil
}

// PropertyFile is the result of reading a YCSB core-workload file.
type PropertyFile struct {
	Workload Workload
	Notes    []string // keys read but ignored, with why
	Warnings []string // keys poolsweep does not know
}

// ycsbIgnored are YCSB keys that make no sense for a time-based sweep, or
// that poolsweep decides itself; reading them gets a note, not a warning.
var ycsbIgnored = map[string]string{
	"operationcount":          "poolsweep runs each step for --duration, not for a number of operations",
	"workload":                "poolsweep has its own core workload",
	"readallfields":           "reads always return the whole document",
	"writeallfields":          "updates set one field",
	"insertorder":             "keys are always ordered user<n>",
	"insertstart":             "loading always starts at user0",
	"insertcount":             "--records sets the data set size",
	"threadcount":             "--concurrency sets the threads",
	"threads":                 "--concurrency sets the threads",
	"scanlengthdistribution":  "scan lengths are uniform in 1..maxscanlength",
	"fieldlengthdistribution": "fields have a constant length",
	"table":                   "the collection is set by poolsweep (usertable)",
	"measurementtype":         "poolsweep always records HdrHistograms",
	"maxexecutiontime":        "--duration bounds each step",
	"target":                  "poolsweep runs closed-loop at each concurrency level",
}

// ParsePropertyFile reads a YCSB workload property file (workloada style).
func ParsePropertyFile(r io.Reader, name string, base Workload) (PropertyFile, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return PropertyFile{}, fmt.Errorf("%s: %w", name, err)
	}
	p, err := properties.Load(b, properties.UTF8)
	if err != nil {
		return PropertyFile{}, fmt.Errorf("%s: %w", name, err)
	}
	pf := PropertyFile{Workload: base}
	w := &pf.Workload
	w.Name, w.File = "mixed", name
	intKey := func(k string, dst *int) error {
		v, ok := p.Get(k)
		if !ok {
			return nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("%s: %s=%q is not a whole number", name, k, v)
		}
		*dst = n
		return nil
	}
	for k, dst := range map[string]*int{"recordcount": &w.Records, "fieldcount": &w.FieldCount, "fieldlength": &w.FieldLength, "maxscanlength": &w.MaxScanLength} {
		if err := intKey(k, dst); err != nil {
			return pf, err
		}
	}
	var mix []MixEntry
	sum := 0.0
	for _, op := range mixOps {
		key := op + "proportion"
		if op == OpRMW {
			key = "readmodifywriteproportion"
		}
		v, ok := p.Get(key)
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return pf, fmt.Errorf("%s: %s=%q is not a proportion between 0 and 1", name, key, v)
		}
		sum += f
		if f > 0 {
			mix = append(mix, MixEntry{op, f})
		}
	}
	if len(mix) == 0 {
		return pf, fmt.Errorf("%s: no *proportion key above 0 (readproportion, updateproportion, insertproportion, scanproportion, readmodifywriteproportion)", name)
	}
	if math.Abs(sum-1) > 1e-6 {
		return pf, fmt.Errorf("%s: proportions sum to %g, not 1", name, sum)
	}
	w.Mix, _ = normalise(mix, 1)
	w.Label = "ycsb " + FormatMix(w.Mix)
	if v, ok := p.Get("requestdistribution"); ok {
		v = strings.TrimSpace(v)
		if !contains(Distributions, v) {
			return pf, fmt.Errorf("%s: requestdistribution=%s is not supported (use %s)", name, v, strings.Join(Distributions, ", "))
		}
		w.Distribution = v
	}
	known := map[string]bool{"recordcount": true, "fieldcount": true, "fieldlength": true, "maxscanlength": true, "requestdistribution": true,
		"readproportion": true, "updateproportion": true, "insertproportion": true, "scanproportion": true, "readmodifywriteproportion": true}
	keys := p.Keys()
	sort.Strings(keys)
	for _, k := range keys {
		switch {
		case known[k]:
		case ycsbIgnored[k] != "":
			pf.Notes = append(pf.Notes, fmt.Sprintf("%s: %s ignored: %s", name, k, ycsbIgnored[k]))
		default:
			pf.Warnings = append(pf.Warnings, fmt.Sprintf("%s: unknown key %s ignored", name, k))
		}
	}
	return pf, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
