package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/topology/sim"
)

// startSimInProcess starts a simulator for a test that runs the CLI in
// process.
func startSimInProcess(t *testing.T, spec string) *sim.Deployment {
	t.Helper()
	s, err := sim.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := sim.Start(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// TestInspectSaveReplies: inspect --save-replies writes the replies a
// sweep reads, named like the corpus, as canonical Extended JSON that
// loads back with its types, without the URI's password anywhere.
func TestInspectSaveReplies(t *testing.T) {
	t.Parallel()
	const password = "Sup3r-S3cret-Pa55"
	for _, tt := range []struct {
		spec  string
		files []string
	}{
		// A 7.0 cluster's router: hello, connPoolStats and listShards,
		// and getParameter for its pools' settings, which the router
		// answers.
		{"version=7.0,shards=2,routers=2", []string{
			"hello.mongos-7.0.0-poolsweep-sim.json", "buildInfo.mongos-7.0.0-poolsweep-sim.json",
			"serverStatus.mongos-7.0.0-poolsweep-sim.json", "hostInfo.mongos-7.0.0-poolsweep-sim.json",
			"connPoolStats.mongos-7.0.0-poolsweep-sim.json", "listShards.mongos-7.0.0-poolsweep-sim.json",
			"getParameter.mongos-7.0.0-poolsweep-sim.json"}},
		// A 4.4 standalone (the oldest server driver v2 talks to), with
		// its role in hello's name.
		{"version=4.4", []string{
			"hello.mongod-standalone-4.4.0-poolsweep-sim.json", "buildInfo.mongod-4.4.0-poolsweep-sim.json",
			"serverStatus.mongod-4.4.0-poolsweep-sim.json", "hostInfo.mongod-4.4.0-poolsweep-sim.json"}},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			d := startSimInProcess(t, tt.spec)
			uri := "mongodb://alice:" + password + "@" + strings.Join(d.Hosts(), ",") + "/?authMechanism=PLAIN&serverSelectionTimeoutMS=5000"
			dir := filepath.Join(t.TempDir(), "replies")
			code, stdout, stderr := runCLI(t, "inspect", "--uri", uri, "--save-replies", dir)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			names, err := dirNames(dir)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Sorted(slices.Values(tt.files))
			if !slices.Equal(names, want) {
				t.Fatalf("files %v, want %v", names, want)
			}
			for _, name := range names {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(data), password) || strings.Contains(string(data), "mongodb://") {
					t.Errorf("%s holds the password or a connection string", name)
				}
				var raw bson.Raw
				if err := bson.UnmarshalExtJSON(data, true, &raw); err != nil {
					t.Fatalf("%s does not load back: %v", name, err)
				}
				if ok, _ := raw.Lookup("ok").AsFloat64OK(); ok != 1 {
					t.Errorf("%s: not a successful reply", name)
				}
				if strings.HasPrefix(name, "serverStatus.") {
					// Types kept: a 4.2+ counter is int64 (the real 4.2.1
					// and 4.4.18 captures), a 4.0 one int32.
					if typ := raw.Lookup("opcounters", "query").Type; (typ == bson.TypeInt64) == strings.Contains(tt.spec, "4.0") {
						t.Errorf("%s: opcounters.query is %s", name, typ)
					}
				}
				if !strings.Contains(stdout, filepath.Join(dir, name)) {
					t.Errorf("stdout does not name %s:\n%s", name, stdout)
				}
			}
			if strings.Contains(stdout+stderr, password) {
				t.Errorf("output shows the password:\n%s%s", stdout, stderr)
			}
		})
	}
}

// TestInspectSaveRepliesRefuses: a --save-replies that is a file is bad
// input (exit 2, one line, nothing connected to or written), and so is a
// symlink to a directory; a symlink where a reply would go is not written
// through.
func TestInspectSaveRepliesRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "inspect", "--uri", "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=100", "--save-replies", file)
	if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "--save-replies") || stdout != "" {
		t.Errorf("a file as --save-replies: exit %d, stdout %q, stderr %q; want 2 and one line naming the flag", code, stdout, stderr)
	}

	// The directory itself a symlink (to a real directory elsewhere):
	// refused before connecting, as every output directory is.
	elsewhere := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, "inspect", "--uri", "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=100", "--save-replies", link)
	if entries, _ := os.ReadDir(elsewhere); code != 2 || len(entries) != 0 || !strings.Contains(stderr, "--save-replies") || stdout != "" {
		t.Errorf("a symlinked --save-replies: exit %d, %d file(s) written through, stderr %q; want 2 and nothing written", code, len(entries), stderr)
	}

	d := startSimInProcess(t, "version=8.0")
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "elsewhere.json")
	if err := os.WriteFile(target, []byte("untouched"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(out, "hello.mongod-standalone-8.0.0-poolsweep-sim.json")); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "inspect", "--uri", d.URI(), "--save-replies", out)
	if b, _ := os.ReadFile(target); code == 0 || string(b) != "untouched" || !strings.Contains(stderr, "symlink") {
		t.Errorf("symlink in the way: exit %d, target %q, stderr %q; want a failure naming the symlink and the target untouched", code, b, stderr)
	}
}
