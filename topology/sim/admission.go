package sim

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// What a replica-set member lets a command do by its role: only the
// primary takes writes, whose reply waits for their write concern; a
// secondary serves reads only to a client that allows reads from
// secondaries; and the errors of a retryable write carry the label on which
// drivers retry it.

// writeCommands are the commands only a primary takes.
var writeCommands = map[string]bool{
	"insert": true, "update": true, "delete": true,
	"create": true, "createIndexes": true, "drop": true, "dropDatabase": true,
}

// secondaryOptIn are the commands a secondary serves only with a read
// preference other than primary (a real server's secondaryOk: these
// commands are "opt-in" on a secondary). getMore and killCursors follow
// their cursor, and hello and the monitoring commands are always allowed.
var secondaryOptIn = map[string]bool{
	"find": true, "count": true, "listCollections": true, "listDatabases": true, "listIndexes": true,
}

// retryableCodes are the errors of a retryable write that a 4.4+ server
// labels RetryableWriteError: not primary, interrupted or shutting down
// through a change of state, and (reachable through failCommand's
// errorCode) the network and time-limit errors the retryable-writes
// specification lists: HostUnreachable, HostNotFound, NetworkTimeout,
// SocketException and ExceededTimeLimit.
var retryableCodes = []int32{10107, 13435, 11602, 13436, 189, 91, 11600, 6, 7, 89, 9001, 262}

// run runs one command on m under its role's rules.
func (m *member) run(ctx context.Context, c *cmd, fn func(context.Context) (bson.D, error)) (bson.D, error) {
	switch {
	case writeCommands[c.name]:
		reply, err := m.runWrite(ctx, c, fn)
		return reply, m.labelled(c, err)
	case secondaryOptIn[c.name] && !m.isPrimary() && !secondaryOk(c):
		return nil, errNotPrimaryNoSecondaryOk(m.rs.d.version)
	}
	return fn(ctx)
}

func (m *member) runWrite(ctx context.Context, c *cmd, fn func(context.Context) (bson.D, error)) (bson.D, error) {
	ctx, w, err := m.beginWrite(ctx, c)
	if err != nil {
		return nil, err
	}
	reply, err := fn(ctx)
	if err != nil {
		return nil, err
	}
	return m.endWrite(ctx, w, reply)
}

// secondaryOk reports whether the client allows this command on a
// secondary: its $readPreference is there and is not primary (drivers send
// none for primary, and primaryPreferred on a direct connection).
func secondaryOk(c *cmd) bool {
	pref, err := c.doc("$readPreference")
	if err != nil || pref == nil {
		return false
	}
	mode, _ := pref.Lookup("mode").StringValueOK()
	return mode != "" && mode != "primary"
}

// labelled adds RetryableWriteError to a retryable write's error as the
// member's version does (retryLabelled).
func (m *member) labelled(c *cmd, err error) error {
	return retryLabelled(m.rs.d.version, c, err)
}
