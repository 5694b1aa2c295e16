package sim

import (
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
	if p == nil || (f.router && !p.routers) || (!f.router && !p.mongods) {
		return nil
	}
	return p
}
