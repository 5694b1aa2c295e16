package results

import "testing"

func TestParseAxisValue(t *testing.T) {
	for _, c := range []struct {
		name  string
		axis  Axis
		value string
		ok    bool
	}{
		{"w1", AxisWriteConcern, "1", true},                                    // the spelling
		{"w:1", AxisWriteConcern, "1", true},                                   // the shell's
		{"w=majority", AxisWriteConcern, "majority", true},                     // the label's
		{"Majority", AxisWriteConcern, "majority", true},                       // any case
		{"secondarypreferred", AxisReadPreference, "secondaryPreferred", true}, // any case
		{"rp=nearest", AxisReadPreference, "nearest", true},                    // the label's
		{"w", "", "", false},                                                   // no value
		{"w2", "", "", false},                                                  // not an axis value swept
		{"standalone", "", "", false},                                          // a target's name
		{"wiredTigerConcurrentReadTransactions=8", AxisServerParam("wiredTigerConcurrentReadTransactions"), "8", true}, // --server-param's series
		{"a b=8", "", "", false}, // no parameter name has a space
		{"x=", "", "", false},    // no value
	} {
		a, v, ok := ParseAxisValue(c.name)
		if a != c.axis || v != c.value || ok != c.ok {
			t.Errorf("ParseAxisValue(%q) = %q, %q, %v; want %q, %q, %v", c.name, a, v, ok, c.axis, c.value, c.ok)
		}
	}
}

func TestLabelWithout(t *testing.T) {
	for _, c := range []struct {
		rp, wc string
		axis   Axis
		want   string
	}{
		{"", "majority", AxisWriteConcern, "mix 0:50:50"},            // the write concern's series pair across it
		{"nearest", "1", AxisWriteConcern, "mix 0:50:50 rp=nearest"}, // the other axis stays
		{"nearest", "1", AxisReadPreference, "mix 0:50:50 w=1"},      // from the middle
		{"primary", "", AxisWriteConcern, "mix 0:50:50 rp=primary"},  // not swept: unchanged
		{"primaryPreferred", "", AxisReadPreference, "mix 0:50:50"},  // no prefix confusion with primary
	} {
		s := StepResult{Workload: SeriesLabel("mix 0:50:50", c.rp, c.wc), ReadPreference: c.rp, WriteConcern: c.wc}
		if got := s.WorkloadWithout(c.axis); got != c.want {
			t.Errorf("%q without its %s = %q, want %q", s.Workload, c.axis, got, c.want)
		}
	}
	// A server parameter's series pair across its values, and a value
	// that another one begins with is not taken for it.
	p := StepResult{Workload: "read n=8 w=1", ServerParams: []ServerParam{{Name: "n", Value: "8"}}}
	if got := p.WorkloadWithout(AxisServerParam("n")); got != "read w=1" {
		t.Errorf("%q without n=8 = %q", p.Workload, got)
	}
	if got := LabelWithout("read n=80", AxisServerParam("n"), "8"); got != "read n=80" {
		t.Errorf("LabelWithout took a prefix of a parameter's value: %q", got)
	}
	// A label ending in a longer value keeps it: "rp=primary" is not a
	// prefix of "rp=primaryPreferred".
	if got := LabelWithout("read rp=primaryPreferred", AxisReadPreference, "primary"); got != "read rp=primaryPreferred" {
		t.Errorf("LabelWithout took a prefix: %q", got)
	}
}

// TestAddHostPools: agents' pools to one server add up, as the step's
// own numbers do, whatever order their servers come in.
func TestAddHostPools(t *testing.T) {
	a := []HostPool{{Host: "p:1", Role: "primary", ConnectionsOpen: 8, InUseMax: 8, Checkouts: 100, CheckoutWait: Quantiles{Mean: 1, P99: 2, Max: 3}},
		{Host: "s:2", Role: "secondary", ConnectionsOpen: 8}}
	b := []HostPool{{Host: "s:2", ConnectionsOpen: 8, CheckoutFailed: 1}, {Host: "p:1", ConnectionsOpen: 8, InUseMax: 6, Checkouts: 300, CheckoutWait: Quantiles{Mean: 3, P99: 5, Max: 4}}}
	m := addHostPools(addHostPools(nil, a), b)
	if len(m) != 2 || m[0].Host != "p:1" || m[1].Host != "s:2" {
		t.Fatalf("merged %+v", m)
	}
	p := m[0]
	if p.ConnectionsOpen != 16 || p.InUseMax != 14 || p.Checkouts != 400 || p.Role != "primary" || p.CheckoutWait.Mean != 2.5 || p.CheckoutWait.P99 != 5 || p.CheckoutWait.Max != 4 {
		t.Errorf("primary merged to %+v", p)
	}
	if m[1].ConnectionsOpen != 16 || m[1].CheckoutFailed != 1 || m[1].Role != "secondary" {
		t.Errorf("secondary merged to %+v", m[1])
	}
}

// TestPoolLabelBase: the workload's own label comes back from every
// label PoolSeriesLabel makes, and a workload whose last word merely
// looks like an option keeps it.
func TestPoolLabelBase(t *testing.T) {
	all := PoolAxes{MinPool: true, MaxConnecting: true, MaxIdle: true, Timeout: true, Retry: true, ServerSelectionTimeout: true, Heartbeat: true}
	o := PoolOptions{MinPoolSize: 16, MaxConnecting: 2, MaxIdleMS: 500, TimeoutMS: 50, RetryReads: "off", ServerSelectionTimeoutMS: 2000, HeartbeatMS: 500, Cold: true}
	for _, base := range []string{"read", "mix 50:50:0", "replay w=majority"} {
		if got := PoolLabelBase(PoolSeriesLabel(base, o, all)); got != base {
			t.Errorf("PoolLabelBase(PoolSeriesLabel(%q)) = %q", base, got)
		}
		if got := PoolLabelBase(base); got != base {
			t.Errorf("PoolLabelBase(%q) = %q", base, got)
		}
	}
	if got := PoolLabelBase("cold"); got != "cold" {
		t.Errorf("a workload named cold lost its name: %q", got)
	}
}
