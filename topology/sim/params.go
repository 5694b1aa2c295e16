package sim

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// serverParam is one server parameter the simulator has, as a real server
// has it: which processes carry it, whether setParameter may change it
// while the server runs, and how one server reads and sets it. getParameter
// and setParameter answer from this table, so a parameter added here is
// readable and settable with the server's own commands and replies.
type serverParam struct {
	name string
	// routers and mongods say which processes have the parameter: a name
	// a process lacks is "no option found", as on a real server.
	routers, mongods bool
	// since is the wire version of the first release that has it (0:
	// every version the simulator answers as).
	since int32
	// runtime says setParameter may change it while the server runs;
	// false is a startup-only parameter, which setParameter refuses as a
	// real server does.
	runtime bool
	// get reads the parameter's value on one server.
	get func(f *frontend) any
	// set checks and applies a new value on one server (runtime only). An
	// error is the server's own reply to a value of the wrong type or out
	// of range.
	set func(f *frontend, v bson.RawValue) error
}

var (
	paramsMu     sync.RWMutex
	serverParams = map[string]*serverParam{}
)

// registerParam adds a parameter to the table; each file that models a
// parameter registers it from an init function, so the table has one
// home and the models stay in their own files.
func registerParam(p *serverParam) {
	paramsMu.Lock()
	defer paramsMu.Unlock()
	if _, dup := serverParams[p.name]; dup {
		panic("sim: server parameter registered twice: " + p.name)
	}
	serverParams[p.name] = p
}

// lookupParam finds a parameter this server has, or nil.
func lookupParam(f *frontend, name string) *serverParam {
	paramsMu.RLock()
	defer paramsMu.RUnlock()
	p := serverParams[name]
	if p == nil || (f.router && !p.routers) || (!f.router && !p.mongods) || f.d.version.wire < p.since {
		return nil
	}
	return p
}

// Generic arguments a driver adds to every command; getParameter and
// setParameter skip them, as a real server does (isGenericArgument), so
// that a session or a $db is never taken for a parameter's name.
var genericArgs = map[string]bool{
	"$db": true, "lsid": true, "$clusterTime": true, "$readPreference": true, "comment": true,
	"apiVersion": true, "apiStrict": true, "apiDeprecationErrors": true, "maxTimeMS": true,
	"readConcern": true, "writeConcern": true, "txnNumber": true, "autocommit": true, "startTransaction": true,
}

// paramsOf lists the parameters f has, by name.
func paramsOf(f *frontend) []*serverParam {
	paramsMu.RLock()
	names := make([]string, 0, len(serverParams))
	for n := range serverParams {
		names = append(names, n)
	}
	paramsMu.RUnlock()
	slices.Sort(names)
	var out []*serverParam
	for _, n := range names {
		if p := lookupParam(f, n); p != nil {
			out = append(out, p)
		}
	}
	return out
}

// cmdGetParameter answers getParameter from the table: {getParameter: 1,
// NAME: 1, …} gives each NAME this server has and ignores the others;
// {getParameter: "*"} or {getParameter: {allParameters: true}} gives
// every one; {showDetails: true} gives each as {value, settableAtRuntime,
// settableAtStartup}. When none of the names is one it has, the reply is
// "no option found to get" (InvalidOptions), as a real server's
// (src/mongo/db/commands/parameters.cpp).
func cmdGetParameter(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	if c.db != "admin" {
		return nil, errAdminOnly(c.name)
	}
	first := c.body.Index(0).Value()
	all, details := false, false
	if s, ok := first.StringValueOK(); ok && s == "*" {
		all = true
	}
	if doc, ok := first.DocumentOK(); ok {
		if v, err := doc.LookupErr("allParameters"); err == nil {
			all = v.Boolean()
		}
		if v, err := doc.LookupErr("showDetails"); err == nil {
			details = v.Boolean()
		}
	}
	var out bson.D
	for _, p := range paramsOf(f) {
		if !all {
			if _, err := c.body.LookupErr(p.name); err != nil {
				continue
			}
		}
		v := p.get(f)
		if details {
			v = bson.D{{Key: "value", Value: v}, {Key: "settableAtRuntime", Value: p.runtime}, {Key: "settableAtStartup", Value: true}}
		}
		out = append(out, bson.E{Key: p.name, Value: v})
	}
	if len(out) == 0 {
		return nil, &cmdError{Code: 72, Name: "InvalidOptions", Msg: "no option found to get"}
	}
	return out, nil
}

// cmdSetParameter answers setParameter from the table, as a real server
// does: every name is checked before anything is set (a name the server
// lacks is "attempted to set unrecognized parameter [NAME], use help:true
// to see options " (InvalidOptions), a startup-only one "not allowed to
// change [NAME] at runtime" (IllegalOperation)); then each is set in
// turn, and the reply's "was" is the first one's value before it. A
// value of the wrong type or out of range is the parameter's own
// refusal (BadValue).
func cmdSetParameter(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	if c.db != "admin" {
		return nil, errAdminOnly(c.name)
	}
	type change struct {
		p *serverParam
		v bson.RawValue
	}
	var changes []change
	elems, err := c.body.Elements()
	if err != nil {
		return nil, &cmdError{Code: 2, Name: "BadValue", Msg: "malformed setParameter"}
	}
	for _, e := range elems[1:] {
		name := e.Key()
		if genericArgs[name] {
			continue
		}
		p := lookupParam(f, name)
		if p == nil {
			return nil, &cmdError{Code: 72, Name: "InvalidOptions", Msg: "attempted to set unrecognized parameter [" + name + "], use help:true to see options "}
		}
		if !p.runtime || p.set == nil {
			return nil, &cmdError{Code: 20, Name: "IllegalOperation", Msg: "not allowed to change [" + name + "] at runtime"}
		}
		v := e.Value()
		changes = append(changes, change{p, bson.RawValue{Type: bson.Type(v.Type), Value: v.Data}})
	}
	if len(changes) == 0 {
		return nil, &cmdError{Code: 72, Name: "InvalidOptions", Msg: "no option found to set, use help:true to see options "}
	}
	var reply bson.D
	for i, ch := range changes {
		if i == 0 {
			reply = bson.D{{Key: "was", Value: ch.p.get(f)}}
		}
		if err := ch.p.set(f, ch.v); err != nil {
			return nil, &cmdError{Code: 2, Name: "BadValue", Msg: "Invalid value for " + ch.p.name + ": " + err.Error()}
		}
	}
	return reply, nil
}

// intParam reads v as a whole number from lo to hi, as a server's
// integer parameter takes it: any numeric BSON type holding a whole
// value; a string or a fraction is refused.
func intParam(v bson.RawValue, lo, hi int64) (int64, error) {
	var n int64
	switch v.Type {
	case bson.TypeInt32:
		n = int64(v.Int32())
	case bson.TypeInt64:
		n = v.Int64()
	case bson.TypeDouble:
		d := v.Double()
		if d != math.Trunc(d) || math.Abs(d) > 1<<53 {
			return 0, fmt.Errorf("%v is not a whole number", d)
		}
		n = int64(d)
	default:
		return 0, fmt.Errorf("Unable to coerce value to integral type from %s", v.Type)
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%d is not between %d and %d", n, lo, hi)
	}
	return n, nil
}

func init() {
	// enableTestCommands is a startup parameter on every process
	// (test_commands=true is starting with it).
	registerParam(&serverParam{name: "enableTestCommands", routers: true, mongods: true,
		get: func(f *frontend) any { return f.d.spec.TestCommands }})
}
