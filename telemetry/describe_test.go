package telemetry

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// TestDescribeGolden renders each fixture's window as text. Review the
// golden file when it changes: FerretDB's lines must say "not reported by
// ferretdb" and never show a zero.
func TestDescribeGolden(t *testing.T) {
	var b strings.Builder
	for _, tt := range []struct{ file, kind string }{
		{"mongod-7.0-replset.json", "mongodb"},
		{"mongod-8.0.json", "mongodb"},
		{"mongos-7.0.json", "mongodb"},
		{"ferretdb-1.24.json", "ferretdb"},
	} {
		s := summarizeHost(loadFixture(t, tt.file).snaps).sample
		b.WriteString("== " + tt.file + "\n")
		for _, l := range Describe(s, tt.kind) {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("== nil sample\n" + strings.Join(Describe(nil, ""), "\n") + "\n")

	golden := filepath.Join("testdata", "describe.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("Describe output changed (rerun with -update if intended):\n%s", b.String())
	}
	ferret := b.String()[strings.Index(b.String(), "== ferretdb"):]
	if strings.Contains(ferret, " 0") {
		t.Errorf("FerretDB lines show a zero:\n%s", ferret)
	}
}
