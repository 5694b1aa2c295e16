package main

import (
	"github.com/poolsweep/poolsweep/internal/errext"
	"strings"
	"testing"
	"time"
)

// TestBadValueNamesItsSource: a value out of range is
// named by where it came from: the workload file, its line and key when
// the file set it; its flag only when the flag was given.
func TestBadValueNamesItsSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name, body string) string { return writeFile(t, dir, name, body) }
	badCount := file("badcount", "readproportion=1\n# a comment\nrecordcount=-1\n")
	zeroCount := file("zerocount", "recordcount=0\nreadproportion=1\n")
	goodCount := file("goodcount", "recordcount=500\nreadproportion=1\n")
	bigDocs := file("bigdocs", "readproportion=1\nfieldcount=100\nfieldlength=1048576\n")
	badLength := file("badlength", "readproportion=1\nfieldlength=0\n")
	badScan := file("badscan", "scanproportion=1\nmaxscanlength=100001\n")
	badShare := file("badshare", "readproportion=1.5\n")
	badDist := file("baddist", "readproportion=1\nrequestdistribution=hotspot\n")
	hugeInserts := file("hugeinserts", "recordcount=10\nfieldcount=10\nfieldlength=1048576\ninsertproportion=1\n")
	sim := []string{"sweep", "--target", "s=sim:slots=8"}
	for _, tt := range []struct {
		name    string
		args    []string
		want    string   // in the one line
		mustNot []string // names that were not given
	}{
		{"recordcount from the file", []string{"--workload-file", badCount}, "badcount:3: recordcount: not between 1 and 100000000", []string{"--records"}},
		{"recordcount=0 from the file", []string{"--workload-file", zeroCount}, "zerocount:1: recordcount", []string{"--records"}},
		{"the file's bad value, --records given too", []string{"--workload-file", badCount, "--records", "100"}, "badcount:3: recordcount", []string{"--records"}},
		{"fieldlength from the file", []string{"--workload-file", badLength}, "badlength:2: fieldlength: not between 1 and 1048576", nil},
		{"maxscanlength from the file", []string{"--workload-file", badScan}, "badscan:2: maxscanlength: not between 1 and 100000", nil},
		{"documents too big, both keys from the file", []string{"--workload-file", bigDocs}, "bigdocs:2: fieldcount and " + dir + "/bigdocs:3: fieldlength", []string{"--"}},
		{"a proportion from the file", []string{"--workload-file", badShare}, "badshare:1: readproportion: not a proportion between 0 and 1", nil},
		{"a distribution from the file", []string{"--workload-file", badDist}, "baddist:2: requestdistribution: not one poolsweep supports", []string{"--distribution"}},
		{"memory: the file's document size", []string{"--workload-file", hugeInserts, "--concurrency", "1000", "--clients", "1"}, "fieldcount × fieldlength of " + dir + "/hugeinserts", nil},
		{"--records given", []string{"--records", "0"}, "--records: 0 is not between 1 and 100000000", nil},
	} {
		code, stdout, stderr := runWithinUsing(t, 30*time.Second, dryRunners, append(append([]string{}, sim...), tt.args...)...)
		line := strings.TrimSpace(stderr)
		if code != errext.ExitUsage || strings.Contains(line, "\n") || !strings.Contains(line, tt.want) || stdout != "" {
			t.Errorf("%s: exit %d, %q; want 2 and one line with %q", tt.name, code, stderr, tt.want)
			continue
		}
		// Past the flag that named the file, no other flag is named.
		rest := strings.TrimPrefix(line, "poolsweep: --workload-file: ")
		for _, s := range tt.mustNot {
			if strings.Contains(rest, s) {
				t.Errorf("%s: %q names %s, which was not the source", tt.name, line, s)
			}
		}
	}
	// The flag wins over a good file's key, as YCSB's -p does.
	if code, _, stderr := runWithinUsing(t, 30*time.Second, dryRunners, append(append([]string{}, sim...), "--workload-file", goodCount, "--records", "0")...); code != errext.ExitUsage || !strings.Contains(stderr, "--records: 0 is not between") {
		t.Errorf("--records 0 over a good file: exit %d, %q", code, stderr)
	}
}
