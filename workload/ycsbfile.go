package workload

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

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

// ycsbOther are YCSB's other property names (its core workload's, its
// measurements' and its MongoDB binding's) that poolsweep does not use: a
// warning names them, since the name is this list's, not the file's. Any
// other key is named by its line only.
var ycsbOther = map[string]bool{
	"fieldnameprefix": true, "minfieldlength": true, "fieldlengthhistogram": true, "hotspotdatafraction": true,
	"hotspotopnfraction": true, "dataintegrity": true, "exporter": true, "exportfile": true, "histogram.buckets": true,
	"hdrhistogram.percentiles": true, "hdrhistogram.fileoutput": true, "timeseries.granularity": true, "status.interval": true,
	"core_workload_insertion_retry_limit": true, "core_workload_insertion_retry_interval": true, "db": true,
	"mongodb.url": true, "mongodb.database": true, "mongodb.writeConcern": true, "mongodb.readPreference": true,
	"mongodb.maxconnections": true, "mongodb.threadsAllowedToBlockForConnectionMultiplier": true, "mongodb.upsert": true,
	"batchsize": true,
}

// ParsePropertyFile reads a YCSB workload property file (workloada style)
// over base. Every problem is a *PropertyError naming the file, the line
// and the key; none quotes what the file holds, so a file that is not a
// workload file (a symlink to a password file, binary data) shows nothing
// of itself. The data shape it gives is checked (Validate) with each value
// named by its file, line and key.
func ParsePropertyFile(r io.Reader, name string, base Workload) (PropertyFile, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return PropertyFile{}, fmt.Errorf("%s: %w", name, err)
	}
	props, line, err := readProperties(b)
	if err != nil {
		return PropertyFile{}, &PropertyError{File: name, Line: line, Msg: err.Error()}
	}
	p := map[string]property{}
	for _, pr := range props {
		p[pr.key] = pr
	}
	pf := PropertyFile{Workload: base}
	w := &pf.Workload
	w.Name, w.File = "mixed", name
	bad := func(pr property, format string, a ...any) error {
		return &PropertyError{File: name, Line: pr.line, Key: pr.key, Msg: fmt.Sprintf(format, a...)}
	}
	for _, k := range []struct {
		key  string
		dst  *int
		from *string
	}{{"recordcount", &w.Records, &w.From.Records}, {"fieldcount", &w.FieldCount, &w.From.FieldCount},
		{"fieldlength", &w.FieldLength, &w.From.FieldLength}, {"maxscanlength", &w.MaxScanLength, &w.From.MaxScanLength}} {
		pr, ok := p[k.key]
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(pr.value))
		if err != nil {
			return pf, bad(pr, "not a whole number")
		}
		*k.dst, *k.from = n, pr.source(name)
	}
	var mix []MixEntry
	sum := 0.0
	for _, op := range mixOps {
		key := op + "proportion"
		if op == OpRMW {
			key = "readmodifywriteproportion"
		}
		pr, ok := p[key]
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(pr.value), 64)
		if err != nil || f < 0 || f > 1 || math.IsNaN(f) {
			return pf, bad(pr, "not a proportion between 0 and 1")
		}
		sum += f
		if f > 0 {
			mix = append(mix, MixEntry{op, f})
		}
	}
	if len(mix) == 0 {
		return pf, &PropertyError{File: name, Msg: "no *proportion key above 0 (readproportion, updateproportion, insertproportion, scanproportion, readmodifywriteproportion)"}
	}
	if math.Abs(sum-1) > 1e-6 {
		return pf, &PropertyError{File: name, Msg: fmt.Sprintf("the *proportion keys sum to %g, not 1", sum)}
	}
	w.Mix, _ = normalise(mix, 1)
	w.Label = "ycsb " + FormatMix(w.Mix)
	if pr, ok := p["requestdistribution"]; ok {
		v := strings.TrimSpace(pr.value)
		if !contains(Distributions, v) {
			return pf, bad(pr, "not one poolsweep supports (%s)", strings.Join(Distributions, ", "))
		}
		w.Distribution, w.From.Distribution = v, pr.source(name)
	}
	if err := w.Validate(); err != nil {
		return pf, err
	}
	known := map[string]bool{"recordcount": true, "fieldcount": true, "fieldlength": true, "maxscanlength": true, "requestdistribution": true,
		"readproportion": true, "updateproportion": true, "insertproportion": true, "scanproportion": true, "readmodifywriteproportion": true}
	for _, pr := range props {
		switch {
		case known[pr.key]:
		case ycsbIgnored[pr.key] != "":
			pf.Notes = append(pf.Notes, fmt.Sprintf("%s: %s ignored: %s", pr.source(name), pr.key, ycsbIgnored[pr.key]))
		case ycsbOther[pr.key]:
			pf.Warnings = append(pf.Warnings, fmt.Sprintf("%s: unknown key %s ignored", pr.source(name), pr.key))
		case propertyName(pr.key) && pr.value != "":
			// A key of the file's own: its line, not its text, which may
			// be anything a file that is not a workload file holds.
			pf.Warnings = append(pf.Warnings, fmt.Sprintf("%s:%d: a key that is not a YCSB workload property poolsweep knows; ignored", name, pr.line))
		default:
			pf.Warnings = append(pf.Warnings, fmt.Sprintf("%s:%d: not a key=value line of a workload file; ignored", name, pr.line))
		}
	}
	return pf, nil
}

// source names where a property's value came from, as an error says it.
func (pr property) source(file string) string { return fmt.Sprintf("%s:%d: %s", file, pr.line, pr.key) }

// propertyName reports whether k reads as the name of a property
// (mongodb.url, fieldnameprefix), which a warning may name: a short word
// of letters, digits, '.', '_' and '-'. Anything else on a line is not
// shown, since it may be what a file that is not a workload file holds.
func propertyName(k string) bool {
	if k == "" || len(k) > 40 {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
