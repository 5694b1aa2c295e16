package querylog

import (
	"encoding/json"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Log message ids this reader knows (mongod's logv2 ids, stable across
// versions).
const (
	idSlowQuery       = 51803 // "Slow query": an operation slower than slowms, or sampled at slowms 0
	idOptions         = 21951 // "Options set by command line": the startup options
	idProfilerChanged = 48742 // "Profiler settings changed": setProfilingLevel's from and to
	idProfilerFilter  = 72832 // "Profiler settings changed globally": a profile filter
	idBuildInfo       = 23403 // "Build Info": the server's version
)

// mongod's defaults, in effect when the options say nothing.
const (
	defaultSlowMs     = 100
	defaultSampleRate = 1.0
)

type logLine struct {
	Ctx  string          `json:"ctx"`
	Attr json.RawMessage `json:"attr"`
	// Truncated is where mongod says which attributes it cut to
	// maxLogSizeKB (10 KB by default): beside attr, at the top of the
	// entry ("truncated": {"command": {…}}, "size": {"command": 64281}),
	// naming each cut attribute.
	Truncated json.RawMessage `json:"truncated"`
}

// cutCommand says whether an entry's truncated field names its command;
// one that cannot be read is taken to.
func (l *logLine) cutCommand() bool {
	if len(l.Truncated) == 0 || string(l.Truncated) == "null" {
		return false
	}
	var cut map[string]json.RawMessage
	if err := json.Unmarshal(l.Truncated, &cut); err != nil {
		return true
	}
	_, ok := cut["command"]
	return ok
}

func (st *state) logEntry(in *input, text []byte, p *probe) error {
	id := *p.ID
	switch id {
	case idSlowQuery, idOptions, idProfilerChanged, idProfilerFilter, idBuildInfo:
	default:
		return nil
	}
	var l logLine
	if err := json.Unmarshal(text, &l); err != nil || len(l.Attr) == 0 {
		st.rep.warn(in.name, in.line, "a log entry without its attributes, skipped")
		return nil
	}
	var attr bson.D
	if err := bson.UnmarshalExtJSON(l.Attr, false, &attr); err != nil {
		st.rep.warn(in.name, in.line, "a log entry whose attributes are not extended JSON, skipped")
		return nil
	}
	if l.Ctx == "mongosMain" {
		return routerError(in)
	}
	switch id {
	case idOptions:
		return st.options(in, attr)
	case idProfilerChanged:
		to, _ := lookup(attr, "to").(bson.D)
		s := st.current
		if !st.known {
			s = Setting{SlowMs: defaultSlowMs, SampleRate: defaultSampleRate}
			// The from side says what held before this line.
			if from, ok := lookup(attr, "from").(bson.D); ok {
				s = settingFrom(from, s)
			}
		}
		st.current, st.known = settingFrom(to, s), true
		if f := lookup(to, "filter"); f != nil {
			st.rep.ProfileFilter = true
		}
	case idProfilerFilter:
		if to, ok := lookup(attr, "to").(bson.D); ok {
			if f, isStr := lookup(to, "filter").(string); !isStr || f != "none" {
				st.rep.ProfileFilter = true
			}
		}
	case idBuildInfo:
		if bi, ok := lookup(attr, "buildInfo").(bson.D); ok {
			if v, ok := lookup(bi, "version").(string); ok && len(v) <= 40 && !contains(st.rep.Versions, v) {
				st.rep.Versions = append(st.rep.Versions, v)
			}
		}
	case idSlowQuery:
		// A command the line holds cut cannot be replayed as it is
		// (a pipeline cut to {"$eq": []} is another query).
		cut := l.cutCommand()
		if _, inAttr := lookup(attr, "truncated").(bson.D); inAttr {
			cut = true
		}
		return st.slowQuery(in, l.Ctx, attr, cut, logTime(p.T))
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func routerError(in *input) error {
	return &InputError{File: in.name, Line: in.line, Msg: "a mongos (router) log: its slow-query lines are the router's " +
		"(nShards; no plan, no documents examined) and a write's statements are not in them. " +
		"from-log reads mongod logs: give the shards' logs"}
}

// options reads the startup options: a (re)start sets the thresholds to
// what they say, or to mongod's defaults.
func (st *state) options(in *input, attr bson.D) error {
	opts, _ := lookup(attr, "options").(bson.D)
	if sh, ok := lookup(opts, "sharding").(bson.D); ok && lookup(sh, "configDB") != nil {
		return routerError(in)
	}
	s := Setting{SlowMs: defaultSlowMs, SampleRate: defaultSampleRate}
	if op, ok := lookup(opts, "operationProfiling").(bson.D); ok {
		if v, ok := number(lookup(op, "slowOpThresholdMs")); ok {
			s.SlowMs = max(v, 0)
		}
		if v, ok := number(lookup(op, "slowOpSampleRate")); ok {
			s.SampleRate = v
		}
		switch lookup(op, "mode") {
		case "slowOp":
			s.Level = 1
		case "all":
			s.Level = 2
		}
		if lookup(op, "filter") != nil {
			st.rep.ProfileFilter = true
		}
	}
	st.current, st.known = s, true
	return nil
}

func settingFrom(d bson.D, s Setting) Setting {
	if v, ok := number(lookup(d, "slowms")); ok {
		s.SlowMs = max(v, 0) // a negative slowms (-1) logs every operation, as 0 does
	}
	if v, ok := number(lookup(d, "sampleRate")); ok {
		s.SampleRate = v
	}
	if v, ok := number(lookup(d, "level")); ok {
		s.Level = int(v)
	}
	return s
}

// logTime is a log entry's time ("t": {"$date": …}, in any of the
// formats mongod's timeStampFormat writes); zero when it cannot be read.
func logTime(raw json.RawMessage) time.Time {
	if len(raw) == 0 {
		return time.Time{}
	}
	doc := make([]byte, 0, len(raw)+6)
	doc = append(append(append(doc, `{"t":`...), raw...), '}')
	var v struct {
		T bson.DateTime `bson:"t"`
	}
	if err := bson.UnmarshalExtJSON(doc, false, &v); err != nil {
		return time.Time{}
	}
	return v.T.Time()
}

func (st *state) slowQuery(in *input, ctx string, attr bson.D, cut bool, end time.Time) error {
	if lookup(attr, "nShards") != nil {
		return routerError(in)
	}
	ns, _ := lookup(attr, "ns").(string)
	typ, _ := lookup(attr, "type").(string)
	cmd, _ := lookup(attr, "command").(bson.D)
	op := st.observe(in.name, in.line, ctx, typ, ns, cmd, attr, logKeys)
	if op == nil {
		return nil
	}
	if cut {
		st.rep.skip(skipTruncated, 1)
		return nil
	}
	op.End = end
	if st.known {
		op.SampleRate = st.current.SampleRate
	}
	kept := st.rep.Entries
	if err := st.deliver(op); err != nil {
		return err
	}
	if st.rep.Entries > kept { // the thresholds of the operations kept (not --app's others, nor those left out)
		if st.known {
			st.settings[st.current]++
		} else {
			st.rep.Unknown++
		}
	}
	return nil
}
