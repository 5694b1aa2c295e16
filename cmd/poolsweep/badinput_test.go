package main

import (
	"github.com/poolsweep/poolsweep/internal/errext"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBadInputNothingWritten runs the binary on bad inputs of every class
// the bad-input review names — empty values, durations and sizes that cannot work,
// output paths that are not directories, control characters — and checks
// each is refused with exit 2 and one printable line naming the flag or
// field, before anything starts: no server, no output directory.
func TestBadInputNothingWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bigDocs := writeFile(t, dir, "bigdocs", "recordcount=10\nfieldcount=100\nfieldlength=1048576\nreadproportion=1\n")
	hugeInserts := writeFile(t, dir, "hugeinserts", "recordcount=10\nfieldcount=10\nfieldlength=1048576\ninsertproportion=1\nreadproportion=0\nupdateproportion=0\n")
	aFile := writeFile(t, dir, "a-file", "x")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "--uri", ""}, "--uri: an empty value"},
		{[]string{"sweep", "--target", ""}, "--target: an empty value"},
		{[]string{"sweep", "--out", ""}, "--out: an empty value"},
		{[]string{"sweep", "--database", " "}, "--database: an empty value"},
		{[]string{"sweep", "--workload", "mixed"}, "needs --mix"},
		{[]string{"sweep", "--duration", "1ns"}, "--duration"},
		{[]string{"sweep", "--duration", "999999h"}, "--duration"},
		{[]string{"sweep", "--warmup", "48h"}, "--warmup"},
		{[]string{"sweep", "--op-timeout", "1ns"}, "--op-timeout"},
		{[]string{"sweep", "--op-timeout", "2h"}, "--op-timeout"},
		{[]string{"sweep", "--prewarm-timeout", "0s"}, "--prewarm-timeout"},
		{[]string{"sweep", "--server-cores", "-1"}, "--server-cores"},
		{[]string{"sweep", "--workload-file", bigDocs}, "16 MiB"},
		{[]string{"sweep", "--workload-file", hugeInserts, "--concurrency", "1000"}, "memory"},
		{[]string{"sweep", "--out", aFile}, "--out"},
		{[]string{"sweep", "--out", filepath.Join(aFile, "sub")}, "--out"},
		{[]string{"sweep", "--out", "/proc/poolsweep-run"}, "--out"},
		{[]string{"sweep", "--resume", dir}, "--resume"},
		{[]string{"sweep", "--resume", "/dev"}, "--resume"},
		{[]string{"sweep", "--workload", "\x1b[31mred\x1b[0m"}, `\x1b[31mred`},
		{[]string{"sweep", "--rate", "1000", "--concurrency", "8"}, "--rate and --concurrency"},
		{[]string{"sweep", "--rate", "1000", "--arrivals", "bursty"}, "--arrivals"},
		{[]string{"sweep", "--rate", "1000", "--max-in-flight", "-1"}, "--max-in-flight"},
		{[]string{"sweep", "--search", "fast"}, "--search"},
		{[]string{"sweep", "--search", "knee", "--resolution", "9"}, "--resolution"},
		{[]string{"sweep", "--search", "pool", "--pool", "8,16"}, "--pool"},
		{[]string{"sweep", "--budget", "20m"}, "--budget"},
	}
	for _, tt := range tests {
		work := t.TempDir()
		code, stdout, stderr := runBinary(t, work, 30*time.Second, tt.args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != errext.ExitUsage || len(lines) != 1 || !strings.Contains(stderr, tt.want) || strings.Contains(stderr, "goroutine") {
			t.Errorf("%q: exit %d, stderr %q (want exit 2 and one line naming %q)", tt.args, code, stderr, tt.want)
		}
		if strings.ContainsAny(stderr, "\x1b\r") {
			t.Errorf("%q: raw control characters reached the terminal: %q", tt.args, stderr)
		}
		if stdout != "" {
			t.Errorf("%q: bad input printed to stdout: %q", tt.args, stdout)
		}
		if entries, _ := os.ReadDir(work); len(entries) != 0 {
			t.Errorf("%q: bad input wrote %s", tt.args, entries[0].Name())
		}
	}

	// A URI the driver takes but no server answers, with control
	// characters in its database name: the run fails (exit 1) and the line
	// that says so shows them escaped, never raw.
	code, _, stderr := runBinary(t, t.TempDir(), time.Minute, "inspect", "--uri", "mongodb://127.0.0.1:1/\r\x1b[2J?serverSelectionTimeoutMS=200")
	if code == 0 || strings.ContainsAny(stderr, "\x1b\r") {
		t.Errorf("control characters in a URI: exit %d, stderr %q", code, stderr)
	}
}
