package telemetry

import (
	"testing"
	"time"
)

// TestWindowOfRealReplies: replies collected elsewhere (as FTDC holds
// them) go through the sampler's parser and window code: a real
// primary's replSetGetStatus gives the member's own state and the
// secondaries' lag, and a real serverStatus its version and cores.
func TestWindowOfRealReplies(t *testing.T) {
	ss := loadCorpus(t, "serverStatus.mongod-7.0.14.json")
	primary := loadCorpus(t, "replSetGetStatus.mongod-replset-primary-4.2.json")
	secondary := loadCorpus(t, "replSetGetStatus.mongod-replset-secondary-4.2.edited.json")
	hi := loadCorpus(t, "hostInfo.mongod-7.0.14.json")
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	a := ParseSample(StatusReply{At: t0, ServerStatus: ss, ReplSetGetStatus: primary})
	b := ParseSample(StatusReply{At: t0.Add(time.Second), ServerStatus: ss, ReplSetGetStatus: primary})
	if a.MemberState() != "PRIMARY" {
		t.Errorf("primary's own state %q", a.MemberState())
	}
	if s := ParseSample(StatusReply{At: t0, ServerStatus: ss, ReplSetGetStatus: secondary}).MemberState(); s != "SECONDARY" {
		t.Errorf("secondary's own state %q", s)
	}
	if s := ParseSample(StatusReply{At: t0, ServerStatus: ss}).MemberState(); s != "" {
		t.Errorf("no replSetGetStatus, state %q", s)
	}
	st := WindowOf([]HostSamples{{Host: "h1", Samples: []Sample{a, b}, HostInfo: hi}}, nil)
	h := st.Hosts["h1"]
	if h == nil || h.Samples != 2 || h.Version != "7.0.14" || h.Cores == nil || st.Total == nil || st.ShardsSampled != nil {
		t.Fatalf("window %+v", st)
	}
	if len(st.Replication) == 0 {
		t.Errorf("no replication lag from the primary's replSetGetStatus")
	}
	// the same reply twice: every counter's rate is zero, none missing
	if h.OpcountersPerS == nil || h.OpcountersPerS["command"] != 0 || h.CPUPct == nil || *h.CPUPct != 0 {
		t.Errorf("rates of an unchanged server: %+v", h)
	}
}
