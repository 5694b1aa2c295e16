package sim

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		in    string
		want  Spec
		canon string
	}{
		// The empty spec is the documented default: 8 slots of 2ms.
		{"", Spec{Slots: 8, Service: 2 * time.Millisecond}, "slots=8,service=2ms,conn_cost=0s,jitter=0"},
		// Every standalone key is read, and us/µs both parse.
		{"slots=16,service=2ms,conn_cost=20us,jitter=0.1",
			Spec{Slots: 16, Service: 2 * time.Millisecond, ConnCost: 20 * time.Microsecond, Jitter: 0.1},
			"slots=16,service=2ms,conn_cost=20us,jitter=0.1"},
		// Order and spaces do not matter.
		{" jitter=0.5 , slots=2,service=1500µs ", Spec{Slots: 2, Service: 1500 * time.Microsecond, Jitter: 0.5},
			"slots=2,service=1.5ms,conn_cost=0s,jitter=0.5"},
		// service=0 is allowed (the benchmark's unlimited server).
		{"service=0s", Spec{Slots: 8}, "slots=8,service=0s,conn_cost=0s,jitter=0"},
		// shards switches on the router defaults.
		{"shards=3,slots=8,service=2ms",
			Spec{Shards: 3, Slots: 8, Service: 2 * time.Millisecond, Routers: 1, RouterSlots: 64, RouterCost: 50 * time.Microsecond},
			"shards=3,slots=8,service=2ms,conn_cost=0s,jitter=0,routers=1,router_slots=64,router_cost=50us"},
		// Router keys are read when sharded.
		{"shards=2,routers=2,router_slots=4,router_cost=1ms",
			Spec{Shards: 2, Slots: 8, Service: 2 * time.Millisecond, Routers: 2, RouterSlots: 4, RouterCost: time.Millisecond},
			"shards=2,slots=8,service=2ms,conn_cost=0s,jitter=0,routers=2,router_slots=4,router_cost=1ms"},
		// cores sets what hostInfo reports, and prints last, only when set.
		{"cores=3", Spec{Slots: 8, Service: 2 * time.Millisecond, Cores: 3}, "slots=8,service=2ms,conn_cost=0s,jitter=0,cores=3"},
		{"cores=16,shards=2",
			Spec{Shards: 2, Slots: 8, Service: 2 * time.Millisecond, Routers: 1, RouterSlots: 64, RouterCost: 50 * time.Microsecond, Cores: 16},
			"shards=2,slots=8,service=2ms,conn_cost=0s,jitter=0,routers=1,router_slots=64,router_cost=50us,cores=16"},
		// read_slots and write_slots size the two pools apart; slots is the other's size.
		{"write_slots=2,read_slots=16", Spec{Slots: 8, ReadSlots: 16, WriteSlots: 2, Service: 2 * time.Millisecond},
			"slots=8,read_slots=16,write_slots=2,service=2ms,conn_cost=0s,jitter=0"},
		// version prints last, only when set.
		{"version=4.2", Spec{Slots: 8, Service: 2 * time.Millisecond, Version: "4.2"}, "slots=8,service=2ms,conn_cost=0s,jitter=0,version=4.2"},
		// rs switches on the replica-set defaults: 1ms lag, 300ms elections, 16 appliers.
		{"rs=3", Spec{Members: 3, Slots: 8, Service: 2 * time.Millisecond, ReplLag: time.Millisecond, ElectionDelay: 300 * time.Millisecond, ReplWriters: 16},
			"rs=3,slots=8,service=2ms,conn_cost=0s,jitter=0,repl_lag=1ms,election=300ms,repl_writers=16"},
		// The replica-set keys are read with rs; a one-member set and a zero lag are allowed.
		{"repl_writers=2,rs=1,election=1s,repl_lag=0s,version=4.4",
			Spec{Members: 1, Slots: 8, Service: 2 * time.Millisecond, ElectionDelay: time.Second, ReplWriters: 2, Version: "4.4"},
			"rs=1,slots=8,service=2ms,conn_cost=0s,jitter=0,repl_lag=0s,election=1s,repl_writers=2,version=4.4"},
		// One ingress key turns 8.2's limiter on; the others take the
		// server's defaults (INT32_MAX a second, an unbounded bucket, no queue).
		{"version=8.2,ingress_rate=50", Spec{Slots: 8, Service: 2 * time.Millisecond, Version: "8.2",
			IngressLimiter: true, IngressRate: 50, IngressBurst: math.Inf(1)},
			"slots=8,service=2ms,conn_cost=0s,jitter=0,ingress_rate=50,ingress_burst=+Inf,ingress_queue=0,version=8.2"},
		// All three are read; ingress_queue=0 is a limiter that rejects whatever would wait.
		{"ingress_queue=0,ingress_burst=0.5,ingress_rate=20,version=8.2", Spec{Slots: 8, Service: 2 * time.Millisecond, Version: "8.2",
			IngressLimiter: true, IngressRate: 20, IngressBurst: 0.5},
			"slots=8,service=2ms,conn_cost=0s,jitter=0,ingress_rate=20,ingress_burst=0.5,ingress_queue=0,version=8.2"},
		{"test_commands=true", Spec{Slots: 8, Service: 2 * time.Millisecond, TestCommands: true},
			"slots=8,service=2ms,conn_cost=0s,jitter=0,test_commands=true"},
		{"test_commands=false", Spec{Slots: 8, Service: 2 * time.Millisecond},
			"slots=8,service=2ms,conn_cost=0s,jitter=0"},
		{"shards=1,routers=2,router_restart=2s", Spec{Shards: 1, Routers: 2, RouterSlots: 64, RouterCost: 50 * time.Microsecond, RouterRestart: 2 * time.Second, Slots: 8, Service: 2 * time.Millisecond},
			"shards=1,slots=8,service=2ms,conn_cost=0s,jitter=0,routers=2,router_slots=64,router_cost=50us,router_restart=2s"},
	}
	for _, tt := range tests {
		got, err := ParseSpec(tt.in)
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseSpec(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		if s := got.String(); s != tt.canon {
			t.Errorf("ParseSpec(%q).String() = %q, want %q", tt.in, s, tt.canon)
		}
		// The canonical form parses back to the same spec.
		if again, err := ParseSpec(got.String()); err != nil || again != got {
			t.Errorf("round trip of %q: %+v, %v", got.String(), again, err)
		}
	}
}

func TestParseSpecErrors(t *testing.T) {
	tests := []struct {
		in      string
		wantMsg string
	}{
		{"slots=0", "slots=0: must be between 1"},                // no capacity at all
		{"slots=-3", "slots=-3: must be between 1"},              // negative slots
		{"slots=many", "slots=many: not an integer"},             // not a number
		{"service=-1ms", "service=-1ms: must be between 0s"},     // negative time
		{"service=2", "service=2: not a duration"},               // missing unit
		{"service=fast", "service=fast: not a duration"},         // garbage
		{"conn_cost=-5us", "conn_cost=-5us: must be between 0s"}, // negative conn_cost
		{"jitter=1.5", "jitter=1.5: must be between 0 and 1"},    // noise above 100%
		{"jitter=NaN", "jitter=NaN: must be between 0 and 1"},    // NaN slips past < and >
		{"foo=1", `unknown key "foo" (keys such as shards, rs, slots`},
		{"read=1", `unknown key "read" (did you mean read_slots? every key`}, // typo'd key
		{"version=3.6", "version=3.6: unknown version (known: 4.0, 4.2, 4.4, 5.0, 6.0, 7.0, 8.0, 8.2, or a release of one, as 7.0.0-rc6)"},       // not modeled
		{"version=3.6.20", "version=3.6.20: unknown version (known: 4.0, 4.2, 4.4, 5.0, 6.0, 7.0, 8.0, 8.2, or a release of one, as 7.0.0-rc6)"}, // a release of a series not modeled
		{"version=8", "version=8: unknown version"}, // major only
		{"read_slots=0", "read_slots=0: must be at least 1 (leave read_slots out for slots)"},
		{"slots=8,slots=9", `duplicate key "slots"`},                      // ambiguous
		{"slots", `"slots": want key=value`},                              // no value
		{"slots=8,,service=1ms", "empty item"},                            // stray comma
		{"shards=0", "shards=0: must be at least 1"},                      // zero shards is not standalone
		{"router_slots=4", "router_slots: only meaningful with shards"},   // router key without shards
		{"shards=2,routers=0", "routers=0: must be between 1"},            // a cluster with no router
		{"shards=2,router_cost=-1ms", "router_cost=-1ms"},                 // negative router cost
		{"shards=1000", "shards=1000: must be between 1 and 64"},          // absurd size
		{"cores=0", "cores=0: must be at least 1"},                        // zero is "this machine's", by leaving it out
		{"cores=100000", "cores=100000: must be between 1 and 4096"},      // absurd
		{"cores=two", "cores=two: not an integer"},                        // not a number
		{"rs=0", "rs=0: must be at least 1 (leave rs out"},                // zero members is not standalone
		{"rs=8", "rs=8: must be between 1 and 7"},                         // more than a set's voting members
		{"rs=three", "rs=three: not an integer"},                          // not a number
		{"rs=3,shards=2", "a replica set or a sharded cluster, not both"}, // exclusive
		{"repl_lag=5ms", "repl_lag: only meaningful with rs=N"},           // lag without a set
		{"election=1s", "election: only meaningful with rs=N"},            // election without a set
		{"repl_writers=4", "repl_writers: only meaningful with rs=N"},     // appliers without a set
		{"rs=3,repl_lag=-1ms", "repl_lag=-1ms: must be between 0s"},       // negative lag
		{"rs=3,repl_lag=1h", "repl_lag=1h0m0s: must be between 0s and 10s"},
		{"rs=3,election=-1s", "election=-1s: must be between 0s"},
		{"rs=3,repl_writers=0", "repl_writers=0: must be between 1"}, // no applier at all
		{"ingress_rate=10", "need version=8.2"},                      // the default 8.0 has no limiter counters
		{"version=8.0,ingress_queue=5", "need version=8.2"},          // nor has 8.0 by name
		{"version=8.2,ingress_rate=0", "ingress_rate=0: must be between 1"},
		{"version=8.2,ingress_burst=-1", "ingress_burst=-1: must be 0 or more"},
		{"version=8.2,ingress_burst=NaN", "ingress_burst=NaN"},
		{"version=8.2,ingress_queue=-1", "ingress_queue=-1: must be between 0"},
		{"version=8.2,ingress_rate=fast", "ingress_rate=fast: not an integer"},
		{"test_commands=yes", "test_commands=yes: not true or false"},
		{"router_restart=2s", "router_restart: only meaningful with shards=N"},
		{"shards=1,router_restart=0s", "router_restart=0s: must be between 1ms and 1m0s"},
		{"shards=1,router_restart=2h", "router_restart=2h0m0s: must be between 1ms and 1m0s"},
		{"shards=1,router_restart=soon", "router_restart=soon: not a duration"},
	}
	for _, tt := range tests {
		_, err := ParseSpec(tt.in)
		if err == nil {
			t.Errorf("ParseSpec(%q) succeeded, want error containing %q", tt.in, tt.wantMsg)
			continue
		}
		if !errors.Is(err, ErrSpec) {
			t.Errorf("ParseSpec(%q) error %v does not wrap ErrSpec", tt.in, err)
		}
		if msg := err.Error(); !strings.Contains(msg, tt.wantMsg) || strings.Contains(msg, "\n") {
			t.Errorf("ParseSpec(%q) error %q, want one line containing %q", tt.in, msg, tt.wantMsg)
		}
	}
}

func TestSpecValidateFromGo(t *testing.T) {
	// A spec built in Go without shards must not carry router fields.
	s := DefaultSpec()
	s.RouterSlots = 4
	if err := s.Validate(); !errors.Is(err, ErrSpec) {
		t.Errorf("Validate of standalone with router_slots: %v", err)
	}
	// Nor replica-set fields without members.
	s = DefaultSpec()
	s.ReplLag = time.Millisecond
	if err := s.Validate(); !errors.Is(err, ErrSpec) {
		t.Errorf("Validate of standalone with a replication lag: %v", err)
	}
	// A set built in Go needs its appliers.
	s = DefaultSpec()
	s.Members = 3
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "repl_writers=0") {
		t.Errorf("Validate of rs=3 without repl_writers: %v", err)
	}
}

func TestCapacityArithmetic(t *testing.T) {
	ms := time.Millisecond
	us := time.Microsecond
	standalone := Spec{Slots: 8, Service: 2 * ms}
	costly := Spec{Slots: 8, Service: 2 * ms, ConnCost: 50 * us}
	sharded := Spec{Shards: 3, Slots: 8, Service: 2 * ms, Routers: 1, RouterSlots: 64, RouterCost: 50 * us}
	slowRouter := Spec{Shards: 3, Slots: 8, Service: 2 * ms, Routers: 1, RouterSlots: 4, RouterCost: ms}
	twoSlow := slowRouter
	twoSlow.Routers = 2
	tests := []struct {
		name string
		spec Spec
		n    int
		want float64
	}{
		{"one client gets 1/service", standalone, 1, 500},
		{"below the knee throughput is linear", standalone, 4, 2000},
		{"at the knee slots/service", standalone, 8, 4000},
		{"past the knee flat without conn_cost", standalone, 64, 4000},
		{"zero clients, zero throughput", standalone, 0, 0},
		{"conn_cost lowers the knee's throughput", costly, 8, 8 / (2e-3 + 8*50e-6)},
		{"conn_cost makes throughput fall past the peak", costly, 64, 8 / (2e-3 + 64*50e-6)},
		{"shards multiply capacity", sharded, 96, 12000},
		{"below the shards' slots each shard gets n/shards", sharded, 12, 6000},
		{"a slow router caps the cluster", slowRouter, 96, 4000},
		{"two slow routers double the cap", twoSlow, 96, 8000},
	}
	for _, tt := range tests {
		if got := tt.spec.Throughput(tt.n, 1); math.Abs(got-tt.want) > 1e-6*tt.want+1e-9 {
			t.Errorf("%s: Throughput(%d) = %g, want %g", tt.name, tt.n, got, tt.want)
		}
	}

	// Reads and writes queue for their own slots.
	split := Spec{Slots: 8, ReadSlots: 8, WriteSlots: 2, Service: 2 * ms}
	mixes := []struct {
		name      string
		spec      Spec
		n         int
		readShare float64
		want      float64
	}{
		{"pure writes saturate the write slots", split, 64, 0, 1000},
		{"pure reads saturate the read slots", split, 64, 1, 4000},
		{"below both limits a mix is linear", split, 2, 0.5, 1000},
		// half writes: the 2 write slots carry 1000/s of writes, so 2000/s in all.
		{"a mix is bound by its busier pool", split, 64, 0.5, 2000},
		// 80% reads: reads bound at 8/0.8 = 10, writes at 2/0.2 = 10 in flight.
		{"balanced mix uses both pools", split, 64, 0.8, 5000},
		{"shared shorthand: equal pools double a half mix", standalone, 64, 0.5, 8000},
	}
	for _, tt := range mixes {
		if got := tt.spec.Throughput(tt.n, tt.readShare); math.Abs(got-tt.want) > 1e-6*tt.want {
			t.Errorf("%s: Throughput(%d, %g) = %g, want %g", tt.name, tt.n, tt.readShare, got, tt.want)
		}
	}
	if p, k := split.Peak(0); p != 1000 || k != 2 {
		t.Errorf("write peak %g at %d, want 1000 at 2", p, k)
	}

	peaks := []struct {
		name     string
		spec     Spec
		wantPeak float64
		wantKnee int
	}{
		{"standalone peak slots/service at slots", standalone, 4000, 8},
		{"conn_cost keeps the knee at slots and lowers the peak", costly, 8 / (2e-3 + 8*50e-6), 8},
		{"sharded knee at shards×slots", sharded, 12000, 24},
		{"router-capped knee where the router saturates", slowRouter, 4000, 8},
	}
	for _, tt := range peaks {
		p, k := tt.spec.Peak(1)
		if math.Abs(p-tt.wantPeak) > 1e-6*tt.wantPeak || k != tt.wantKnee {
			t.Errorf("%s: Peak() = %g at %d, want %g at %d", tt.name, p, k, tt.wantPeak, tt.wantKnee)
		}
	}
	if got := standalone.ShardPeak(); got != 4000 {
		t.Errorf("ShardPeak = %g", got)
	}
	if got := standalone.RouterCapacity(); !math.IsInf(got, 1) {
		t.Errorf("standalone RouterCapacity = %g, want +Inf", got)
	}
	if got := slowRouter.RouterCapacity(); got != 4000 {
		t.Errorf("slow RouterCapacity = %g, want 4000", got)
	}
}

func TestServiceTime(t *testing.T) {
	ms := time.Millisecond
	us := time.Microsecond
	tests := []struct {
		name   string
		conns  int64
		jitter float64
		rnd    float64
		want   time.Duration
	}{
		{"base only", 0, 0, 0.5, 2 * ms},
		{"conn_cost per open connection", 10, 0, 0.5, 2*ms + 500*us},
		{"jitter at the low end", 0, 0.1, 0, 1800 * us},
		{"jitter at the high end", 0, 0.1, 1, 2200 * us},
		{"jitter centred at the mean", 0, 0.1, 0.5, 2 * ms},
		{"negative connection counts are ignored", -3, 0, 0.5, 2 * ms},
	}
	for _, tt := range tests {
		got := serviceTime(2*ms, 50*us, tt.conns, tt.jitter, func() float64 { return tt.rnd })
		if d := got - tt.want; d < -time.Nanosecond || d > time.Nanosecond {
			t.Errorf("%s: serviceTime = %v, want %v", tt.name, got, tt.want)
		}
	}
}
