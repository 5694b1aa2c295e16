package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// replicaSetRun is the grid fixture as a replica set would have recorded
// it: each step's pools to three members, one secondary falling behind at
// the top level, and one step whose window saw an election.
func replicaSetRun(t *testing.T) *results.Results {
	t.Helper()
	r := fixture(t, "grid.jsonl")
	top := 0
	for i := range r.Steps {
		top = max(top, r.Steps[i].Concurrency)
	}
	for i := range r.Steps {
		s := &r.Steps[i]
		s.Pool.Hosts = []results.HostPool{
			{Host: "a:27017", Role: "primary", ConnectionsOpen: s.Concurrency, InUseMax: s.Concurrency, Checkouts: 1000},
			{Host: "b:27017", Role: "secondary", ConnectionsOpen: 1, InUseMax: 1, Checkouts: 3},
			{Host: "c:27017", Role: "secondary", ConnectionsOpen: 1, InUseMax: 1, Checkouts: 2, CheckoutWait: results.Quantiles{P99: 4.25}},
		}
		if s.Server == nil {
			s.Server = &results.ServerTelemetry{}
		}
		lag := results.MemberLag{Host: "b:27017", StartMS: 10, EndMS: 20, MaxMS: 30, Samples: 5, PrecisionMS: 1}
		if s.Concurrency == top {
			lag = results.MemberLag{Host: "b:27017", StartMS: 100, EndMS: 2100, MaxMS: 2100, Samples: 5, PrecisionMS: 1, FellBehind: true}
		}
		s.Server.Replication = []results.MemberLag{lag}
	}
	r.Steps[0].PrimaryChange = &results.PrimaryChange{Before: "a:27017", After: "c:27017", Changes: 1, NoPrimaryMS: 1200}
	return r
}

// A replica set's run: the report gives the pools per member, each
// secondary's lag, and says which step measured an election and which
// secondary fell behind, in HTML and Markdown; a one-host run shows
// neither table.
func TestReportHostsAndReplication(t *testing.T) {
	r := replicaSetRun(t)
	rs := []*results.Results{r}
	rep, _ := build(t, rs, analyzed(rs...), nil)
	h := selfContainedHTML(t, rep)
	var md bytes.Buffer
	if err := rep.writeMarkdown(&md, ""); err != nil {
		t.Fatal(err)
	}
	if *lookDir != "" {
		_ = os.MkdirAll(*lookDir, 0o755)
		_ = os.WriteFile(filepath.Join(*lookDir, "replset-report.html"), []byte(h), 0o644)
	}
	for _, doc := range []struct{ name, text string }{{"html", h}, {"markdown", md.String()}} {
		for _, want := range []string{
			"Pools per host", "maxPoolSize is per client per host", "most in use", "c:27017", "4.25",
			"Replication lag", "lag at start (ms)", "2100",
			"secondary b:27017 fell behind: replication lag 100 ms → 2100 ms in the window",
			"the primary changed during the window (primary a:27017 → c:27017, 1200 ms without one",
		} {
			if !strings.Contains(doc.text, want) {
				t.Errorf("%s report lacks %q", doc.name, want)
			}
		}
		if got, want := strings.Count(doc.text, "c:27017"), len(r.Steps)+1; got < want {
			t.Errorf("%s: c:27017 appears %d times, want a pool row per step and the election note (%d)", doc.name, got, want)
		}
	}

	plain := fixture(t, "grid.jsonl")
	rep, _ = build(t, []*results.Results{plain}, analyzed(plain), nil)
	if h := selfContainedHTML(t, rep); strings.Contains(h, "Pools per host") || strings.Contains(h, "Replication lag") {
		t.Error("a run with one host per step shows per-host or lag tables")
	}
}

// A sharded run: the report gives each step's routers' pools to the
// shard hosts, in HTML and Markdown, per pool against MaxSize, n/r where
// not reported; a run without routers shows no such table.
func TestReportRouterPools(t *testing.T) {
	r := fixture(t, "grid.jsonl")
	pools := 2
	for i := range r.Steps {
		s := &r.Steps[i]
		if s.Server == nil {
			s.Server = &results.ServerTelemetry{}
		}
		in := float64(s.Concurrency)
		s.Server.Hosts = map[string]*results.ServerSample{"m1:27017": {ConnPool: &results.ConnPoolCounts{InUse: &in,
			ShardHosts: map[string]*results.RouterPoolHost{"db9:27018": {InUse: &in, Pools: &pools}},
			Settings:   &results.RouterPoolSettings{NotRead: "getParameter: Unauthorized"}}}}
	}
	rs := []*results.Results{r}
	rep, _ := build(t, rs, analyzed(rs...), nil)
	h := selfContainedHTML(t, rep)
	var md bytes.Buffer
	if err := rep.writeMarkdown(&md, ""); err != nil {
		t.Fatal(err)
	}
	for _, doc := range []struct{ name, text string }{{"html", h}, {"markdown", md.String()}} {
		for _, want := range []string{"Routers' pools to the shards", "in use per pool", "db9:27018", "getParameter: Unauthorized"} {
			if !strings.Contains(doc.text, want) {
				t.Errorf("%s report lacks %q", doc.name, want)
			}
		}
		// A row per closed-loop step on a curve (the fixture has one that is not).
		if got, want := strings.Count(doc.text, "db9:27018"), len(r.Steps)-1; got != want {
			t.Errorf("%s: db9:27018 appears %d times, want a row per step (%d)", doc.name, got, want)
		}
	}
	plain := fixture(t, "grid.jsonl")
	rep, _ = build(t, []*results.Results{plain}, analyzed(plain), nil)
	if h := selfContainedHTML(t, rep); strings.Contains(h, "Routers' pools") {
		t.Error("a run without routers shows the routers' pools table")
	}
}
