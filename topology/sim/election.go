package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Step-down and election. replSetStepDown (or Deployment.StepDown) makes
// the primary a secondary at once: from then on no member is writable, and
// the writes still in progress on it fail with InterruptedDueToReplStateChange
// when they would have applied, as a real primary (4.2+) kills its writes in
// progress without closing connections. After the election delay the
// secondary that will have applied the old primary's log first is elected
// (never before it has applied all of it: a real set elects only a
// caught-up member); the term grows by one, so the new primary's
// electionId is greater, and it logs a no-op entry of the new term, as a
// real new primary does. The driver learns of it by polling hello.

// stepDown makes m, which must be primary, step down. secs is how long it
// may not be elected again; force allows stepping down with no other
// member to elect (m is then elected again after secs).
func (rs *replSet) stepDown(m *member, force bool, secs time.Duration) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.primary != m.index {
		err := errNotWritablePrimary(rs.d.version)
		err.Msg += " so can't step down"
		return err
	}
	now := time.Now()
	var next *member
	var caughtUp time.Time
	for _, c := range rs.members {
		if c == m || c.barred.After(now) {
			continue
		}
		if done := c.doneBy(); next == nil || done.Before(caughtUp) {
			next, caughtUp = c, done
		}
	}
	at := now.Add(rs.d.spec.ElectionDelay)
	switch {
	case next == nil && !force:
		return &cmdError{Code: 262, Name: "ExceededTimeLimit", Msg: fmt.Sprintf(
			"No electable secondaries caught up as of %s. Please use the replSetStepDown command with the argument {force: true} to force node to step down.",
			now.UTC().Format(time.RFC3339))}
	case next == nil:
		next, at = m, later(at, now.Add(secs))
	default:
		at = later(at, caughtUp)
	}
	rs.primary = -1
	m.barred = now.Add(secs)
	// A primary stepping down hands the election off (enableElectionHandoff,
	// on by default from 4.0.2): it asks the elected member to step up,
	// which counts it as a stepUpCmd election. Alone, it runs again when
	// its election timeout passes.
	handoff := next != m
	rs.election = time.AfterFunc(time.Until(at), func() { rs.elect(next, handoff) })
	return nil
}

// elect makes m primary in a new term (the election timer's end);
// handoff says the old primary asked m to step up.
func (rs *replSet) elect(m *member, handoff bool) {
	if rs.d.ctx.Err() != nil {
		return
	}
	m.catchUp()
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.primary >= 0 {
		return
	}
	rs.term++
	rs.primary = m.index
	rs.electedAt = time.Now()
	rs.election = nil
	rs.electedOp = rs.appendLocked(nil).op
	m.elections.won(handoff)
}

// electionCounts are the counters of serverStatus.electionMetrics a
// member of the simulator can move: an election is called and won at
// once (no member votes no), the winner is always caught up (it is
// elected only once it has applied everything), and no election is a
// priority, catch-up or freeze takeover.
type electionCounts struct {
	stepUp, timeout, alreadyCaughtUp int64
}

func (e *electionCounts) won(handoff bool) {
	if handoff {
		e.stepUp++
	} else {
		e.timeout++
	}
	e.alreadyCaughtUp++
}

// electionMetrics is serverStatus.electionMetrics as a real mongod
// (4.2+) reports it, in its order and types (int64 counters, a double
// average; the 4.2.1, 7.0.1 and 8.0.9 captures): a standalone's and a
// shard's all zero, a member's from its elections.
func electionMetrics(e electionCounts) bson.D {
	reason := func(n int64) bson.D { return bson.D{{Key: "called", Value: n}, {Key: "successful", Value: n}} }
	return bson.D{
		{Key: "stepUpCmd", Value: reason(e.stepUp)},
		{Key: "priorityTakeover", Value: reason(0)},
		{Key: "catchUpTakeover", Value: reason(0)},
		{Key: "electionTimeout", Value: reason(e.timeout)},
		{Key: "freezeTimeout", Value: reason(0)},
		{Key: "numStepDownsCausedByHigherTerm", Value: int64(0)},
		{Key: "numCatchUps", Value: int64(0)},
		{Key: "numCatchUpsSucceeded", Value: int64(0)},
		{Key: "numCatchUpsAlreadyCaughtUp", Value: e.alreadyCaughtUp},
		{Key: "numCatchUpsSkipped", Value: int64(0)},
		{Key: "numCatchUpsTimedOut", Value: int64(0)},
		{Key: "numCatchUpsFailedWithError", Value: int64(0)},
		{Key: "numCatchUpsFailedWithNewTerm", Value: int64(0)},
		{Key: "numCatchUpsFailedWithReplSetAbortPrimaryCatchUpCmd", Value: int64(0)},
		{Key: "averageCatchUpOps", Value: 0.0},
	}
}

// cmdReplSetStepDown answers replSetStepDown: {replSetStepDown: secs,
// secondaryCatchUpPeriodSecs, force}. secs defaults to 60 and must not be
// shorter than the catch-up period (default 10), as on a real server; the
// reply is {ok: 1} once the member has stepped down (connections stay
// open, as from 4.2). A standalone answers NoReplicationEnabled.
func cmdReplSetStepDown(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	if f.member == nil {
		return nil, errNoReplication()
	}
	secs, _, err := c.int(c.name)
	if err != nil {
		return nil, err
	}
	if secs == 0 {
		secs = 60
	}
	catchUp, given, err := c.int("secondaryCatchUpPeriodSecs")
	if err != nil {
		return nil, err
	}
	if !given {
		catchUp = 10
	}
	switch {
	case secs < 0:
		return nil, errBadValue("stepdown period must be a positive integer")
	case catchUp > secs:
		return nil, errBadValue("stepdown period must be longer than secondaryCatchUpPeriodSecs")
	}
	if err := f.d.rs.stepDown(f.member, c.bool("force", false), time.Duration(secs)*time.Second); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

// stepDown makes the replica set's primary step down, as replSetStepDown
// does (without force, barred from re-election for 60 s); a secondary is
// elected after the spec's election delay. It fails on a deployment that
// is not a replica set, while an election runs, and on a one-member set.
func (d *Deployment) stepDown(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d.rs == nil {
		return errors.New("sim: step down: not a replica set (rs=N)")
	}
	v := d.rs.view()
	if v.primary < 0 {
		return errors.New("sim: step down: no primary (an election is running)")
	}
	if err := d.rs.stepDown(d.rs.members[v.primary], false, time.Minute); err != nil {
		return fmt.Errorf("sim: step down: %w", err)
	}
	return nil
}

// Primary returns the host:port of the replica set's primary, or "" while
// an election runs or when the deployment is not a replica set.
func (d *Deployment) Primary() string {
	if d.rs == nil {
		return ""
	}
	if v := d.rs.view(); v.primary >= 0 {
		return d.rs.members[v.primary].front.host
	}
	return ""
}

// waitPrimary waits until the replica set has a primary and returns its
// host:port.
func (d *Deployment) waitPrimary(ctx context.Context) (string, error) {
	if d.rs == nil {
		return "", errors.New("sim: not a replica set (rs=N)")
	}
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		if h := d.Primary(); h != "" {
			return h, nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-t.C:
		}
	}
}

// The errors of a member that is not (or no longer) primary, as the
// version names them: "not master" before 5.0, "not primary" from 5.0
// (SERVER-50412 and its siblings, 4.9).

func errNotWritablePrimary(v serverVersion) *cmdError {
	if v.primaryNames {
		return &cmdError{Code: 10107, Name: "NotWritablePrimary", Msg: "not primary"}
	}
	return &cmdError{Code: 10107, Name: "NotMaster", Msg: "not master"}
}

func errNotPrimaryNoSecondaryOk(v serverVersion) *cmdError {
	if v.primaryNames {
		return &cmdError{Code: 13435, Name: "NotPrimaryNoSecondaryOk", Msg: "not primary and secondaryOk=false"}
	}
	return &cmdError{Code: 13435, Name: "NotMasterNoSlaveOk", Msg: "not master and slaveOk=false"}
}

func errInterrupted() *cmdError {
	return &cmdError{Code: 11602, Name: "InterruptedDueToReplStateChange", Msg: "operation was interrupted because of a replication state change"}
}

func errNoReplication() *cmdError {
	return &cmdError{Code: 76, Name: "NoReplicationEnabled", Msg: "not running with --replSet"}
}
