package sim

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The corpus of real servers' replies (testdata/servers at the module's
// root; its README says where each file comes from). Tests load a reply as
// bson.Raw, with the BSON types the file gives.

// corpusDir is testdata/servers, seen from this package's directory.
var corpusDir = filepath.Join("..", "..", "testdata", "servers")

// corpusName is the regular shape of a corpus file name:
// <command>.<process>[-<role>]-<version>[.<variant>].json, version being
// x.y, x.y.z or "unknown-<year>".
var corpusName = regexp.MustCompile(`^([A-Za-z]+)\.(mongod|mongos)(-[a-z]+(?:-[a-z]+)?)?-(\d+\.\d+(?:\.\d+)?|unknown-\d{4})(\.[a-z]+)?\.json$`)

// corpusFile is what a corpus file's name says about its reply.
type corpusFile struct {
	name, command, process, role, version, variant string
}

// manual reports whether the reply was built from the manual, not captured.
func (f corpusFile) manual() bool { return f.variant == ".manual" }

// parseCorpusName splits a file name; ok is false for a name off the pattern.
func parseCorpusName(name string) (corpusFile, bool) {
	m := corpusName.FindStringSubmatch(name)
	if m == nil {
		return corpusFile{}, false
	}
	return corpusFile{name: name, command: m[1], process: m[2], role: strings.TrimPrefix(m[3], "-"), version: m[4], variant: m[5]}, true
}

// corpusFiles lists every reply in the corpus.
func corpusFiles(t testing.TB) []corpusFile {
	t.Helper()
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatalf("corpus: %v", err)
	}
	var files []corpusFile
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		f, ok := parseCorpusName(e.Name())
		if !ok {
			t.Fatalf("corpus file %s: name is not <command>.<process>[-<role>]-<version>[.<variant>].json", e.Name())
		}
		files = append(files, f)
	}
	return files
}

// loadReply reads one corpus file into bson.Raw (Extended JSON v2,
// canonical where the source kept the types).
func loadReply(t testing.TB, name string) bson.Raw {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatalf("corpus: %v", err)
	}
	var raw bson.Raw
	if err := bson.UnmarshalExtJSON(data, true, &raw); err != nil {
		t.Fatalf("corpus %s: %v", name, err)
	}
	return raw
}

// readPath is one line of read-paths.txt: a field poolsweep reads.
type readPath struct {
	command string
	path    []string
}

// readPaths loads testdata/servers/read-paths.txt.
func readPaths(t testing.TB) []readPath {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, "read-paths.txt"))
	if err != nil {
		t.Fatalf("read paths: %v", err)
	}
	defer f.Close()
	var out []readPath
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmd, path, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("read-paths.txt: %q: want <command> <dotted path>", line)
		}
		out = append(out, readPath{command: cmd, path: strings.Split(path, ".")})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read paths: %v", err)
	}
	return out
}

// TestCorpusLoads checks that every corpus file parses, has a regular
// name, and is a reply of the command its name says (ok: 1).
func TestCorpusLoads(t *testing.T) {
	files := corpusFiles(t)
	if len(files) == 0 {
		t.Fatal("corpus is empty")
	}
	for _, f := range files {
		raw := loadReply(t, f.name)
		if ok, err := raw.LookupErr("ok"); err == nil {
			if n, isNum := ok.AsFloat64OK(); !isNum || n != 1 {
				t.Errorf("%s: ok is %v, want 1", f.name, ok)
			}
		} else if f.command != "serverStatus" {
			t.Errorf("%s: no ok field", f.name)
		}
		if f.command == "serverStatus" {
			if p, _ := raw.Lookup("process").StringValueOK(); p != f.process {
				t.Errorf("%s: process %q, file name says %s", f.name, p, f.process)
			}
		}
	}
	if n := len(readPaths(t)); n < 20 {
		t.Errorf("read-paths.txt has %d lines", n)
	}
	if !slices.ContainsFunc(files, func(f corpusFile) bool { return !f.manual() }) {
		t.Error("no captured reply in the corpus")
	}
}
