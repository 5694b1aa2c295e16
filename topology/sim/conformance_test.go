package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/corpus"
)

// TestConformance holds the simulator's replies to the corpus of real
// servers' replies (testdata/servers): at every modeled version, as mongod
// and as mongos, for every field poolsweep reads (read-paths.txt), the
// simulator reports the field iff the real reply of that version and
// process has it, with the same BSON type (exactly, against a reply built
// from the manual, whose types are the manual's, and against a capture
// decoded from FTDC, whose types are the server's own; by class — number,
// string, document … — against a capture whose source kept only relaxed
// JSON, relaxedSources). And
// it adds no top-level section the real reply lacks. Each subtest's name
// says which file it is checked against and whether that file is captured
// or from the manual.
func TestConformance(t *testing.T) {
	paths := conformancePaths(t)
	files := corpusFiles(t)
	for _, v := range versions {
		for _, proc := range []string{"mongod", "mongos"} {
			spec := "service=0s,version=" + v.name
			if proc == "mongos" {
				spec = "shards=1," + spec
			}
			f := startAlone(t, spec).fronts[0]
			if proc == "mongos" {
				// A router reports a pool to a shard host once the pool has
				// opened a connection, as the manual's example has: one op
				// through it opens one, whatever the version warms at start.
				wantOK(t, runCmd(t, f, "conformance", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}}, nil))
			}
			for _, cmd := range conformanceCommands(v, proc) {
				ref, ok := referenceFile(files, cmd, proc, v.name)
				if !ok {
					t.Errorf("%s %s-%s: no reply in the corpus, captured or from the manual", cmd, proc, v.name)
					continue
				}
				kind := "captured"
				if ref.Manual() {
					kind = "manual"
				}
				name := fmt.Sprintf("%s/%s-%s/%s(%s)", cmd, proc, v.name, ref.Name, kind)
				t.Run(name, func(t *testing.T) {
					real := loadReply(t, ref.Name)
					sim := runCmd(t, f, "admin", bson.D{{Key: cmd, Value: 1}}, nil)
					checkConforms(t, cmd, real, sim, paths, exactTypes(ref))
				})
			}
		}
	}
}

// startAlone starts spec as the only deployment of its process (as serve
// --sim runs it), until the test ends.
func startAlone(t *testing.T, spec string) *Deployment {
	t.Helper()
	s, err := ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Start(t.Context(), s, AloneInProcess())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// conformanceCommands are the commands poolsweep sends to a server of that
// version and process (hello only where it exists).
func conformanceCommands(v serverVersion, proc string) []string {
	cmds := []string{"isMaster", "buildInfo", "serverStatus", "hostInfo"}
	if v.hello {
		cmds = append(cmds, "hello")
	}
	if proc == "mongos" {
		cmds = append(cmds, "connPoolStats", "listShards")
	}
	return cmds
}

// referenceFile picks the corpus reply for a command, process and version:
// a capture (a standalone's, for mongod) when there is one, else the
// manual's. hostInfo is the same on mongod and mongos.
func referenceFile(files []corpus.File, cmd, proc, version string) (corpus.File, bool) {
	if cmd == "hostInfo" {
		proc = "mongod"
	}
	return pickFile(files, cmd, proc, version, "", "standalone")
}

// pickFile picks the reply of a command, process and version whose role
// is one of roles: a capture (or an edited capture) over the manual's.
func pickFile(files []corpus.File, cmd, proc, version string, roles ...string) (corpus.File, bool) {
	var best corpus.File
	found := false
	for _, f := range files {
		if f.Command != cmd || f.Process != proc || !slices.Contains(roles, f.Role) {
			continue
		}
		if f.Version != version && !strings.HasPrefix(f.Version, version+".") {
			continue
		}
		if !found || (best.Manual() && !f.Manual()) {
			best, found = f, true
		}
	}
	return best, found
}

// simulatorMarkers are top-level fields the simulator adds on purpose and a
// real server lacks: buildInfo's markers, by which topology.Detect tells a
// simulated target (and its spec) from a real one. Telemetry never reads them.
var simulatorMarkers = map[string][]string{
	"buildInfo": {"poolsweepSimulator", "simulatorSpec"},
}

// checkConforms holds one simulated reply to the real one: for each path,
// presence, BSON type and value domain (checkDomain).
func checkConforms(t *testing.T, cmd string, real, sim bson.Raw, paths []corpus.ReadPath, exact bool) {
	t.Helper()
	elems, err := sim.Elements()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range elems {
		if _, err := real.LookupErr(e.Key()); err != nil && !slices.Contains(simulatorMarkers[cmd], e.Key()) {
			t.Errorf("the simulator reports %s, which the real reply has not", e.Key())
		}
	}
	for _, p := range paths {
		if p.Command != cmd {
			continue
		}
		path := strings.Join(p.Path, ".")
		rv, sv := valuesAt(real, p.Path), valuesAt(sim, p.Path)
		switch {
		case len(rv) > 0 && len(sv) == 0:
			t.Errorf("%s: the real reply has it, the simulator does not", path)
		case len(rv) == 0 && len(sv) > 0:
			t.Errorf("%s: the simulator reports it, the real reply has not", path)
		case len(rv) > 0:
			for _, v := range sv {
				if exact && v.Type != rv[0].Type {
					t.Errorf("%s: simulator's type %s, real %s", path, v.Type, rv[0].Type)
				} else if typeClass(v.Type) != typeClass(rv[0].Type) {
					t.Errorf("%s: simulator's type %s, real %s (%s vs %s)", path, v.Type, rv[0].Type, typeClass(v.Type), typeClass(rv[0].Type))
				}
				checkDomain(t, path, rv[0], v)
			}
		}
	}
}

// valuesAt returns the values at a dotted path; "*" stands for every
// element of an array or every field of a document.
func valuesAt(doc bson.Raw, path []string) []bson.RawValue {
	if len(path) == 0 {
		return nil
	}
	var next []bson.RawValue
	if path[0] == "*" {
		elems, err := doc.Elements()
		if err != nil {
			return nil
		}
		for _, e := range elems {
			next = append(next, e.Value())
		}
	} else if v, err := doc.LookupErr(path[0]); err == nil {
		next = append(next, v)
	}
	if len(path) == 1 {
		return next
	}
	var out []bson.RawValue
	for _, v := range next {
		var sub bson.Raw
		switch v.Type {
		case bson.TypeEmbeddedDocument:
			sub = v.Document()
		case bson.TypeArray:
			sub = bson.Raw(v.Array())
		default:
			continue
		}
		out = append(out, valuesAt(sub, path[1:])...)
	}
	return out
}

// relaxedSources are the captures whose sources kept relaxed JSON (the
// legend's R and X in testdata/servers/README.md): a monitoring exporter's
// dump or a driver's test fixture, int32, int64 and double not told apart.
// Every other capture is decoded from FTDC and has the server's own types.
var relaxedSources = []string{
	"serverStatus.mongod-3.6.20.json", "serverStatus.mongod-4.2.8.json", "serverStatus.mongod-5.0.0.json",
	"isMaster.mongod-replset-primary-4.2.json", "isMaster.mongod-replset-secondary-4.2.json",
	"isMaster.mongod-standalone-7.0.edited.json", "isMaster.mongos-7.0.edited.json",
	"hostInfo.mongod-unknown-2024.json", "connPoolStats.mongos-unknown-2020.json",
	"replSetGetStatus.mongod-replset-primary-4.2.json", "replSetGetStatus.mongod-replset-secondary-4.2.edited.json",
	"replSetGetStatus.mongod-replset-primary-unknown-2020.json",
}

// exactTypes says the file's BSON types are a server's (or the manual's)
// exactly.
func exactTypes(f corpus.File) bool {
	return f.Manual() || !slices.Contains(relaxedSources, f.Name)
}

// typeClass groups BSON types a reader treats alike: every numeric type is
// a number (sources of relaxed JSON lose int32/int64/double).
func typeClass(t bson.Type) string {
	switch t {
	case bson.TypeInt32, bson.TypeInt64, bson.TypeDouble, bson.TypeDecimal128:
		return "number"
	default:
		return t.String()
	}
}

func TestValuesAt(t *testing.T) {
	d, _ := bson.Marshal(bson.D{
		{Key: "hosts", Value: bson.D{{Key: "a:1", Value: bson.D{{Key: "inUse", Value: int32(1)}}}, {Key: "b:2", Value: bson.D{{Key: "x", Value: 1}}}}},
		{Key: "shards", Value: bson.A{bson.D{{Key: "_id", Value: "s0"}}, bson.D{{Key: "_id", Value: "s1"}}}},
	})
	for _, tt := range []struct {
		path string
		want int
	}{
		{"hosts.*.inUse", 1},   // one host has it
		{"shards.*._id", 2},    // every array element
		{"shards.*.host", 0},   // none
		{"hosts.a:1.inUse", 1}, // a literal key
		{"missing.x", 0},
	} {
		if got := len(valuesAt(d, strings.Split(tt.path, "."))); got != tt.want {
			t.Errorf("%s: %d values, want %d", tt.path, got, tt.want)
		}
	}
}

// TestConformanceShardServer holds a sharded simulator's shard servers to
// the corpus: at every version, serverStatus, hostInfo and buildInfo as a
// mongod's of that version (a shard primary reports what a standalone
// does, plus repl, which poolsweep does not read), and isMaster as the
// captured replica-set primary's (4.2; the replica-set fields poolsweep
// reads — setName, hosts, primary, me — have the same shape in every
// version), extra_info and mem included (the process's share).
func TestConformanceShardServer(t *testing.T) {
	paths := conformancePaths(t)
	files := corpusFiles(t)
	for _, v := range versions {
		d := startAlone(t, "shards=2,service=0s,version="+v.name)
		f := d.shardFronts[1]
		for _, cmd := range []string{"serverStatus", "hostInfo", "buildInfo"} {
			ref, ok := referenceFile(files, cmd, "mongod", v.name)
			if !ok {
				t.Fatalf("%s mongod-%s: no reply in the corpus", cmd, v.name)
			}
			t.Run(fmt.Sprintf("%s/shard-%s/%s", cmd, v.name, ref.Name), func(t *testing.T) {
				checkConforms(t, cmd, loadReply(t, ref.Name), runCmd(t, f, "admin", bson.D{{Key: cmd, Value: 1}}, nil), paths, ref.Manual())
			})
		}
		t.Run(fmt.Sprintf("isMaster/shard-%s/isMaster.mongod-replset-primary-4.2.json", v.name), func(t *testing.T) {
			sim := runCmd(t, f, "admin", bson.D{{Key: "isMaster", Value: 1}}, nil)
			checkConforms(t, "isMaster", loadReply(t, "isMaster.mongod-replset-primary-4.2.json"), sim, paths, false)
			if me, _ := sim.Lookup("me").StringValueOK(); me != d.ShardHosts()[1] {
				t.Errorf("me = %q, want the shard's host %s", me, d.ShardHosts()[1])
			}
			if set, _ := sim.Lookup("setName").StringValueOK(); set != "shard1" {
				t.Errorf("setName = %q, want shard1 (the shard's _id)", set)
			}
		})
	}
}
