package ftdc

import (
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Real servers' FTDC (testdata/ftdc; its README says where each file comes
// from). Decoding is checked against the files' own ground truth: within a
// chunk, the server's uptime counter must advance as the samples' start
// times do (two independent metrics: a delta or zero run read one position
// off breaks it), and across chunks the next chunk's reference document —
// plain BSON, no decoding — must follow the last decoded sample.

// metric finds a chunk's metric by dotted path.
func metric(c *Chunk, path string) *Metric {
	for i := range c.Metrics {
		if strings.Join(c.Metrics[i].Path, ".") == path {
			return &c.Metrics[i]
		}
	}
	return nil
}

// checkUptimeFollowsClock: each sample's uptimeMillis advances by the same
// as its start time, within slack.
func checkUptimeFollowsClock(t *testing.T, c *Chunk, slack time.Duration) {
	t.Helper()
	up := metric(c, "serverStatus.uptimeMillis")
	times := c.Times()
	if up == nil || len(times) != c.Samples {
		t.Fatalf("no uptimeMillis or start (%d times for %d samples)", len(times), c.Samples)
	}
	for s := 1; s < c.Samples; s++ {
		clock := times[s].Sub(times[s-1])
		uptime := time.Duration(up.Values[s]-up.Values[s-1]) * time.Millisecond
		if clock <= 0 || clock > time.Minute || (uptime-clock).Abs() > slack {
			t.Fatalf("sample %d: start advanced %v, uptime %v", s, clock, uptime)
		}
	}
}

func TestRealInterim70(t *testing.T) {
	_, chunks := readAll(t, realFile(t, "metrics.interim-7.0.0-rc6"))
	if len(chunks) != 1 {
		t.Fatalf("%d chunks, want the interim file's one", len(chunks))
	}
	c := chunks[0]
	ss := c.Reference.Lookup("serverStatus")
	if ss.Document().Lookup("process").StringValue() != "mongod" || ss.Document().Lookup("version").StringValue() != "7.0.0-rc6" {
		t.Fatalf("serverStatus %s %s", ss.Document().Lookup("process"), ss.Document().Lookup("version"))
	}
	if c.Samples != 181 || len(c.Metrics) != 2348 {
		t.Errorf("%d samples of %d metrics, want 181 of 2348 (as the file says)", c.Samples, len(c.Metrics))
	}
	checkUptimeFollowsClock(t, c, 50*time.Millisecond)
	// Counters only grow.
	for _, p := range []string{"serverStatus.connections.totalCreated", "serverStatus.opcounters.command", "serverStatus.network.numRequests"} {
		m := metric(c, p)
		if m == nil || !slices.IsSorted(m.Values) {
			t.Errorf("%s: %v", p, m)
		}
	}
	last, err := c.Last()
	if err != nil {
		t.Fatal(err)
	}
	// The last sample keeps the reference's types and strings.
	if v := last.Lookup("serverStatus", "connections", "current"); v.Type != ss.Document().Lookup("connections", "current").Type {
		t.Errorf("connections.current is %s in the last sample", v.Type)
	}
	if last.Lookup("serverStatus", "host").StringValue() != ss.Document().Lookup("host").StringValue() {
		t.Error("host changed")
	}
}

func TestRealArchive42(t *testing.T) {
	meta, chunks := readAll(t, realFile(t, "metrics-4.2.12"))
	if len(meta) != 1 || meta[0].Kind != Metadata || len(chunks) != 5 {
		t.Fatalf("%d metadata, %d chunks; want 1 and 5", len(meta), len(chunks))
	}
	if v := meta[0].Doc.Lookup("buildInfo", "version").StringValue(); v != "4.2.12" {
		t.Errorf("buildInfo.version %q", v)
	}
	if os := meta[0].Doc.Lookup("hostInfo", "os", "type").StringValue(); os != "Linux" {
		t.Errorf("hostInfo.os.type %q", os)
	}
	total := 0
	for i, c := range chunks {
		total += c.Samples
		checkUptimeFollowsClock(t, c, 50*time.Millisecond)
		if i == 0 {
			continue
		}
		prev := chunks[i-1]
		lastUp := metric(prev, "serverStatus.uptimeMillis").Values[prev.Samples-1]
		lastAt := prev.Times()[prev.Samples-1]
		ref := c.Reference.Lookup("serverStatus", "uptimeMillis")
		refUp, ok := ref.AsInt64OK()
		refAt := c.Reference.Lookup("start").Time()
		gap := refAt.Sub(lastAt)
		if !ok || gap <= 0 || (time.Duration(refUp-lastUp)*time.Millisecond-gap).Abs() > 50*time.Millisecond {
			t.Errorf("chunk %d: reference uptime %d (%s) after the last decoded %d, %v later", i, refUp, ref.Type, lastUp, gap)
		}
	}
	if total != 849 {
		t.Errorf("%d samples, want 849", total)
	}
	if chunks[0].Reference.Lookup("serverStatus", "uptimeMillis").Type != bson.TypeInt64 {
		t.Error("uptimeMillis is not int64 in the reference")
	}
}

// TestRealArchives: every real archive decodes, each chunk's uptime
// follows its clock, and its metadata says the version and OS the
// README records.
func TestRealArchives(t *testing.T) {
	for _, tt := range []struct{ file, version, os, process string }{
		{"metrics-7.0.14", "7.0.14", "Linux", "mongod"},
		{"metrics-4.0.4-windows", "4.0.4", "Windows", `C:\Program Files\MongoDB\Server\4.0\bin\mongod.exe`},
		{"metrics-4.2.12", "4.2.12", "Linux", "mongod"},
	} {
		meta, chunks := readAll(t, realFile(t, tt.file))
		if len(meta) == 0 || len(chunks) == 0 {
			t.Fatalf("%s: %d metadata, %d chunks", tt.file, len(meta), len(chunks))
		}
		if v := meta[0].Doc.Lookup("buildInfo", "version").StringValue(); v != tt.version {
			t.Errorf("%s: version %q", tt.file, v)
		}
		if os := meta[0].Doc.Lookup("hostInfo", "os", "type").StringValue(); os != tt.os {
			t.Errorf("%s: os %q", tt.file, os)
		}
		for _, c := range chunks {
			checkUptimeFollowsClock(t, c, 50*time.Millisecond)
			if p := c.Reference.Lookup("serverStatus", "process").StringValue(); p != tt.process {
				t.Errorf("%s: process %q", tt.file, p)
			}
		}
	}
}
