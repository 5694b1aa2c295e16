package fromftdc

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/ftdc"
	"github.com/poolsweep/poolsweep/internal/corpus"
	"github.com/poolsweep/poolsweep/internal/replydir"
	"github.com/poolsweep/poolsweep/internal/testkit/ftdctest"
	"github.com/poolsweep/poolsweep/telemetry"
)

// bothRoles reads dir as inspect --replies does (replydir, then
// telemetry.ViewHost) and as analyze --ftdc does (ReadFolder).
func bothRoles(t *testing.T, dir string) (inspect, analyze telemetry.HostView, c *Capture) {
	t.Helper()
	hosts, err := replydir.Load(dir)
	if err != nil {
		t.Fatalf("inspect --replies: %v", err)
	}
	if len(hosts) != 1 {
		t.Fatalf("inspect --replies: %d hosts", len(hosts))
	}
	c, err = ReadFolder(context.Background(), dir, nil)
	if err != nil {
		t.Fatalf("analyze --ftdc: %v", err)
	}
	return telemetry.ViewHost(hosts[0].Replies), telemetry.HostView{Role: c.Role, RoleEvidence: c.RoleEvidence}, c
}

// synthetic writes an FTDC archive of one chunk of one sample holding
// serverStatus and the given collectors' documents, after a metadata
// document holding getCmdLineOpts' parsed options when opts is not nil.
func synthetic(t *testing.T, collectors bson.D, opts bson.D) string {
	t.Helper()
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ref := bson.D{{Key: "start", Value: bson.NewDateTimeFromTime(at)},
		{Key: "serverStatus", Value: bson.D{{Key: "host", Value: "h1:27017"}, {Key: "version", Value: "7.0.14"}, {Key: "uptimeMillis", Value: int64(1000)}}}}
	ref = append(append(ref, collectors...), bson.E{Key: "end", Value: bson.NewDateTimeFromTime(at)})
	refRaw, err := bson.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	metrics := 0
	if err := countMetrics(refRaw, &metrics); err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if opts != nil {
		meta, err := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewDateTimeFromTime(at)}, {Key: "type", Value: int32(0)},
			{Key: "doc", Value: bson.D{{Key: "getCmdLineOpts", Value: bson.D{{Key: "argv", Value: bson.A{"mongod"}}, {Key: "parsed", Value: opts}}}}}})
		if err != nil {
			t.Fatal(err)
		}
		file.Write(meta)
	}
	file.Write(ftdctest.MetricDoc(at, ftdctest.Chunk(refRaw, uint32(metrics), 0, nil)))
	dir := filepath.Join(t.TempDir(), "diagnostic.data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics.2024-01-01T00-00-00Z-00000"), file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// countMetrics counts a reference document's metrics as FTDC does: every
// number, date, boolean and timestamp (two), depth first.
func countMetrics(doc bson.Raw, n *int) error {
	elems, err := doc.Elements()
	if err != nil {
		return err
	}
	for _, e := range elems {
		v := e.Value()
		switch v.Type {
		case bson.TypeEmbeddedDocument, bson.TypeArray:
			if err := countMetrics(v.Value, n); err != nil {
				return err
			}
		case bson.TypeDouble, bson.TypeInt32, bson.TypeInt64, bson.TypeDecimal128, bson.TypeBoolean, bson.TypeDateTime:
			*n++
		case bson.TypeTimestamp:
			*n += 2
		}
	}
	return nil
}

// TestRolesAgree: inspect --replies and analyze --ftdc say the same role,
// for the same reason, of every real capture (each in a folder under the
// names a server gives its files) and of each kind of evidence a folder
// can hold. A folder with neither replSetGetStatus nor connPoolStats and
// no getCmdLineOpts (an interim file alone) is "role unknown" in both.
func TestRolesAgree(t *testing.T) {
	secondary := bson.D{{Key: "replSetGetStatus", Value: bson.D{{Key: "set", Value: "rs0"}, {Key: "members", Value: bson.A{
		bson.D{{Key: "name", Value: "h1:27017"}, {Key: "stateStr", Value: "SECONDARY"}, {Key: "self", Value: true}}}}}}}
	pools := bson.D{{Key: "connPoolStats", Value: bson.D{{Key: "totalInUse", Value: int32(3)}, {Key: "totalAvailable", Value: int32(5)}}}}
	for _, tc := range []struct {
		name string
		dir  func(t *testing.T) string
		role string
	}{
		{"real 7.0.14", func(t *testing.T) string {
			return realFolder(t, "metrics.2024-09-05T16-39-03Z-00000", "metrics-7.0.14")
		}, telemetry.RoleStandalone},
		{"real 4.2.12", func(t *testing.T) string {
			return realFolder(t, "metrics.2021-03-15T02-21-47Z-00000", "metrics-4.2.12")
		}, telemetry.RoleStandalone},
		{"real 4.0.4 windows", func(t *testing.T) string {
			return realFolder(t, "metrics.2019-02-14T19-38-43Z-00000", "metrics-4.0.4-windows")
		}, telemetry.RoleStandalone},
		{"real 7.0.0-rc6 interim alone", func(t *testing.T) string { return realFolder(t, "metrics.interim", "metrics.interim-7.0.0-rc6") }, telemetry.RoleUnknown},
		{"a secondary's samples", func(t *testing.T) string { return synthetic(t, secondary, nil) }, telemetry.RoleSecondary},
		{"a mongos's samples", func(t *testing.T) string { return synthetic(t, pools, nil) }, telemetry.RoleMongos},
		{"a shard member's command line", func(t *testing.T) string {
			return synthetic(t, nil, bson.D{{Key: "replication", Value: bson.D{{Key: "replSetName", Value: "sh1"}}}, {Key: "sharding", Value: bson.D{{Key: "clusterRole", Value: "shardsvr"}}}})
		}, telemetry.RoleMember},
		{"a mongos's command line", func(t *testing.T) string {
			return synthetic(t, nil, bson.D{{Key: "sharding", Value: bson.D{{Key: "configDB", Value: "cfg/c1:27019"}}}})
		}, telemetry.RoleMongos},
		{"neither", func(t *testing.T) string { return synthetic(t, nil, nil) }, telemetry.RoleUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inspect, analyze, _ := bothRoles(t, tc.dir(t))
			if inspect.Role != tc.role || analyze.Role != tc.role || inspect.RoleEvidence != analyze.RoleEvidence {
				t.Errorf("inspect --replies: %s (%s); analyze --ftdc: %s (%s); want %s in both", inspect.Role, inspect.RoleEvidence, analyze.Role, analyze.RoleEvidence, tc.role)
			}
		})
	}
}

func realFolder(t *testing.T, as, from string) string {
	t.Helper()
	dir, err := corpus.FTDCFolder(t.TempDir(), map[string]string{as: from})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFolderSelection: both readers read the files a server writes and no
// other: the interim file's half-written copy (metrics.interim.temp) and
// a renamed or compressed copy of an archive are left out, so no sample
// is counted twice and no copy is taken for the server's own file; and
// both refuse a folder past ftdc's bounds with the same words.
func TestFolderSelection(t *testing.T) {
	alone, err := ReadFolder(context.Background(), realFolder(t, "metrics.interim", "metrics.interim-7.0.0-rc6"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Beside the interim file: its temporary copy, and a copy of a
	// capture of another host under names no server writes.
	dir, err := corpus.FTDCFolder(t.TempDir(), map[string]string{
		"metrics.interim":                        "metrics.interim-7.0.0-rc6",
		"metrics.interim.temp":                   "metrics.interim-7.0.0-rc6",
		"metrics.bson":                           "metrics-4.2.12",
		"metrics.2021-03-15T02-21-47Z-00000.bak": "metrics-4.2.12",
	})
	if err != nil {
		t.Fatal(err)
	}
	inspect, analyze, c := bothRoles(t, dir)
	if c.Files != 1 || c.Samples != alone.Samples || c.Host != alone.Host {
		t.Errorf("analyze --ftdc read %d files, %d samples of %s; want the interim file's alone: 1, %d of %s", c.Files, c.Samples, c.Host, alone.Samples, alone.Host)
	}
	if inspect.Role != analyze.Role || inspect.Version != "7.0.0-rc6" {
		t.Errorf("inspect --replies: %s %s; analyze --ftdc: %s", inspect.Version, inspect.Role, analyze.Role)
	}

	many := t.TempDir()
	for i := range ftdc.MaxFolderFiles + 1 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("metrics.2021-03-15T02-21-47Z-%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, errInspect := replydir.Load(many)
	_, errAnalyze := ReadFolder(context.Background(), many, nil)
	want := fmt.Sprintf("holds %d FTDC metric files, more than the %d read", ftdc.MaxFolderFiles+1, ftdc.MaxFolderFiles)
	for what, err := range map[string]error{"inspect --replies": errInspect, "analyze --ftdc": errAnalyze} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s on %d files: %v, want %q", what, ftdc.MaxFolderFiles+1, err, want)
		}
	}
}
