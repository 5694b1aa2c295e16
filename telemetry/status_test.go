package telemetry

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/results"
)

// fixture is a testdata file: serverStatus replies (and, on a router, the
// connPoolStats taken right after each) in canonical Extended JSON.
type fixture struct {
	snaps  []snapshot
	shards []string
}

// loadFixture parses name with the production parsers; sample k is stamped
// k seconds after a base time on "our" clock, so a fixture whose
// uptimeMillis says otherwise proves which clock the rates use.
func loadFixture(t *testing.T, name string) fixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var doc bson.Raw
	if err := bson.UnmarshalExtJSON(b, true, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	vals, err := doc.Lookup("samples").Array().Values()
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var f fixture
	for k, v := range vals {
		d := v.Document()
		s := parseServerStatus(d.Lookup("serverStatus").Document(), base.Add(time.Duration(k)*time.Second))
		if cps, ok := d.Lookup("connPoolStats").DocumentOK(); ok {
			s.addConnPoolStats(cps)
		}
		f.snaps = append(f.snaps, s)
	}
	if ls, ok := doc.Lookup("listShards").DocumentOK(); ok {
		for _, sh := range parseListShards(ls) {
			f.shards = append(f.shards, sh.name)
		}
	}
	return f
}

func p(v float64) *float64 { return &v }

// equalJSON compares two values through their JSON form, numbers within a
// relative 1e-9, so that null and 0 stay different.
func equalJSON(t *testing.T, label string, got, want any) {
	t.Helper()
	g, w := toAny(t, got), toAny(t, want)
	if diff := jsonDiff("", g, w); diff != "" {
		gb, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("%s: %s\ngot: %s", label, diff, gb)
	}
}

func toAny(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func jsonDiff(path string, g, w any) string {
	switch wv := w.(type) {
	case map[string]any:
		gv, ok := g.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %v, want an object", path, g)
		}
		keys := make([]string, 0, len(wv)+len(gv))
		for k := range wv {
			keys = append(keys, k)
		}
		for k := range gv {
			if _, ok := wv[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			if d := jsonDiff(path+"."+k, gv[k], wv[k]); d != "" {
				return d
			}
		}
		return ""
	case float64:
		gv, ok := g.(float64)
		if !ok || math.Abs(gv-wv) > 1e-9*math.Max(1, math.Abs(wv)) {
			return fmt.Sprintf("%s: got %v, want %v", path, g, wv)
		}
		return ""
	default:
		if fmt.Sprint(g) != fmt.Sprint(w) {
			return fmt.Sprintf("%s: got %v, want %v", path, g, w)
		}
		return ""
	}
}

func TestSummarizeFixtures(t *testing.T) {
	tests := []struct {
		file   string
		want   *results.ServerSample
		shards []string
	}{
		// 7.0 primary: every field, tickets from wiredTiger.concurrentTransactions,
		// queued from globalLock.currentQueue (the fixture has no queue counters).
		{"mongod-7.0-replset.json", &results.ServerSample{
			Version:        "7.0.14",
			Connections:    &results.ConnCounts{Current: p(70), Available: p(838790), CreatedPerS: p(3), Peak: p(72), Limit: p(838860)},
			OpcountersPerS: map[string]float64{"insert": 0, "query": 6000, "update": 3000, "delete": 0, "getmore": 0, "command": 12},
			ReadLatencyUS:  p(850),
			WriteLatencyUS: p(1200),
			ReadOpsPerS:    p(6000),
			WriteOpsPerS:   p(3000),
			Queue:          &results.QueueCounts{Readers: p(3), Writers: p(2)},
			// readers + writers: 6+4, 14+6, 22+8
			ActiveClients: p(20),
			// Each side apart: reads 2/8/8 out, 6/0/0 free; writes 1/4/7, 7/4/1.
			Tickets: &results.TicketCounts{
				Read:  &results.TicketSide{InUse: p(6), Available: p(2), Total: p(8)},
				Write: &results.TicketSide{InUse: p(4), Available: p(4), Total: p(8)},
			},
			CPUPct:          p(150),
			ReportedCPUPct:  p(150),
			RSSMB:           p(1844),
			ResidentMB:      p(1844),
			NetInBytesPerS:  p(1.5e6),
			NetOutBytesPerS: p(4e6),
			// read 6000/s × 850 µs + write 3000/s × 1200 µs
			InFlight: p(8.7),
			Samples:  3,
		}, nil},
		// 8.0: tickets from queues.execution with normalPriority's queue;
		// rates over uptimeMillis (1 s) although our clock saw 2 s; no
		// writes in the window → write latency null.
		{"mongod-8.0.json", &results.ServerSample{
			Version:        "8.0.4",
			Connections:    &results.ConnCounts{Current: p(302), Available: p(838500), CreatedPerS: p(20), Peak: p(304), Limit: p(838804)},
			OpcountersPerS: map[string]float64{"insert": 0, "query": 10000, "update": 0, "delete": 0, "getmore": 0, "command": 4},
			ReadLatencyUS:  p(2000),
			ReadOpsPerS:    p(10000),
			WriteOpsPerS:   p(0),
			Queue:          &results.QueueCounts{Readers: p(1), Writers: p(0)},
			ActiveClients:  p(130),
			// Reads out of tickets (0/128/128 out), 0/40/44 queued in
			// normalPriority, and 31 s of queueing over the 1-s window: 31
			// waiting on average, which the three samples undercount.
			Tickets: &results.TicketCounts{
				Read:  &results.TicketSide{InUse: p(256.0 / 3), Available: p(128.0 / 3), Total: p(128), Queued: p(28), QueuedFromTime: p(31)},
				Write: &results.TicketSide{InUse: p(2), Available: p(126), Total: p(128), Queued: p(0), QueuedFromTime: p(0)},
			},
			CPUPct:          p(700),
			ReportedCPUPct:  p(700),
			RSSMB:           p(2441),
			ResidentMB:      p(2441),
			NetInBytesPerS:  p(1.2e6),
			NetOutBytesPerS: p(4.8e6),
			// 10000 reads/s × 2000 µs; no writes count as zero, not unknown
			InFlight: p(20),
			Samples:  3,
		}, nil},
		// mongos: no globalLock, tickets or queues; router pool from
		// connPoolStats totals, no shard hosts being given (created = count
		// during the window); shard names.
		{"mongos-7.0.json", &results.ServerSample{
			Version:         "7.0.14",
			Connections:     &results.ConnCounts{Current: p(193), Available: p(838667), CreatedPerS: p(1), Peak: p(193), Limit: p(838860)},
			OpcountersPerS:  map[string]float64{"insert": 0, "query": 3000, "update": 1500, "delete": 0, "getmore": 0, "command": 3},
			ReadLatencyUS:   p(1500),
			WriteLatencyUS:  p(2600),
			ReadOpsPerS:     p(3000),
			WriteOpsPerS:    p(1500),
			CPUPct:          p(100),
			ReportedCPUPct:  p(100),
			RSSMB:           p(171),
			ResidentMB:      p(171),
			NetInBytesPerS:  p(0.8e6),
			NetOutBytesPerS: p(1.1e6),
			ConnPool:        &results.ConnPoolCounts{InUse: p(62), Available: p(2), Created: p(6), Leased: p(0), Refreshing: p(0)},
			// 3000 × 1500 µs + 1500 × 2600 µs
			InFlight: p(8.4),
			Samples:  3,
		}, []string{"shard01", "shard02"}},
		// FerretDB reports none of it: every field null, only the sample
		// count (and the MongoDB version it claims).
		{"ferretdb-1.24.json", &results.ServerSample{Version: "7.0.77", Samples: 3}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := loadFixture(t, tt.file)
			hw := summarizeHost(f.snaps, nil)
			equalJSON(t, "host", hw.sample, tt.want)
			// One host: the total is the host (a version is a host's own).
			total := *tt.want
			total.Version = ""
			total.ResidentMB, total.ReportedCPUPct = nil, nil // the server's own reports, per host
			if c := total.Connections; c != nil {
				// Peaks and limits are per host only.
				cc := *c
				cc.Peak, cc.Limit = nil, nil
				total.Connections = &cc
			}
			equalJSON(t, "total", totalOf([]hostWindow{hw}), &total)
			if !slices.Equal(f.shards, tt.shards) {
				t.Errorf("shards = %v, want %v", f.shards, tt.shards)
			}
		})
	}
}

// TestFerretDBFieldsAreNull proves that what FerretDB does not report is
// written as null in results.jsonl, never as a zero.
func TestFerretDBFieldsAreNull(t *testing.T) {
	f := loadFixture(t, "ferretdb-1.24.json")
	b, err := json.Marshal(totalOf([]hostWindow{summarizeHost(f.snaps, nil)}))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"connections", "opcounters_per_s", "read_latency_us", "write_latency_us", "queue",
		"active_clients", "tickets", "cpu_pct", "rss_mb", "net_in_bytes_per_s", "net_out_bytes_per_s"} {
		v, present := m[k]
		if !present || v != nil {
			t.Errorf("%s = %v (present %v), want null", k, v, present)
		}
	}
}

// TestOwnCommandsSubtracted checks that the sampler's own commands and bytes
// come out of opcounters.command and the network rates, and never push a
// rate below zero.
func TestOwnCommandsSubtracted(t *testing.T) {
	f := loadFixture(t, "mongod-7.0-replset.json") // command +24, bytes in +3e6, out +8e6 over 2 s
	tests := []struct {
		own              [3]float64 // commands, bytes in, bytes out, at the last sample (first is 0)
		command, in, out float64
	}{
		// 4 own commands of 24 → 20 over 2 s; 1 MB of our requests and 2 MB of replies.
		{[3]float64{4, 1e6, 2e6}, 10, 1e6, 3e6},
		// More own commands than the server counted (a server that does not
		// count hello): clamped at zero, not negative.
		{[3]float64{30, 0, 0}, 0, 1.5e6, 4e6},
	}
	for _, tt := range tests {
		snaps := slices.Clone(f.snaps)
		last := &snaps[len(snaps)-1]
		last.ownCommands, last.ownBytesIn, last.ownBytesOut = tt.own[0], tt.own[1], tt.own[2]
		s := summarizeHost(snaps, nil).sample
		if got := s.OpcountersPerS["command"]; got != tt.command {
			t.Errorf("own %v: command/s = %v, want %v", tt.own, got, tt.command)
		}
		if *s.NetInBytesPerS != tt.in || *s.NetOutBytesPerS != tt.out {
			t.Errorf("own %v: net in/out = %v/%v, want %v/%v", tt.own, *s.NetInBytesPerS, *s.NetOutBytesPerS, tt.in, tt.out)
		}
	}
}

func TestSummarizeEdgeCases(t *testing.T) {
	f := loadFixture(t, "mongod-7.0-replset.json")

	// One sample: gauges are known, rates are not (no interval to divide by).
	one := summarizeHost(f.snaps[:1], nil).sample
	if one.Connections == nil || *one.Connections.Current != 68 || one.Connections.CreatedPerS != nil {
		t.Errorf("one sample: connections = %+v, want current 68 and no created rate", one.Connections)
	}
	if one.OpcountersPerS != nil || one.CPUPct != nil || one.NetInBytesPerS != nil {
		t.Errorf("one sample: rates should be null, got opcounters %v cpu %v net %v", one.OpcountersPerS, one.CPUPct, one.NetInBytesPerS)
	}

	// No sample at all (every serverStatus failed): everything null.
	none := summarizeHost(nil, nil).sample
	equalJSON(t, "no samples", none, &results.ServerSample{})

	// A restarted server (counters went backwards): the rate is unknown,
	// never a huge negative number.
	restarted := slices.Clone(f.snaps)
	restarted[2].netIn = p(10)
	restarted[2].uptimeMillis = p(500)
	restarted[2].opcounters = map[string]float64{"query": 5}
	s := summarizeHost(restarted, nil).sample
	if s.NetInBytesPerS != nil {
		t.Errorf("restart: net in = %v, want null", *s.NetInBytesPerS)
	}
	if _, ok := s.OpcountersPerS["query"]; ok {
		t.Errorf("restart: query rate %v present, want absent", s.OpcountersPerS["query"])
	}
}

func TestTotalOverHosts(t *testing.T) {
	a := summarizeHost(loadFixture(t, "mongos-7.0.json").snaps, nil)
	b := summarizeHost(loadFixture(t, "mongod-7.0-replset.json").snaps, nil)
	fe := summarizeHost(loadFixture(t, "ferretdb-1.24.json").snaps, nil)
	tot := totalOf([]hostWindow{a, b, fe})
	// Rates and gauges add up over the hosts that report them; the host
	// that reports nothing does not turn the sum into null.
	if got := tot.OpcountersPerS["query"]; got != 9000 {
		t.Errorf("query/s = %v, want 3000+6000", got)
	}
	if got := *tot.CPUPct; got != 250 {
		t.Errorf("cpu = %v, want 100+150", got)
	}
	// Latency is weighted by ops: reads 6000×1500 + 12000×850 over 18000.
	if got, want := *tot.ReadLatencyUS, (6000*1500.0+12000*850.0)/18000; math.Abs(got-want) > 1e-9 {
		t.Errorf("read latency = %v, want %v", got, want)
	}
	if tot.ConnPool == nil || *tot.ConnPool.InUse != 62 {
		t.Errorf("router pool = %+v, want in use 62 from the one router", tot.ConnPool)
	}
	if tot.Samples != 9 {
		t.Errorf("samples = %d, want 9", tot.Samples)
	}
}

// TestNumCoercion checks every BSON number type the servers use, and that
// anything else is "not reported".
func TestNumCoercion(t *testing.T) {
	dec, err := bson.ParseDecimal128("12345")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := bson.Marshal(bson.D{
		{Key: "i32", Value: int32(7)},
		{Key: "i64", Value: int64(1) << 40},
		{Key: "dbl", Value: 2.5},
		{Key: "dec", Value: dec},
		{Key: "str", Value: "12"},
		{Key: "bool", Value: true},
		{Key: "nested", Value: bson.D{{Key: "x", Value: int32(3)}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path []string
		want *float64
	}{
		{[]string{"i32"}, p(7)},                  // int32, e.g. connections.current
		{[]string{"i64"}, p(1 << 40)},            // int64, e.g. opcounters
		{[]string{"dbl"}, p(2.5)},                // double, e.g. uptime
		{[]string{"dec"}, p(12345)},              // decimal128 never seen in practice but valid
		{[]string{"str"}, nil},                   // a string is not a number, even if it looks like one
		{[]string{"bool"}, nil},                  // nor a boolean
		{[]string{"nested", "x"}, p(3)},          // dotted paths
		{[]string{"missing"}, nil},               // absent → nil, not 0
		{[]string{"nested", "x", "deeper"}, nil}, // path through a non-document
	}
	for _, tt := range tests {
		got := newReply("test", raw).num(tt.path...)
		if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
			t.Errorf("num(%v) = %v, want %v", tt.path, deref(got), deref(tt.want))
		}
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// TestTicketsPreferNewerSection: a server reporting both places is read
// from queues.execution.
func TestTicketsPreferNewerSection(t *testing.T) {
	raw, err := bson.Marshal(bson.D{
		{Key: "queues", Value: bson.D{{Key: "execution", Value: bson.D{
			{Key: "read", Value: bson.D{{Key: "out", Value: int32(5)}, {Key: "available", Value: int32(3)}}},
		}}}},
		{Key: "wiredTiger", Value: bson.D{{Key: "concurrentTransactions", Value: bson.D{
			{Key: "read", Value: bson.D{{Key: "out", Value: int32(99)}, {Key: "available", Value: int32(99)}}},
		}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := parseServerStatus(raw, time.Now())
	if s.ticketsRead == nil || *s.ticketsRead.out != 5 || s.ticketsWrite != nil {
		t.Fatalf("tickets = %+v / %+v, want read out 5 from queues.execution and no write side", s.ticketsRead, s.ticketsWrite)
	}
}

// TestParseHostInfoCores reads recorded hostInfo replies: the cores a
// server may use, preferring the affinity-aware count, and nil (never 0)
// where the reply has none.
func TestParseHostInfoCores(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "hostinfo.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc bson.Raw
	if err := bson.UnmarshalExtJSON(b, true, &doc); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{
		"mongod-7.0":    4,  // numCoresAvailableToProcess wins over numCores 8
		"mongod-5.0":    16, // numCores
		"ferretdb-1.24": 2,  // numCores (its GOMAXPROCS)
		"no-counts":     0,  // numCores 0: unknown
	} {
		got := parseHostInfo(doc.Lookup("replies", name).Document()).cores
		switch {
		case want == 0 && got != nil:
			t.Errorf("%s: cores = %d, want nil", name, *got)
		case want > 0 && (got == nil || *got != want):
			t.Errorf("%s: cores = %v, want %d", name, got, want)
		}
	}
	if got := parseHostInfo(nil).cores; got != nil {
		t.Errorf("empty reply: cores = %d, want nil", *got)
	}
}

// A host's peak is the most connections one sample saw, and its limit the
// most current + available one reported: taken from the samples, never
// from their means. A sample without available gives no limit.
func TestConnectionPeakAndLimit(t *testing.T) {
	f := loadFixture(t, "mongod-7.0-replset.json")
	snaps := slices.Clone(f.snaps)
	if len(snaps) < 3 {
		t.Fatalf("%d samples in the fixture, want 3", len(snaps))
	}
	snaps[0].connCurrent, snaps[0].connAvailable = p(10), p(90)
	snaps[1].connCurrent, snaps[1].connAvailable = p(70), p(30)
	snaps[2].connCurrent, snaps[2].connAvailable = p(40), nil
	c := summarizeHost(snaps[:3], nil).sample.Connections
	if c == nil || c.Peak == nil || *c.Peak != 70 || c.Limit == nil || *c.Limit != 100 || *c.Current != 40 {
		t.Fatalf("connections %+v, want peak 70, limit 100 and a mean current of 40", c)
	}
	snaps[0].connAvailable, snaps[1].connAvailable = nil, nil
	if c := summarizeHost(snaps[:3], nil).sample.Connections; c.Limit != nil {
		t.Errorf("no sample said available: limit %v, want none", *c.Limit)
	}
}
