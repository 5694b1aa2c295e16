package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestConformance holds the simulator's replies to the corpus of real
// servers' replies (testdata/servers): at every modeled version, as mongod
// and as mongos, for every field poolsweep reads (read-paths.txt), the
// simulator reports the field iff the real reply of that version and
// process has it, with the same BSON type (exactly, against a reply built
// from the manual, whose types are the manual's; by class — number, string,
// document … — against a capture whose source kept only relaxed JSON). And
// it adds no top-level section the real reply lacks. Each subtest's name
// says which file it is checked against and whether that file is captured
// or from the manual.
func TestConformance(t *testing.T) {
	paths := readPaths(t)
	files := corpusFiles(t)
	for _, v := range versions {
		for _, proc := range []string{"mongod", "mongos"} {
			spec := "service=0s,version=" + v.name
			if proc == "mongos" {
				spec = "shards=1," + spec
			}
			s, err := ParseSpec(spec)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Start(t.Context(), s, AloneInProcess())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			f := d.fronts[0]
			for _, cmd := range conformanceCommands(v, proc) {
				ref, ok := referenceFile(files, cmd, proc, v.name)
				if !ok {
					t.Errorf("%s %s-%s: no reply in the corpus, captured or from the manual", cmd, proc, v.name)
					continue
				}
				kind := "captured"
				if ref.manual() {
					kind = "manual"
				}
				name := fmt.Sprintf("%s/%s-%s/%s(%s)", cmd, proc, v.name, ref.name, kind)
				t.Run(name, func(t *testing.T) {
					real := loadReply(t, ref.name)
					sim := runCmd(t, f, "admin", bson.D{{Key: cmd, Value: 1}}, nil)
					checkConforms(t, cmd, real, sim, paths, ref.manual())
				})
			}
		}
	}
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
func referenceFile(files []corpusFile, cmd, proc, version string) (corpusFile, bool) {
	if cmd == "hostInfo" {
		proc = "mongod"
	}
	var best corpusFile
	found := false
	for _, f := range files {
		if f.command != cmd || f.process != proc || (f.role != "" && f.role != "standalone") {
			continue
		}
		if f.version != version && !strings.HasPrefix(f.version, version+".") {
			continue
		}
		if !found || (best.manual() && !f.manual()) {
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

func checkConforms(t *testing.T, cmd string, real, sim bson.Raw, paths []readPath, exact bool) {
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
		if p.command != cmd {
			continue
		}
		path := strings.Join(p.path, ".")
		rv, sv := valuesAt(real, p.path), valuesAt(sim, p.path)
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
