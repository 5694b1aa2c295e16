package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/workload/shapes"
)

const realLog = "../../querylog/testdata/real/hatchet-mongod-6.0.11.log"

// TestWorkloadFromLog runs "poolsweep workload from-log" in-process on a
// real mongod log excerpt: the workload file on stdout, in a file with -o,
// and as JSON.
func TestWorkloadFromLog(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "workload", "from-log", realLog)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := shapes.Parse([]byte(out), "stdout")
	if err != nil {
		t.Fatalf("stdout is not a workload file: %v\n%s", err, out)
	}
	want := map[string]bool{"insert testdb.lookups": true,
		"update testdb.dealers {_id} $set{name}": true, "delete testdb.__examples {email}": true,
		"distinct testdb.vehicles color {}": true}
	for _, s := range f.Shapes {
		delete(want, s.Name)
	}
	if len(want) > 0 || !f.Source.Complete {
		t.Errorf("shapes not found: %v; source %+v\n%s", want, f.Source, out)
	}
	// Keyhole's $collStats is a tool's statistics, not a shape.
	for _, s := range f.Shapes {
		if strings.Contains(s.Name, "$collStats") {
			t.Errorf("a statistics aggregation became a shape: %s", s.Name)
		}
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "w.yaml")
	code, out, errOut = runCLI(t, "workload", "from-log", realLog, "-o", path)
	if code != 0 || !strings.Contains(out, "w.yaml: 5 shapes of 6 operations (mongod-log)") {
		t.Fatalf("-o: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := shapes.Read(path); err != nil {
		t.Errorf("-o wrote a file that does not read: %v", err)
	}

	code, out, _ = runCLI(t, "workload", "from-log", realLog, "--format", "json")
	var js struct {
		Source struct {
			LeftOut map[string]int64 `json:"left_out"`
		} `json:"source"`
		Shapes []struct {
			Name  string          `json:"name"`
			Share float64         `json:"share"`
			Sort  json.RawMessage `json:"sort"`
		} `json:"shapes"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &js) != nil || len(js.Shapes) != 5 || js.Source.LeftOut["statistics"] != 1 {
		t.Fatalf("--format json: exit %d\n%s", code, out)
	}
	sum := 0.0
	for _, s := range js.Shapes {
		sum += s.Share
		var sort bytes.Buffer
		if strings.HasPrefix(s.Name, "find testdb.vehicles {color} sort") && (json.Compact(&sort, s.Sort) != nil || sort.String() != `{"brand":-1}`) {
			t.Errorf("sort written as %s", s.Sort)
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("shares sum to %v", sum)
	}
}

// TestWorkloadFromLogBadInput: bad flags, paths and inputs exit 2 with one
// line naming what is wrong; lines that cannot be read are warnings with
// their line; no content of a file is quoted.
func TestWorkloadFromLogBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good, err := os.ReadFile(realLog)
	if err != nil {
		t.Fatal(err)
	}
	mixed := writeFile(t, dir, "mixed.log", string(good)+"SECRET not json\n"+`{"SECRET":1}`+"\n")
	nohup := writeFile(t, dir, "d4.log", "nohup: ignoring input\nSECRET\n"+string(good))
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(filepath.Join(dir, "target.yaml"), link); err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no files", []string{}, 2, "give one or more mongod logs"},
		{"bad flag", []string{realLog, "--nope"}, 2, "unknown flag --nope"},
		{"bad format", []string{realLog, "--format", "xml"}, 2, "--format"},
		{"empty app", []string{realLog, "--app", ""}, 2, "--app: an empty value"},
		{"missing file", []string{filepath.Join(dir, "absent.log")}, 2, "absent.log"},
		{"a directory", []string{dir}, 2, "reads only regular files"},
		{"unknown app", []string{realLog, "--app", "nobody"}, 2, `--app: no operations of appName "nobody" in the inputs (6 of other appNames)`},
		{"-o an input", []string{realLog, "-o", realLog}, 2, "-o: "},
		{"a file twice", []string{realLog, realLog}, 2, "is given twice"},
		{"-o a symlink", []string{realLog, "-o", link}, 2, "-o: "},
		{"not a log", []string{writeFile(t, dir, "x.txt", "SECRET\n")}, 2, "x.txt:1: not JSON"},
		{"warnings", []string{mixed, "-o", filepath.Join(dir, "m.yaml")}, 0, "mixed.log:15: not JSON"},
		{"a wrapper's lines first", []string{nohup, "-o", filepath.Join(dir, "d4.yaml")}, 0, "d4.log:1: 2 lines before the first JSON line are not JSON"},
	}
	for _, r := range rows {
		code, _, errOut := runCLI(t, append([]string{"workload", "from-log"}, r.args...)...)
		if code != r.code || !strings.Contains(errOut, r.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", r.name, code, errOut, r.code, r.want)
		}
		if strings.Contains(errOut, "SECRET") {
			t.Errorf("%s: stderr quotes the file: %q", r.name, errOut)
		}
		if r.code == 2 && strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%s: more than one line: %q", r.name, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "workload", "from-log", mixed); code != 0 || !strings.Contains(errOut, "mixed.log:16: JSON that is not a mongod log line") {
		t.Errorf("warnings: exit %d, stderr %q", code, errOut)
	}
}
