package knee

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

func TestHostsReached(t *testing.T) {
	hosts := func(checkouts ...int64) *results.StepResult {
		s := &results.StepResult{}
		for i, c := range checkouts {
			s.Pool.Hosts = append(s.Pool.Hosts, results.HostPool{Host: string(rune('a' + i)), Checkouts: c})
		}
		return s
	}
	for _, c := range []struct {
		step *results.StepResult
		want int
	}{
		{hosts(), 0},              // a file without pools per host
		{hosts(0, 0, 0), 0},       // nothing checked out
		{hosts(1000, 0, 0), 1},    // primary reads: the primary only
		{hosts(0, 510, 490), 2},   // secondaryPreferred: both secondaries
		{hosts(3, 500, 497), 2},   // a stray op on the primary is not a host the reads reach
		{hosts(340, 330, 330), 3}, // nearest: every member
		{hosts(100, 900, 0), 2},   // writes to the primary, reads to one secondary
	} {
		if got := HostsReached(c.step); got != c.want {
			t.Errorf("%+v: %d hosts reached, want %d", c.step.Pool.Hosts, got, c.want)
		}
	}
}

func TestPerHostRecommendation(t *testing.T) {
	for _, c := range []struct {
		s    Series
		pool int
		want string
	}{
		// The sentence: the pool is per host, and the read
		// preference says how many hosts it is multiplied by.
		{Series{ReadPreference: "secondaryPreferred", HostsReached: 2, HostPools: 3}, 24,
			"maxPoolSize is per host: with secondaryPreferred the ops reach 2 hosts of the set's 3 members, so up to 48 connections per client"},
		{Series{HostsReached: 1, HostPools: 3}, 16,
			"maxPoolSize is per host: with the URI's read preference the ops reach 1 host of the set's 3 members, so up to 16 connections per client"},
		{Series{ReadPreference: "nearest", HostsReached: 3, HostPools: 3}, 8,
			"maxPoolSize is per host: with nearest the ops reach 3 hosts, so up to 24 connections per client"},
	} {
		if got := perHost(c.s, c.pool); got != c.want {
			t.Errorf("perHost = %q\nwant      %q", got, c.want)
		}
	}
	// A replica-set series without numbers per host says nothing of it.
	r := Report{Clients: 1, Levels: []Level{{Concurrency: 4}}, Peak: Peak{QPS: 100, Concurrency: 4}}
	if rec := recommend(r, Series{Topology: "replset"}, DefaultOptions()); strings.Contains(rec.Why, "per host:") || rec.HostsReached != 0 {
		t.Errorf("no pools per host, yet: %q", rec.Why)
	}
	if rec := recommend(r, Series{Topology: "replset", HostsReached: 2, HostPools: 3, ReadPreference: "secondaryPreferred"}, DefaultOptions()); !strings.Contains(rec.Why, "reach 2 hosts") || rec.HostsReached != 2 {
		t.Errorf("pools per host, yet: %q (hosts reached %d)", rec.Why, rec.HostsReached)
	}
}
