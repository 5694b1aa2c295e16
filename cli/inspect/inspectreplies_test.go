package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/ftdc"
	"github.com/poolsweep/poolsweep/internal/corpus"
	"github.com/poolsweep/poolsweep/internal/replydir"
	"github.com/poolsweep/poolsweep/internal/testkit/golden"
	"github.com/poolsweep/poolsweep/telemetry"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// ftdcFolder makes a diagnostic.data folder holding real FTDC files of
// testdata/ftdc under the names a server gives them.
func ftdcFolder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := corpus.FTDCFolder(t.TempDir(), files)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestInspectRepliesFTDCGolden: a real server's FTDC folder, offline, in
// text and JSON: a 7.0.14 Linux standalone (its newest sample is the one
// taken as it shut down, without wiredTiger) and a 4.0.4 Windows one (the
// process is the executable's path; no CPU times, so the CPU rule cannot
// fire); the 7.0.0-rc6 interim file with no archive beside it (no
// metadata: no buildInfo, no hostInfo).
func TestInspectRepliesFTDCGolden(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		files map[string]string
	}{
		{"ftdc-7.0.14", map[string]string{"metrics.2024-09-05T16-39-03Z-00000": "metrics-7.0.14"}},
		{"ftdc-4.0.4-windows", map[string]string{"metrics.2019-02-14T19-38-43Z-00000": "metrics-4.0.4-windows"}},
		{"ftdc-7.0.0-rc6-interim", map[string]string{"metrics.interim": "metrics.interim-7.0.0-rc6"}},
	} {
		dir := ftdcFolder(t, tt.files)
		for _, format := range []string{"text", "json"} {
			code, stdout, stderr := runCLI(t, "inspect", "--replies", dir, "--format", format)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", tt.name, code, stderr)
			}
			stdout = strings.ReplaceAll(stdout, dir, "DIR")
			golden.Check(t, filepath.Join("testdata", "golden", "inspect-replies-"+tt.name+"."+format), []byte(stdout))
		}
	}
}

// TestInspectRepliesCorpus replays the corpus of real replies
// (testdata/servers) through inspect --replies: each host's process,
// version and role come out as the files say, and every read path of a
// reply is reported exactly when the file has it, with the file's BSON
// type (looked up here independently of the command's own lookup).
func TestInspectRepliesCorpus(t *testing.T) {
	t.Parallel()
	files, err := corpus.Files()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(corpus.Dir(), f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI(t, "inspect", "--replies", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep repliesReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	byName := map[string]repliesHostOut{}
	for _, h := range rep.Hosts {
		byName[h.Name] = h
	}
	checked := 0
	for _, f := range files {
		h, ok := byName[f.Process+"-"+f.Version+f.Variant]
		if !ok {
			t.Errorf("%s: no host in the report", f.Name)
			continue
		}
		raw, err := corpus.Load(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if f.Command == "serverStatus" {
			if h.Process != f.Process || !strings.HasPrefix(h.Version, strings.TrimPrefix(f.Version, "unknown-")) && !strings.HasPrefix(f.Version, "unknown") {
				t.Errorf("%s: process %q version %q", f.Name, h.Process, h.Version)
			}
			if want := f.Process == "mongos"; h.Router != want {
				t.Errorf("%s: router %v", f.Name, h.Router)
			}
		}
		for _, p := range h.Paths {
			if p.Command != f.Command || strings.Contains(p.Listed, "*") {
				continue
			}
			v, err := raw.LookupErr(strings.Split(p.Path, ".")...)
			switch {
			case (err == nil) != p.Reported:
				t.Errorf("%s %s: reported %v, the file has it: %v", f.Name, p.Path, p.Reported, err == nil)
			case err == nil && v.Type.String() != p.Type:
				t.Errorf("%s %s: type %s, the file's %s", f.Name, p.Path, p.Type, v.Type)
			case !p.Reported && p.Value != nil:
				t.Errorf("%s %s: not reported but has a value", f.Name, p.Path)
			}
			checked++
		}
	}
	if checked < 500 {
		t.Errorf("only %d read paths checked", checked)
	}
	// Roles as the captures say: a replica set's primary from its isMaster.
	if h := byName["mongod-4.2"]; h.Role != "replica-set primary" && h.Role != "replica-set member" {
		t.Errorf("mongod-4.2 (isMaster captures of a set): role %q", h.Role)
	}
	// The edited 7.0 isMaster of a router comes without a serverStatus:
	// its msg isdbgrid decides a router, as the sampler's hello does.
	if h := byName["mongos-7.0.edited"]; h.Role != telemetry.RoleMongos || !h.Router {
		t.Errorf("mongos-7.0.edited: role %q", h.Role)
	}
	if h := byName["mongos-8.0.manual"]; h.Role != telemetry.RoleMongos || !h.Router {
		t.Errorf("mongos-8.0.manual: role %q", h.Role)
	}
}

// TestSaveRepliesRoundTrip: a real serverStatus, untrimmed (its
// metrics.operatorCounters hold keys such as $regex), saved as
// --save-replies saves it and read back as --replies reads it, is the same
// document byte for byte.
func TestSaveRepliesRoundTrip(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "ftdc", "metrics-7.0.14"))
	if err != nil {
		t.Fatal(err)
	}
	r := ftdc.NewReader(bytes.NewReader(data))
	var ss bson.Raw
	for ss == nil {
		d, err := r.Next()
		if err == io.EOF {
			t.Fatal("no metric chunk")
		}
		if err != nil {
			t.Fatal(err)
		}
		if d.Kind == ftdc.MetricChunk {
			c, err := ftdc.DecodeChunk(d.Data)
			if err != nil {
				t.Fatal(err)
			}
			ss = c.Reference.Lookup("serverStatus").Document()
		}
	}
	if _, err := ss.LookupErr("metrics", "operatorCounters", "match", "$regex"); err != nil {
		t.Fatalf("the capture has no metrics.operatorCounters.match.$regex: the test would prove nothing (%v)", err)
	}
	dir := filepath.Join(t.TempDir(), "replies")
	if _, err := saveReplies(dir, topology.Replies{Process: "mongod", Version: "7.0.14", Replies: []topology.Reply{{Command: "serverStatus", Doc: ss}}}); err != nil {
		t.Fatal(err)
	}
	hosts, err := replydir.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(hosts) != 1 || !bytes.Equal(hosts[0].Replies["serverStatus"], ss) {
		t.Fatalf("read back %d hosts; serverStatus the same: %v", len(hosts), len(hosts) == 1 && bytes.Equal(hosts[0].Replies["serverStatus"], ss))
	}
}

// TestInspectRepliesRefuses: bad input is exit 2 and one line naming
// --replies, never quoting a file's contents.
func TestInspectRepliesRefuses(t *testing.T) {
	t.Parallel()
	const secret = "S3CRET-CONTENT-in-the-file"
	mk := func(name, content string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	file := filepath.Join(mk("x", "y"), "x")
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"missing folder", []string{"--replies", filepath.Join(t.TempDir(), "nope")}},
		{"a file", []string{"--replies", file}},
		{"empty folder", []string{"--replies", t.TempDir()}},
		{"reply not JSON", []string{"--replies", mk("serverStatus.mongod-7.0.14.json", `{"`+secret+`": `)}},
		{"FTDC garbage", []string{"--replies", mk("metrics.interim", "\x20\x00\x00\x00"+secret+strings.Repeat("x", 40))}},
		{"with --uri", []string{"--replies", t.TempDir(), "--uri", "mongodb://127.0.0.1:1"}},
		{"with --save-replies", []string{"--replies", t.TempDir(), "--save-replies", t.TempDir()}},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"inspect"}, tt.args...)...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(stderr, "--replies") || strings.Contains(stdout+stderr, secret) {
			t.Errorf("%s: exit %d, stderr %q, stdout %q", tt.name, code, stderr, stdout)
		}
	}
}

// TestSaveRepliesReadBack: what inspect --save-replies writes against a
// server, inspect --replies reads back, whatever version string the
// server reports: the simulator's own suffixed releases, and the release
// candidates, vendor and development builds real servers report. Every
// file saved is read, as one host of the version the server gave.
func TestSaveRepliesReadBack(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ spec, version, process string }{
		{"version=8.0", "8.0.0-poolsweep-sim", "mongod"},
		{"version=4.4", "4.4.0-poolsweep-sim", "mongod"},
		{"version=7.0.0-rc6", "7.0.0-rc6", "mongod"},
		{"version=4.4.29-rc0", "4.4.29-rc0", "mongod"},
		{"version=8.0.4-ent", "8.0.4-ent", "mongod"},
		{"version=6.0.15-12,rs=3", "6.0.15-12", "mongod"},
		{"version=8.2.0-alpha-1234-gabcdef0,shards=1", "8.2.0-alpha-1234-gabcdef0", "mongos"},
		{"version=7.0.14", "7.0.14", "mongod"},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			s, err := sim.ParseSpec(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			d, err := sim.Start(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			dir := filepath.Join(t.TempDir(), "replies")
			uri := "mongodb://" + strings.Join(d.Hosts(), ",") + "/?serverSelectionTimeoutMS=5000"
			if code, stdout, stderr := runCLI(t, "inspect", "--uri", uri, "--save-replies", dir); code != 0 {
				t.Fatalf("save: exit %d\n%s%s", code, stdout, stderr)
			}
			saved, err := os.ReadDir(dir)
			if err != nil || len(saved) < 4 {
				t.Fatalf("saved %d files (%v)", len(saved), err)
			}
			code, stdout, stderr := runCLI(t, "inspect", "--replies", dir, "--format", "json")
			if code != 0 {
				t.Fatalf("read back: exit %d\n%s", code, stderr)
			}
			var rep repliesReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatal(err)
			}
			read := 0
			for _, h := range rep.Hosts {
				read += len(h.Files)
				if h.Name != tt.process+"-"+tt.version || h.Version != tt.version || h.Process != tt.process {
					t.Errorf("host %q: process %q version %q", h.Name, h.Process, h.Version)
				}
			}
			if len(rep.Hosts) != 1 || read != len(saved) {
				t.Errorf("%d hosts, %d of the %d files saved read back", len(rep.Hosts), read, len(saved))
			}
		})
	}
}
