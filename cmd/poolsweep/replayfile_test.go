package main

import (
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/errext"
)

// TestReplayWorkloadFileBadInput: --workload-file given a poolsweep
// workload file that is wrong exits 2 with one line naming the file and
// the line, and quoting nothing of it (a shape on the server's own data,
// or writing through a pipeline at any depth, among them: refused by the
// checks of the flags, before anything connects); a good one is taken
// (the dry run validates), and --records beside it is refused.
func TestReplayWorkloadFileBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name, body string) string { return writeFile(t, dir, name, body) }
	head := "kind: poolsweep-workload\nversion: 1\nsource: {format: mongod-log, files: 1, lines: 1, operations: 1, complete: false}\nshapes:\n"
	shape := "  - id: s1\n    database: app\n    collection: users\n    command: find\n    count: 1\n"
	good := file("good.yaml", "# from a log\n"+head+shape+"    share: 1\n")
	badShare := file("badshare.yaml", head+shape+"    share: 7\n")
	secret := file("secret.yaml", head+shape+"    share: 1\n    sekrit-key-hunter2: 1\n")
	notYAML := file("notyaml.yaml", head+"  - {id: [\n")
	writes := file("writes.yaml", head+"  - id: s2\n    database: app\n    collection: users\n    command: aggregate\n    share: 1\n    pipeline: [{$out: other}]\n")
	// What a replay must never send: the server's own data, read or
	// copied, and a pipeline that writes at any depth.
	admin := file("admin.yaml", head+"  - id: s2\n    database: admin\n    collection: system.users\n    command: delete\n    share: 1\n    filter: {}\n")
	profile := file("profile.yaml", head+"  - id: s2\n    database: app\n    collection: system.profile\n    command: find\n    share: 1\n")
	lookup := file("lookup.yaml", head+shape+"    share: 0.5\n  - id: s2\n    database: app\n    collection: users\n    command: aggregate\n    share: 0.5\n    pipeline: [{$lookup: {from: system.users, pipeline: [], as: u}}]\n")
	facet := file("facet.yaml", head+"  - id: s2\n    database: app\n    collection: users\n    command: aggregate\n    share: 1\n    pipeline: [{$facet: {a: [{$out: other}]}}]\n")
	sim := []string{"sweep", "--target", "s=sim:slots=8"}
	for _, tt := range []struct {
		name, path, want string
	}{
		{"a share out of range", badShare, "badshare.yaml:5: shapes[0].share: must be between 0 and 1"},
		{"a key the format does not have", secret, "secret.yaml:11: a key the format does not have"},
		{"not YAML", notYAML, "notyaml.yaml:5: not valid YAML"},
		{"an aggregation that writes", writes, "writes.yaml:5: shapes[0].pipeline[0]: $out: an aggregation that writes"},
		{"a write shape on admin", admin, "admin.yaml:5: shapes[0].database: a system database"},
		{"a read of system.profile", profile, "profile.yaml:5: shapes[0].collection: a system collection"},
		{"a $lookup of system.users", lookup, "lookup.yaml:11: shapes[1].pipeline[0]: $lookup reads a system collection"},
		{"$out inside $facet", facet, "facet.yaml:5: shapes[0].pipeline[0]: $out inside $facet: an aggregation that writes"},
	} {
		code, stdout, stderr := runWithinUsing(t, 30*time.Second, dryRunners, append(append([]string{}, sim...), "--workload-file", tt.path)...)
		line := strings.TrimSpace(stderr)
		if code != errext.ExitUsage || strings.Contains(line, "\n") || !strings.Contains(line, tt.want) || stdout != "" || strings.Contains(line, "hunter2") {
			t.Errorf("%s: exit %d, %q; want 2 and one line with %q", tt.name, code, stderr, tt.want)
		}
	}
	if code, _, stderr := runWithinUsing(t, 30*time.Second, dryRunners, append(append([]string{}, sim...), "--workload-file", good)...); code != 0 {
		t.Errorf("a good workload file: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runWithinUsing(t, 30*time.Second, dryRunners, append(append([]string{}, sim...), "--workload-file", good, "--records", "10")...); code != errext.ExitUsage || !strings.Contains(stderr, "--records: a replayed workload file") {
		t.Errorf("--records beside a workload file: exit %d, %q", code, stderr)
	}
}
