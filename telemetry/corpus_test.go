package telemetry

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/corpus"
	"github.com/poolsweep/poolsweep/internal/testkit/golden"
)

// The corpus of real servers' replies (testdata/servers) is what the parser
// answers to: every reply is parsed as poolsweep parses it, and what was
// read is pinned in a golden file per reply (testdata/corpus/<reply>.golden,
// reviewed field by field; refresh with go test -run GoldenCorpus -update
// and read the diff). A field not reported stays null.

// parseCorpusReply parses one corpus reply with the parser poolsweep uses
// for its command; ok is false for a command telemetry does not read
// (buildInfo: topology.Detect reads its version).
func parseCorpusReply(f corpus.File, raw bson.Raw) (view any, ok bool) {
	switch f.Command {
	case "serverStatus":
		return snapshotView(parseServerStatus(raw, time.Time{})), true
	case "connPoolStats":
		total, hosts, exec := parseConnPoolStats(raw)
		v := map[string]any{"total": poolView(total)}
		hv := map[string]any{}
		for h, p := range hosts {
			hv[h] = poolView(&p)
		}
		v["hosts"] = hv
		ev := map[string]any{}
		for h, e := range exec {
			ev[h] = map[string]any{"pools": e.n, "busiest_in_use": e.busiestInUse, "busiest_refreshing": e.busiestRefresh}
		}
		v["task_executor_pools"] = ev
		return v, true
	case "hostInfo":
		hi := parseHostInfo(raw)
		return map[string]any{"cores": hi.cores, "mem_limited": hi.memLimited}, true
	case "listShards":
		var out []map[string]any
		for _, sh := range parseListShards(raw) {
			out = append(out, map[string]any{"name": sh.name, "set": sh.setName, "hosts": sh.hosts})
		}
		return out, true
	case "replSetGetStatus":
		var out []map[string]any
		for _, m := range parseReplSetGetStatus(raw) {
			out = append(out, map[string]any{"name": m.name, "state": m.state, "self": m.self, "applied": m.applied, "applied_ms": m.ms})
		}
		l, precise, ok := lags(parseReplSetGetStatus(raw))
		lagMS := map[string]float64{}
		for h, d := range l {
			lagMS[h] = float64(d) / float64(time.Millisecond)
		}
		return map[string]any{"members": out, "primary_reply": ok, "lag_ms": lagMS, "lag_precise": precise}, true
	case "hello", "isMaster":
		hi := parseHello(f.Command, raw)
		return map[string]any{"set": hi.setName, "me": hi.me, "primary": hi.primary, "writable_primary": hi.writablePrimary}, true
	}
	return nil, false
}

// snapshotView is what parseServerStatus read, every field by name.
func snapshotView(s snapshot) map[string]any {
	side := func(t *ticketSide) any {
		if t == nil {
			return nil
		}
		return map[string]any{"out": t.out, "available": t.available, "total": t.total, "queue_length": t.queueLength, "queued_micros": t.queuedMicros}
	}
	return map[string]any{
		"process": s.process, "version": s.version, "uptime_millis": s.uptimeMillis,
		"opcounters":  s.opcounters,
		"connections": map[string]any{"current": s.connCurrent, "available": s.connAvailable, "total_created": s.connTotalCreated},
		"op_latencies": map[string]any{"read_latency": s.readLatency, "read_ops": s.readOps,
			"write_latency": s.writeLatency, "write_ops": s.writeOps},
		"global_queue":   map[string]any{"readers": s.queueReaders, "writers": s.queueWriters},
		"active_clients": map[string]any{"readers": s.activeReaders, "writers": s.activeWriters},
		"tickets":        map[string]any{"read": side(s.ticketsRead), "write": side(s.ticketsWrite)},
		"network":        map[string]any{"bytes_in": s.netIn, "bytes_out": s.netOut},
		"cpu":            map[string]any{"user_us": s.cpuUserUS, "system_us": s.cpuSysUS},
		"resident_mb":    s.residentMB,
		"establishment": map[string]any{"queued_now": s.estQueued, "rejected_conns": s.estRejected,
			"attempted": s.ingress.attempted, "admitted": s.ingress.admitted, "queued": s.ingress.queued,
			"rejected": s.ingress.rejected, "interrupted": s.ingress.interrupted},
	}
}

func poolView(p *poolCounts) any {
	if p == nil {
		return nil
	}
	return map[string]any{"in_use": p.inUse, "available": p.available, "created": p.created, "leased": p.leased, "refreshing": p.refreshing, "was_never_used": p.wasNeverUsed}
}

func corpusFiles(t *testing.T) []corpus.File {
	t.Helper()
	files, err := corpus.Files()
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func loadCorpus(t *testing.T, name string) bson.Raw {
	t.Helper()
	raw, err := corpus.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestGoldenCorpus pins what the parser reads from every reply of the
// corpus.
func TestGoldenCorpus(t *testing.T) {
	for _, f := range corpusFiles(t) {
		view, ok := parseCorpusReply(f, loadCorpus(t, f.Name))
		if !ok {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			b, err := json.MarshalIndent(view, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "corpus", strings.TrimSuffix(f.Name, ".json")+".golden"), append(b, '\n'))
		})
	}
}

// TestReadPathsListed holds the parser to testdata/servers/read-paths.txt:
// every field it reads from a reply of the corpus must be listed there
// (the list the simulator's conformance test checks against the corpus),
// and every line for a command telemetry owns must be read by it, so the
// list says what poolsweep reads and no more.
func TestReadPathsListed(t *testing.T) {
	var mu sync.Mutex
	read := map[string]bool{}
	readHook = func(command string, path []string) {
		mu.Lock()
		defer mu.Unlock()
		read[command+" "+strings.Join(path, ".")] = true
	}
	t.Cleanup(func() { readHook = nil })
	for _, f := range corpusFiles(t) {
		parseCorpusReply(f, loadCorpus(t, f.Name))
	}
	paths, err := corpus.ReadPaths()
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, p := range paths {
		listed[p.String()] = true
	}
	var unlisted []string
	for r := range read {
		if !listed[r] {
			unlisted = append(unlisted, r)
		}
	}
	slices.Sort(unlisted)
	for _, r := range unlisted {
		t.Errorf("the parser reads %q, which testdata/servers/read-paths.txt does not list", r)
	}
	owned := map[string]bool{"serverStatus": true, "connPoolStats": true, "hostInfo": true, "listShards": true}
	for _, p := range paths {
		if owned[p.Command] && !read[p.String()] {
			t.Errorf("read-paths.txt lists %q, which the parser never reads", p.String())
		}
	}
	if len(read) < 40 {
		t.Errorf("only %d fields recorded: is the hook on every read?", len(read))
	}
}
