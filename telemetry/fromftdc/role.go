package fromftdc

import (
	"slices"
	"strings"
)

// Roles a capture can show.
const (
	RoleRouter     = "mongos"
	RoleMember     = "replica-set member"
	RoleStandalone = "standalone"
	RoleUnknown    = "role unknown"
)

// role decides what the host was from what only that kind of process
// collects or is started with, never from serverStatus.process (a Windows
// service reports the exe's path, and a renamed binary anything): a mongos
// alone collects connPoolStats and is started with sharding.configDB; a
// mongod collects replSetGetStatus only when replication is on, when its
// hello would name a set. A standalone is known only from its command line
// (getCmdLineOpts, in the files' metadata): without it, the absence of
// both collectors is not proof enough.
func (c *Capture) role() (role, evidence string) {
	configDB := c.opt("sharding", "configDB")
	setName := c.opt("replication", "replSetName") != "" || c.opt("replication", "replSet") != ""
	switch {
	case c.router:
		return RoleRouter, "its samples hold connPoolStats, which only a mongos collects"
	case configDB != "":
		return RoleRouter, "getCmdLineOpts sets sharding.configDB, an option only a mongos takes"
	case c.member:
		return RoleMember, "its samples hold replSetGetStatus, which a mongod collects only in a replica set" + c.clusterRole()
	case setName:
		return RoleMember, "getCmdLineOpts names a replica set" + c.clusterRole()
	case c.cmdLineOpts != nil:
		return RoleStandalone, "getCmdLineOpts names no replica set and no config servers, and its samples hold no replSetGetStatus"
	}
	return RoleUnknown, "no getCmdLineOpts in its files, and neither replSetGetStatus nor connPoolStats in its samples"
}

// clusterRole is a member's sharding role, as its command line gives it.
func (c *Capture) clusterRole() string {
	switch c.opt("sharding", "clusterRole") {
	case "shardsvr":
		return " (sharding.clusterRole shardsvr: a shard)"
	case "configsvr":
		return " (sharding.clusterRole configsvr: the config servers)"
	}
	return ""
}

// opt is a string option of the command line (getCmdLineOpts.parsed), ""
// when not set.
func (c *Capture) opt(path ...string) string {
	if c.cmdLineOpts == nil {
		return ""
	}
	v, err := c.cmdLineOpts.LookupErr(append([]string{"parsed"}, path...)...)
	if err != nil {
		return ""
	}
	s, _ := v.StringValueOK()
	return s
}

// windowRole is the host's role during a window: a replica-set member's
// state as its own replSetGetStatus gives it (its hello's), each state it
// had in turn.
func (c *Capture) windowRole(pts []point) string {
	if c.Role != RoleMember {
		return c.Role
	}
	var states []string
	for _, p := range pts {
		if p.kept == nil {
			continue
		}
		s := strings.ToLower(p.kept.MemberState())
		if s != "" && (len(states) == 0 || states[len(states)-1] != s) {
			states = append(states, s)
		}
	}
	if len(states) == 0 {
		return RoleMember
	}
	prefix := ""
	if r := c.opt("sharding", "clusterRole"); r == "shardsvr" {
		prefix = "shard "
	} else if r == "configsvr" {
		prefix = "config server "
	}
	return prefix + strings.Join(slices.Compact(states), ", then ")
}

// setName is the replica set's name as the command line gives it, else
// the host's name.
func (c *Capture) setName() string {
	for _, k := range []string{"replSetName", "replSet"} {
		if n := c.opt("replication", k); n != "" {
			return n
		}
	}
	return c.Host
}
