package telemetry

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/results"
)

// Replication lag. A secondary that falls behind serves older data to
// reads that go to it, and makes w:"majority" writes wait; it shows in
// replSetGetStatus, where each member's applied optime is listed
// (members[].optimeDate in whole seconds in every version, and from 4.4
// members[].lastAppliedWallTime in milliseconds; see the corpus). A
// member's lag is the primary's applied time minus its own, as the
// primary sees them (the primary's reply is the one whose self member is
// PRIMARY; a secondary's view of the others is a heartbeat older). The
// sampler asks every member of a replica set each sample, and keeps the
// primary's answers.

// Thresholds of "fell behind", for the step's warning.
const (
	// fellBehindGrowth is how much a secondary's lag must grow over a
	// window to count as falling behind (more than optimeDate's second).
	fellBehindGrowth = 1500 * time.Millisecond
	// fellBehindLag is a lag that is behind whatever it did in the window.
	fellBehindLag = 10 * time.Second
)

// memberOptime is one member's applied optime in a replSetGetStatus reply.
type memberOptime struct {
	name    string
	state   string // stateStr: PRIMARY, SECONDARY, …
	self    bool
	applied time.Time // zero when the reply gives none
	ms      bool      // applied has millisecond precision (lastAppliedWallTime)
}

// parseReplSetGetStatus reads each member's name, state and applied
// optime; nil when the reply lists no member.
func parseReplSetGetStatus(doc bson.Raw) []memberOptime {
	r := newReply("replSetGetStatus", doc)
	var out []memberOptime
	r.each("members", func(_ string, m reply) {
		mo := memberOptime{name: m.str("name"), state: m.str("stateStr")}
		if v, ok := m.value("self"); ok {
			mo.self, _ = v.BooleanOK()
		}
		if v, ok := m.value("lastAppliedWallTime"); ok && v.Type == bson.TypeDateTime {
			mo.applied, mo.ms = v.Time(), true
		} else if v, ok := m.value("optimeDate"); ok && v.Type == bson.TypeDateTime {
			mo.applied = v.Time()
		}
		if mo.name != "" {
			out = append(out, mo)
		}
	})
	return out
}

// lags are the secondaries' replication lags in a primary's reply; ok is
// false when the reply is not a primary's (or gives no applied time).
func lags(ms []memberOptime) (lag map[string]time.Duration, precise, ok bool) {
	var primary *memberOptime
	for i := range ms {
		if ms[i].self && ms[i].state == "PRIMARY" {
			primary = &ms[i]
		}
	}
	if primary == nil || primary.applied.IsZero() {
		return nil, false, false
	}
	lag, precise = map[string]time.Duration{}, primary.ms
	for _, m := range ms {
		if m.state != "SECONDARY" || m.applied.IsZero() {
			continue
		}
		lag[m.name] = max(primary.applied.Sub(m.applied), 0)
		precise = precise && m.ms
	}
	return lag, precise, true
}

// errNoReplication says a host is no replica-set member: it is not asked
// again.
var errNoReplication = errors.New("not a replica-set member")

// askReplStatus runs replSetGetStatus on h. A server that refuses it (a
// standalone: NoReplicationEnabled; one that does not know the command; a
// user without the clusterMonitor role) gives errNoReplication: the lag
// is then not reported, and the refusal is no failed sample.
func askReplStatus(ctx context.Context, c *mongo.Client) ([]memberOptime, error) {
	raw, err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetStatus", Value: 1}}).Raw()
	if err != nil {
		var ce mongo.CommandError
		if errors.As(err, &ce) {
			return nil, errNoReplication
		}
		return nil, err
	}
	return parseReplSetGetStatus(raw), nil
}

// replicationOf sums up the window's lags per secondary from the primary's
// replies (every host's snapshots, in time order); nil when no primary
// answered.
func replicationOf(hosts []*hostSampler) []results.MemberLag {
	type obs struct {
		at      time.Time
		lag     map[string]time.Duration
		precise bool
	}
	var all []obs
	for _, h := range hosts {
		for _, s := range h.snaps {
			if l, precise, ok := lags(s.repl); ok {
				all = append(all, obs{s.at, l, precise})
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at.Before(all[j].at) })
	by := map[string]*results.MemberLag{}
	var names []string
	for _, o := range all {
		for name, d := range o.lag {
			ms := float64(d) / float64(time.Millisecond)
			m, ok := by[name]
			if !ok {
				m = &results.MemberLag{Host: name, StartMS: ms, PrecisionMS: 1}
				by[name] = m
				names = append(names, name)
			}
			m.EndMS, m.MaxMS = ms, max(m.MaxMS, ms)
			m.Samples++
			if !o.precise {
				m.PrecisionMS = 1000
			}
		}
	}
	sort.Strings(names)
	out := make([]results.MemberLag, 0, len(names))
	for _, n := range names {
		m := *by[n]
		growth := time.Duration((m.EndMS - m.StartMS) * float64(time.Millisecond))
		m.FellBehind = growth >= fellBehindGrowth || time.Duration(m.MaxMS*float64(time.Millisecond)) >= fellBehindLag
		out = append(out, m)
	}
	return out
}

// replicationWarnings says which secondaries fell behind in the window.
func replicationWarnings(ms []results.MemberLag) []string {
	var out []string
	for _, m := range ms {
		if m.FellBehind {
			out = append(out, fmt.Sprintf("secondary %s fell behind: its replication lag went from %.0f ms to %.0f ms during the window (at most %.0f ms): it applied writes slower than the primary took them, and reads sent to it saw older data",
				m.Host, m.StartMS, m.EndMS, m.MaxMS))
		}
	}
	return out
}
