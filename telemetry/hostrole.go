package telemetry

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The roles DecideRole gives a host: one vocabulary wherever poolsweep
// says what a host was (inspect --replies, analyze --ftdc). A router is
// "mongos", the process's own name, as the results' pool roles call it.
const (
	RoleMongos     = "mongos"
	RolePrimary    = "replica-set primary"
	RoleSecondary  = "replica-set secondary"
	RoleMember     = "replica-set member" // a member whose state the evidence does not give, or gives as neither
	RoleStandalone = "standalone"
	RoleUnknown    = "role unknown"
)

// RoleEvidence is what a host's role is decided from: its replies to
// these commands, each nil when not captured. An FTDC folder has no hello;
// its samples hold replSetGetStatus (a mongod in a replica set collects
// it) or connPoolStats (a mongos does), and its metadata getCmdLineOpts.
type RoleEvidence struct {
	// Hello is a hello or isMaster reply; IsMaster says which (their
	// writable-primary fields differ in name).
	Hello    bson.Raw
	IsMaster bool
	// ReplSetGetStatus and ConnPoolStats are those commands' replies.
	ReplSetGetStatus, ConnPoolStats bson.Raw
	// CmdLineOpts is getCmdLineOpts' reply (its parsed options).
	CmdLineOpts bson.Raw
}

// HostRole is a decided role and why.
type HostRole struct {
	// Role is one of the Role constants.
	Role string
	// SetName is the replica set's name, when the evidence gives it.
	SetName string
	// ClusterRole is the command line's sharding.clusterRole: "shardsvr",
	// "configsvr", or "" (not given, or no command line).
	ClusterRole string
	// Evidence says, in words, what decided Role.
	Evidence string
}

// Member says whether the host is a replica set's member, whatever state
// the evidence gives it.
func (r HostRole) Member() bool {
	return r.Role == RolePrimary || r.Role == RoleSecondary || r.Role == RoleMember
}

// DecideRole decides a host's role from the strongest evidence it has, in
// this order:
//
//  1. hello (or isMaster), as drivers decide: msg "isdbgrid" is a mongos,
//     a setName a member (primary when writable, secondary when it says
//     so), isreplicaset a member of a set not yet initiated, and anything
//     else a standalone;
//  2. connPoolStats: a mongos alone collects it in FTDC, and inspect
//     --save-replies asks it of a router only;
//  3. replSetGetStatus: a mongod collects it only in a replica set, and
//     its own member (self) gives its state;
//  4. getCmdLineOpts: sharding.configDB is an option only a mongos takes,
//     replication.replSetName (replSet before 3.4) names a member's set,
//     and a command line with neither, where the samples hold neither
//     collector above, is a standalone.
//
// Never serverStatus.process: a Windows service reports its executable's
// path there, and a renamed binary anything. Without any of these the
// role is RoleUnknown: the absence of a collector is not proof enough of
// a standalone.
func DecideRole(e RoleEvidence) HostRole {
	r := HostRole{ClusterRole: cmdLineString(e.CmdLineOpts, "sharding", "clusterRole")}
	member := func(role, set, why string) HostRole {
		r.Role, r.SetName, r.Evidence = role, set, why
		switch r.ClusterRole {
		case "shardsvr":
			r.Evidence += " (sharding.clusterRole shardsvr: a shard)"
		case "configsvr":
			r.Evidence += " (sharding.clusterRole configsvr: the config servers)"
		}
		return r
	}
	if e.Hello != nil {
		cmd := "hello"
		if e.IsMaster {
			cmd = "isMaster"
		}
		h := newReply(cmd, e.Hello)
		hi := parseHello(cmd, e.Hello)
		switch {
		case isRouter(e.Hello):
			r.Role, r.Evidence = RoleMongos, "its "+cmd+" says msg isdbgrid, as only a mongos does"
			return r
		case hi.setName != "":
			secondary, _ := h.value("secondary")
			switch isSecondary, _ := secondary.BooleanOK(); {
			case hi.writablePrimary:
				return member(RolePrimary, hi.setName, "its "+cmd+" names a replica set and says it is the writable primary")
			case isSecondary:
				return member(RoleSecondary, hi.setName, "its "+cmd+" names a replica set and says it is a secondary")
			}
			return member(RoleMember, hi.setName, "its "+cmd+" names a replica set")
		}
		if v, ok := h.value("isreplicaset"); ok {
			if b, _ := v.BooleanOK(); b {
				return member(RoleMember, "", "its "+cmd+" says isreplicaset: a member of a set not yet initiated")
			}
		}
		r.Role, r.Evidence = RoleStandalone, "its "+cmd+" names no replica set and is not a mongos's"
		return r
	}
	if e.ConnPoolStats != nil {
		r.Role, r.Evidence = RoleMongos, "its replies hold connPoolStats, which only a mongos collects in FTDC"
		return r
	}
	if e.ReplSetGetStatus != nil {
		set := newReply("replSetGetStatus", e.ReplSetGetStatus).str("set")
		for _, m := range parseReplSetGetStatus(e.ReplSetGetStatus) {
			if !m.self {
				continue
			}
			switch m.state {
			case "PRIMARY":
				return member(RolePrimary, set, "its replSetGetStatus says it is PRIMARY")
			case "SECONDARY":
				return member(RoleSecondary, set, "its replSetGetStatus says it is SECONDARY")
			}
		}
		return member(RoleMember, set, "its replies hold replSetGetStatus, which a mongod collects only in a replica set")
	}
	if e.CmdLineOpts != nil {
		set := cmdLineString(e.CmdLineOpts, "replication", "replSetName")
		if set == "" {
			set = cmdLineString(e.CmdLineOpts, "replication", "replSet")
		}
		switch {
		case cmdLineString(e.CmdLineOpts, "sharding", "configDB") != "":
			r.Role, r.Evidence = RoleMongos, "getCmdLineOpts sets sharding.configDB, an option only a mongos takes"
			return r
		case set != "":
			return member(RoleMember, set, "getCmdLineOpts names a replica set")
		}
		r.Role, r.Evidence = RoleStandalone, "getCmdLineOpts names no replica set and no config servers, and its replies hold neither replSetGetStatus nor connPoolStats"
		return r
	}
	r.Role, r.Evidence = RoleUnknown, "no hello and no getCmdLineOpts, and neither replSetGetStatus nor connPoolStats among its replies"
	return r
}

// cmdLineString is a string option of getCmdLineOpts' parsed command
// line, "" when not set.
func cmdLineString(opts bson.Raw, path ...string) string {
	if opts == nil {
		return ""
	}
	v, err := opts.LookupErr(append([]string{"parsed"}, path...)...)
	if err != nil {
		return ""
	}
	s, _ := v.StringValueOK()
	return s
}
