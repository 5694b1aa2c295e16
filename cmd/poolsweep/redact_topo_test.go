package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/poolsweep/poolsweep/topology/credtest"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// TestTopoInspectHostileCredentials runs inspect (text and JSON) on every
// form of issue 11's generated credential table against a simulator
// (which accepts any PLAIN credentials, as FerretDB does). Nothing inspect
// prints, on success or failure, may hold any part of a secret; where the
// driver accepts the URI the user name stays readable.
func TestTopoInspectHostileCredentials(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	d, err := sim.Start(ctx, sim.DefaultSpec())
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	host := d.Hosts()[0]
	forms := credtest.Forms(host, "serverSelectionTimeoutMS=2000")

	// inspect runs in-process, eight forms at a time: a refused AWS
	// handshake takes about half a second, and there are a thousand forms.
	results := make([]inspectResult, len(forms))
	work := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
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
			if code != 0 || !strings.Contains(stdout, credtest.UserA) || !strings.Contains(stdout, credtest.UserB) {
				r.unreadable = true
				t.Errorf("%s: inspect --format %s: exit %d, the user should be readable:\n%s%s", f.Name, format, code, stdout, stderr)
			}
		}
	}
	return r
}
