package sim

import (
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/corpus"
)

// The corpus of real servers' replies (testdata/servers at the module's
// root; its README says where each file comes from), read through
// internal/corpus: tests load a reply as bson.Raw, with the BSON types the
// file gives.

// corpusFiles lists every reply in the corpus.
func corpusFiles(t testing.TB) []corpus.File {
	t.Helper()
	files, err := corpus.Files()
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// loadReply reads one corpus file into bson.Raw.
func loadReply(t testing.TB, name string) bson.Raw {
	t.Helper()
	raw, err := corpus.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// readPaths loads testdata/servers/read-paths.txt.
func readPaths(t testing.TB) []corpus.ReadPath {
	t.Helper()
	paths, err := corpus.ReadPaths()
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// TestCorpusLoads checks that every corpus file parses, has a regular
// name, and is a reply of the command its name says (ok: 1).
func TestCorpusLoads(t *testing.T) {
	files := corpusFiles(t)
	if len(files) == 0 {
		t.Fatal("corpus is empty")
	}
	for _, f := range files {
		raw := loadReply(t, f.Name)
		if ok, err := raw.LookupErr("ok"); err == nil {
			if n, isNum := ok.AsFloat64OK(); !isNum || n != 1 {
				t.Errorf("%s: ok is %v, want 1", f.Name, ok)
			}
		} else if f.Command != "serverStatus" {
			t.Errorf("%s: no ok field", f.Name)
		}
		if f.Command == "serverStatus" {
			if p, _ := raw.Lookup("process").StringValueOK(); p != f.Process {
				t.Errorf("%s: process %q, file name says %s", f.Name, p, f.Process)
			}
		}
	}
	if n := len(readPaths(t)); n < 20 {
		t.Errorf("read-paths.txt has %d lines", n)
	}
	if !slices.ContainsFunc(files, func(f corpus.File) bool { return !f.Manual() }) {
		t.Error("no captured reply in the corpus")
	}
}

func TestCorpusFileName(t *testing.T) {
	for _, name := range []string{"serverStatus.mongod-4.2.8.json", "isMaster.mongod-replset-primary-4.2.json", "hello.mongos-8.0.manual.json"} {
		f, ok := corpus.ParseName(name)
		if !ok {
			t.Fatalf("%s does not parse", name)
		}
		if got := corpus.FileName(f.Command, f.Process, f.Role, f.Version, f.Variant[min(1, len(f.Variant)):]); got != name {
			t.Errorf("FileName round trip: %s → %s", name, got)
		}
	}
}
