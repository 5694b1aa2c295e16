package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/poolsweep/poolsweep/internal/testkit/credtest"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// TestTopoInspectHostileCredentials runs inspect (text and JSON) on every
// form of the generated credential table against a simulator
// (which accepts any PLAIN credentials, as FerretDB does). Nothing inspect
// prints, on success or failure, may hold any part of a secret; where the
// driver accepts the URI the user name stays readable.
func TestTopoInspectHostileCredentials(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	d, err := sim.Start(ctx, sim.DefaultSpec())
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	host := d.Hosts()[0]
	forms := credtest.Forms(host, "serverSelectionTimeoutMS=2000")

	// inspect runs in-process, 32 forms at a time: a refused AWS
	// handshake takes about half a second, and there are a thousand forms.
	results := make([]inspectResult, len(forms))
	work := make(chan int)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := range work {
				results[i] = inspectForm(t, forms[i])
			}
		})
	}
	for i := range forms {
		work <- i
	}
	close(work)
	wg.Wait()
	leaked, unreadable, succeeded := 0, 0, 0
	for _, r := range results {
		if r.leaked {
			leaked++
		}
		if r.unreadable {
			unreadable++
		}
		succeeded += r.succeeded
	}
	t.Logf("%d credential forms tried with inspect (text and JSON), %d leaked; %d inspect runs succeeded, %d forms should have succeeded with a readable user and did not",
		len(forms), leaked, succeeded, unreadable)
}

// inspectResult is what inspect showed for one form.
type inspectResult struct {
	leaked, unreadable bool
	succeeded          int // runs that exited 0, of two
}

// inspectForm runs inspect on one form in both formats and reports what
// it showed.
func inspectForm(t *testing.T, f credtest.Form) (r inspectResult) {
	_, perr := connstring.ParseAndValidate(f.URI)
	for _, format := range []string{"text", "json"} {
		code, stdout, stderr := runCLI(t, "inspect", "--uri", f.URI, "--format", format)
		if m := f.Leaks(stdout + stderr); len(m) > 0 {
			r.leaked = true
			t.Errorf("%s: inspect --format %s (exit %d) shows %v:\n%s%s", f.Name, format, code, m, stdout, stderr)
		}
		if code == 0 {
			r.succeeded++
		}
		if perr == nil && f.Where != credtest.InAWSToken {
			// The simulator accepts PLAIN: inspect must succeed and name the user.
			// The text's uri line is one line of at most textfmt.LineMax:
			// a URI longer than that is cut, saying its length, and the
			// JSON holds it whole.
			cut := format == "text" && strings.Contains(stdout, "… (") && len(f.URI) > textfmt.LineMax-40
			if code != 0 || !strings.Contains(stdout, credtest.UserA) || !cut && !strings.Contains(stdout, credtest.UserB) {
				r.unreadable = true
				t.Errorf("%s: inspect --format %s: exit %d, the user should be readable:\n%s%s", f.Name, format, code, stdout, stderr)
			}
		}
	}
	return r
}

// TestTopoSweepHostileCredentials sweeps a simulator through the five URI
// forms seen to leak (a space, tab or CR in the password; a raw " or '
// in the user name) and checks everything the sweep and report write and
// print: results.jsonl, report.html, the markdown report, stdout and stderr.
func TestTopoSweepHostileCredentials(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps a simulator five times")
	}
	// 2-ms calls: a zero service time would run the five sweeps as fast as
	// this machine goes, for nothing this test checks.
	host, _ := startServe(t, "--sim", "slots=4,service=2ms")
	host = strings.TrimSuffix(strings.TrimPrefix(host, "mongodb://"), "/")
	const a, b = credtest.SecretA, credtest.SecretB
	for i, userPass := range []string{
		"alice:" + a + " " + b, "alice:" + a + "\t" + b, "alice:" + a + "\r" + b,
		`al"ice:` + a + "x" + b, "al'ice:" + a + "x" + b,
	} {
		// Named by position: a name holding the secret would be in the
		// test's own temporary paths, which the reports print.
		// One after the other in this test's slot: parallel subtests
		// would wait for a slot behind every other parallel test.
		t.Run(fmt.Sprint("form", i), func(t *testing.T) {
			uri := "mongodb://" + userPass + "@" + host + "/?authMechanism=PLAIN"
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			code, stdout, stderr := runBinary(t, dir, 2*time.Minute, "sweep", "--uri", uri, "--concurrency", "1,2",
				"--warmup", "100ms", "--duration", "300ms", "--records", "50", "--no-plot", "--out", out)
			if code != 0 {
				t.Fatalf("%q: sweep exit %d: %s", userPass, code, stderr)
			}
			printed := stdout + stderr
			results := filepath.Join(out, "results.jsonl")
			for _, format := range []string{"html", "markdown"} {
				code, stdout, stderr := runBinary(t, dir, time.Minute, "report", results, "--format", format, "-o", filepath.Join(dir, "report."+format))
				if code != 0 {
					t.Fatalf("%q: report --format %s: exit %d: %s", userPass, format, code, stderr)
				}
				printed += stdout + stderr
			}
			var files []string
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".png") {
					files = append(files, p)
				}
				return nil
			})
			if len(files) < 3 {
				t.Fatalf("%q: expected results and two reports, found %v", userPass, files)
			}
			for _, f := range files {
				body, _ := os.ReadFile(f)
				for _, m := range []string{a, b} {
					if strings.Contains(string(body), m) {
						t.Errorf("%q: %s shows part of the password (%s)", userPass, f, m)
					}
				}
			}
			for _, m := range []string{a, b} {
				if strings.Contains(printed, m) {
					t.Errorf("%q: output shows part of the password (%s):\n%s", userPass, m, printed)
				}
			}
			if body, _ := os.ReadFile(results); !strings.Contains(string(body), "al") || !strings.Contains(string(body), ":***@") {
				t.Errorf("%q: results should name the user and hide the password", userPass)
			}
		})
	}
}
