package fromftdc

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/ftdc"
	"github.com/poolsweep/poolsweep/telemetry"
)

// decideRole decides what the host was with telemetry.DecideRole, from
// what inspect --replies gives it for the same folder: the newest
// sample's replSetGetStatus and connPoolStats (the interim file's last,
// else the newest archive's), and the command line of the files'
// metadata (getCmdLineOpts). So both commands say the same role for one
// folder. newest is the last sample read, nil when none could be rebuilt.
func (c *Capture) decideRole(newest bson.Raw) {
	e := telemetry.RoleEvidence{CmdLineOpts: c.cmdLineOpts}
	if newest != nil {
		e.ReplSetGetStatus = ftdc.Section(newest, "replSetGetStatus")
		e.ConnPoolStats = ftdc.Section(newest, "connPoolStats")
	}
	c.role = telemetry.DecideRole(e)
	c.Role, c.RoleEvidence = c.role.Role, c.role.Evidence
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
	if !c.role.Member() {
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
		return telemetry.RoleMember
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
