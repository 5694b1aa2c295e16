package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// TestWorkloadFileRefusedBeforeConnecting: a workload file whose names
// MongoDB would refuse (the rules --database is held to) or whose sizes
// are unbounded exits 2 with one line naming the file, line and field,
// before anything connects: no --out folder, no results.jsonl.
func TestWorkloadFileRefusedBeforeConnecting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	head := "kind: poolsweep-workload\nversion: 1\nsource: {format: mongod-log, files: 1, lines: 1, operations: 1, complete: false}\nshapes:\n"
	shape := func(db, coll, extra string) string {
		return head + "  - id: s1\n    database: " + db + "\n    collection: " + coll + "\n    command: find\n    count: 1\n    share: 1\n" + extra
	}
	arr := "    filter: {a: {$in: '?array<?number>'}}\n    values:\n      filter.a.$in:\n        dist: uniform\n        type: number\n        min: 1\n        max: 2\n        length: {mean: 1, p50: %s, p99: 1}\n"
	rng := "    filter: {a: {$eq: '?number'}}\n    values:\n      filter.a.$eq:\n        dist: uniform\n        type: number\n        integer: true\n        min: -1e300\n        max: 1e300\n"
	for _, tt := range []struct {
		name, body, want string
	}{
		{"a database with a dot", shape("a.b", "c", ""), ":5: shapes[0].database: a name holding a space or one of"},
		{"a database with NUL", shape(`"a\0b"`, "c", ""), ":5: shapes[0].database: a name holding a character that is not printable"},
		{"a database of 64 bytes", shape(strings.Repeat("d", 64), "c", ""), ":5: shapes[0].database: a name of 64 bytes"},
		{"a collection starting with a dot", shape("app", ".x", ""), ":5: shapes[0].collection: a name beginning with a dot"},
		{"a collection with $", shape("app", "a$b", ""), ":5: shapes[0].collection: a name holding a $"},
		{"a 200-KB namespace", shape("app", strings.Repeat("c", 200_000), ""), ":5: shapes[0].collection: a namespace (database.collection) of 200004 bytes"},
		{"an array length of 1e15", shape("app", "c", fmt.Sprintf(arr, "1e15")), ":5: shapes[0].values: an entry whose length is not between 0 and 1048576"},
		{"an array length of 1e8", shape("app", "c", fmt.Sprintf(arr, "1e8")), ":5: shapes[0].values: an entry whose length"},
		{"an integer range beyond int64", shape("app", "c", rng), ":5: shapes[0].values: an integer entry whose min or max is beyond"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".yaml")
			if err := os.WriteFile(path, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out-"+filepath.Base(path))
			code, stdout, stderr := runWithin(t, 60*time.Second, "sweep", "--target", "s=sim:slots=4", "--concurrency", "1",
				"--duration", "1s", "--workload-file", path, "--out", out)
			line := strings.TrimSpace(stderr)
			if code != errext.ExitUsage || strings.Contains(line, "\n") || !strings.Contains(line, filepath.Base(path)+tt.want) || len(line) > textfmt.LineMax {
				t.Fatalf("exit %d, stdout %q, stderr %.300q; want 2 and one line with %q", code, stdout, stderr, tt.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("--out %s exists after a refusal: %v", out, err)
			}
		})
	}
}

// TestWorkloadFileByContent: --workload-file tells a workload file from a
// property file by what it holds: the JSON from-log writes and a YAML
// file behind a byte-order mark are replayed, a property file behind one
// is read as properties; either kind is read up to shapes.MaxFileBytes.
func TestWorkloadFileByContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	yamlFile := "kind: poolsweep-workload\nversion: 1\nsource: {format: mongod-log, files: 1, lines: 1, operations: 1, complete: false}\n" +
		"shapes:\n  - id: s1\n    database: app\n    collection: users\n    command: find\n    count: 1\n    share: 1\n"
	f, err := shapes.Parse([]byte(yamlFile), "w.yaml")
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	bigProps := strings.Repeat("# a comment of the kind a generated file holds\n", (2<<20)/48) + "recordcount=10\nreadproportion=1\n"
	for _, tt := range []struct {
		name, body string
		replay     bool
	}{
		{"from-log's JSON", string(js), true},
		{"YAML behind a BOM", "\ufeff" + yamlFile, true},
		{"YAML whose first key is not kind", strings.Replace(yamlFile, "kind: poolsweep-workload\nversion: 1\n", "version: 1\nkind: poolsweep-workload\n", 1), true},
		{"properties behind a BOM", "\ufeffrecordcount=10\nreadproportion=1\n", false},
		{"properties of 2 MiB", bigProps, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, dir, strings.ReplaceAll(tt.name, " ", "_"), tt.body)
			code, _, stderr := runWithinUsing(t, 30*time.Second, dryRunners, "sweep", "--target", "s=sim:slots=4", "--workload-file", path)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			// --records is refused beside a replayed file only: it says
			// which kind the file was read as.
			code, _, stderr = runWithinUsing(t, 30*time.Second, dryRunners, "sweep", "--target", "s=sim:slots=4", "--workload-file", path, "--records", "10")
			if replayed := code == errext.ExitUsage && strings.Contains(stderr, "--records: a replayed workload file"); replayed != tt.replay {
				t.Fatalf("read as a workload file: %v, want %v (exit %d, %q)", replayed, tt.replay, code, stderr)
			}
		})
	}
}

// TestFromLogSummaryLines: every line of from-log's summary fits the
// one-line rule (textfmt.LineMax), whatever the length of the -o path, a
// shape's name (a filter of 300 fields) or a caveat.
func TestFromLogSummaryLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fields := make([]string, 300)
	for i := range fields {
		fields[i] = fmt.Sprintf(`"field_number_%03d":%d`, i, i)
	}
	line := func(ns, coll string) string {
		return `{"t":{"$date":"2024-05-01T12:00:00.000+00:00"},"s":"I","c":"COMMAND","id":51803,"ctx":"conn1","msg":"Slow query",` +
			`"attr":{"type":"command","ns":"` + ns + `","command":{"find":"` + coll + `","filter":{` + strings.Join(fields, ",") + `}},"durationMillis":3}}`
	}
	log := writeFile(t, dir, "mongod.log", line("shop.users", "users")+"\n"+line(".x", "x")+"\n"+`{"t":{"$date":"2024-05-01T12:00:00.000+00:00"},"s":"I","c":"COMMAND","id":51803,"ctx":"conn1","msg":"Slow query","attr":{"type":"command","ns":"shop.$cmd","command":{"hello":1}}}`+"\n")
	out := dir
	for i := range 4 {
		out = filepath.Join(out, strings.Repeat(string(rune('a'+i)), 200))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(out, "w.yaml")
	code, stdout, stderr := runCLI(t, "workload", "from-log", log, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "1 shapes of 1 operations") || !strings.Contains(stderr, "mongod.log:2: an operation a workload file cannot hold") {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
	for _, l := range strings.Split(stdout+stderr, "\n") {
		if len(l) > textfmt.LineMax {
			t.Errorf("a line of %d bytes: %.120q…", len(l), l)
		}
	}
}

// TestReplayMemoryRefused: a replayed shape's command, at its declared
// length, counts in the sweep's memory estimate: 10,000 workers each
// holding a 12-MB $in list is refused before anything starts, naming
// the file; one worker is taken.
func TestReplayMemoryRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := "kind: poolsweep-workload\nversion: 1\nsource: {format: mongod-log, files: 1, lines: 1, operations: 1, complete: false}\nshapes:\n" +
		"  - id: s1\n    database: app\n    collection: users\n    command: find\n    count: 1\n    share: 1\n" +
		"    filter: {a: {$in: '?array<?string>'}}\n    values:\n      filter.a.$in:\n        dist: uniform\n        type: string\n" +
		"        values: [abcdefghij]\n        length: {mean: 500000, p50: 500000, p99: 500000}\n"
	path := writeFile(t, dir, "big-in.yaml", body)
	code, _, stderr := runWithinUsing(t, 30*time.Second, dryRunners, "sweep", "--target", "s=sim:slots=4", "--workload-file", path, "--concurrency", "10000")
	if code != errext.ExitUsage || !strings.Contains(stderr, "the commands the shapes of "+path+" build") || !strings.Contains(stderr, "of memory") {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	if code, _, stderr := runWithinUsing(t, 30*time.Second, dryRunners, "sweep", "--target", "s=sim:slots=4", "--workload-file", path, "--concurrency", "1"); code != 0 {
		t.Fatalf("one worker: exit %d, %q", code, stderr)
	}
}
