package sim

import (
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/corpus"
)

// TestConformanceReplicaSet holds a simulated replica set's members to the
// corpus at every version, as primary and as secondary:
//   - replSetGetStatus against that version's reply (the captured 4.2
//     primary's, the edited 4.2 secondary's, the manual's elsewhere), for
//     every read path and every top-level field;
//   - isMaster against the captured 4.2 primary's and secondary's (the
//     replica-set fields have one shape in every version), and hello (4.4+)
//     against the same with ismaster under its hello name,
//     isWritablePrimary;
//   - serverStatus against a mongod's of that version, plus its repl and
//     opcountersRepl sections field by field against the captured 4.2.8
//     set member's (repl.ismaster is repl.isWritablePrimary from 5.0,
//     SERVER-50420);
//   - hostInfo and buildInfo as a mongod's.
//
// The members share one process, and each reports its share of it in
// extra_info and mem.
func TestConformanceReplicaSet(t *testing.T) {
	paths := conformancePaths(t)
	files := corpusFiles(t)
	ismaster := map[string]string{"primary": "isMaster.mongod-replset-primary-4.2.json", "secondary": "isMaster.mongod-replset-secondary-4.2.json"}
	for _, v := range versions {
		d := startAlone(t, "rs=3,service=0s,version="+v.name)
		for i, role := range []string{"primary", "secondary"} {
			f := d.fronts[i]
			run := func(cmd string) bson.Raw {
				return runCmd(t, f, "admin", bson.D{{Key: cmd, Value: 1}}, nil)
			}
			ref, ok := roleFile(files, "replSetGetStatus", role, v.name)
			if !ok {
				t.Errorf("replSetGetStatus %s-%s: no reply in the corpus", role, v.name)
			} else {
				t.Run(fmt.Sprintf("replSetGetStatus/%s-%s/%s", role, v.name, ref.Name), func(t *testing.T) {
					sim := run("replSetGetStatus")
					checkConforms(t, "replSetGetStatus", loadReply(t, ref.Name), sim, paths, ref.Manual())
					if n := len(valuesAt(sim, []string{"members", "*", "self"})); n != 1 {
						t.Errorf("%d members say self, want 1", n)
					}
				})
			}
			t.Run(fmt.Sprintf("isMaster/%s-%s/%s", role, v.name, ismaster[role]), func(t *testing.T) {
				checkConforms(t, "isMaster", loadReply(t, ismaster[role]), run("isMaster"), paths, false)
			})
			if v.hello {
				t.Run(fmt.Sprintf("hello/%s-%s/%s", role, v.name, ismaster[role]), func(t *testing.T) {
					real := renamed(t, loadReply(t, ismaster[role]), "ismaster", "isWritablePrimary")
					checkConforms(t, "hello", real, run("hello"), paths, false)
				})
			}
			for _, cmd := range []string{"serverStatus", "hostInfo", "buildInfo"} {
				ref, ok := referenceFile(files, cmd, "mongod", v.name)
				if !ok {
					t.Fatalf("%s mongod-%s: no reply in the corpus", cmd, v.name)
				}
				t.Run(fmt.Sprintf("%s/%s-%s/%s", cmd, role, v.name, ref.Name), func(t *testing.T) {
					sim := run(cmd)
					if cmd == "serverStatus" {
						checkReplSections(t, v, sim)
						sim = without(t, sim, "repl", "opcountersRepl")
					}
					checkConforms(t, cmd, loadReply(t, ref.Name), sim, paths, ref.Manual())
				})
			}
		}
	}
}

// roleFile picks a replica-set member's reply of that version and role;
// a secondary's reply of a version with none is held to the primary's,
// whose fields it shares.
func roleFile(files []corpus.File, cmd, role, version string) (corpus.File, bool) {
	if f, ok := pickFile(files, cmd, "mongod", version, "replset-"+role); ok {
		return f, true
	}
	return pickFile(files, cmd, "mongod", version, "replset-primary")
}

// replSectionPaths are the fields of serverStatus's repl section that
// stage B samples on every member, under their pre-5.0 names.
// They are checked here rather than listed in read-paths.txt because every
// serverStatus line there must be one the telemetry parser reads, and it
// does not read these yet.
var replSectionPaths = []string{"setName", "hosts", "primary", "me", "ismaster", "secondary", "lastWrite.opTime.ts", "lastWrite.lastWriteDate"}

// checkReplSections holds a member's serverStatus repl and opcountersRepl
// to the captured 4.2.8 set member's: every field the simulator reports is
// there with the same type class, and the fields stage B reads are there.
func checkReplSections(t *testing.T, v serverVersion, sim bson.Raw) {
	t.Helper()
	real := loadReply(t, "serverStatus.mongod-4.2.8.json")
	repl, err := sim.LookupErr("repl")
	if err != nil {
		t.Fatal("no repl section")
	}
	replDoc := repl.Document()
	if v.primaryNames {
		if _, err := replDoc.LookupErr("ismaster"); err == nil {
			t.Errorf("%s repl has ismaster; from 5.0 it is isWritablePrimary", v.name)
		}
		replDoc = renamed(t, replDoc, "isWritablePrimary", "ismaster")
	}
	checkSubset(t, "repl", real.Lookup("repl").Document(), replDoc)
	checkSubset(t, "opcountersRepl", real.Lookup("opcountersRepl").Document(), sim.Lookup("opcountersRepl").Document())
	primary := replDoc.Lookup("ismaster").Boolean()
	for _, p := range replSectionPaths {
		if p == "primary" || len(valuesAt(replDoc, strings.Split(p, "."))) > 0 {
			continue
		}
		t.Errorf("repl.%s: missing (primary %v)", p, primary)
	}
	if !v.opcounters64 && sim.Lookup("opcountersRepl", "insert").Type != bson.TypeInt32 ||
		v.opcounters64 && sim.Lookup("opcountersRepl", "insert").Type != bson.TypeInt64 {
		t.Errorf("opcountersRepl.insert is %s; want the type of opcounters in %s", sim.Lookup("opcountersRepl", "insert").Type, v.name)
	}
}

// checkSubset reports each field of sim that real lacks or gives another
// type class, through embedded documents.
func checkSubset(t *testing.T, at string, real, sim bson.Raw) {
	t.Helper()
	elems, err := sim.Elements()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range elems {
		path := at + "." + e.Key()
		rv, err := real.LookupErr(e.Key())
		switch {
		case err != nil:
			t.Errorf("%s: the simulator reports it, the real reply has not", path)
		case typeClass(rv.Type) != typeClass(e.Value().Type):
			t.Errorf("%s: simulator's type %s, real %s", path, e.Value().Type, rv.Type)
		case rv.Type == bson.TypeEmbeddedDocument:
			checkSubset(t, path, rv.Document(), e.Value().Document())
		}
	}
}

// renamed returns doc with its top-level key from called to.
func renamed(t *testing.T, doc bson.Raw, from, to string) bson.Raw {
	t.Helper()
	var d bson.D
	if err := bson.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	for i := range d {
		if d[i].Key == from {
			d[i].Key = to
		}
	}
	out, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// without returns doc without the given top-level keys.
func without(t *testing.T, doc bson.Raw, keys ...string) bson.Raw {
	t.Helper()
	var d bson.D
	if err := bson.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	var kept bson.D
	for _, e := range d {
		if !strings.Contains(","+strings.Join(keys, ",")+",", ","+e.Key+",") {
			kept = append(kept, e)
		}
	}
	out, err := bson.Marshal(kept)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
