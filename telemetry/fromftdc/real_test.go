package fromftdc

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/ftdc"
	"github.com/poolsweep/poolsweep/internal/corpus"
	"github.com/poolsweep/poolsweep/telemetry"
)

// Real captures (testdata/ftdc; its README says where each comes from),
// each copied into a folder of its own under the name a server gives its
// files.

// folder makes a diagnostic.data folder holding the named real files.
func folder(t testing.TB, names ...string) string {
	t.Helper()
	files := map[string]string{}
	for i, n := range names {
		name := "metrics.2021-03-15T02-21-47Z-0000" + string(rune('0'+i))
		if strings.HasPrefix(n, "metrics.interim") {
			name = "metrics.interim"
		}
		files[name] = n
	}
	dir, err := corpus.FTDCFolder(t.TempDir(), files)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// metricSeries is one metric's values and the sample times, read straight
// from the decoded chunks (not through rebuilt samples and the telemetry
// parser), as the ground truth of a window's rates.
func metricSeries(t *testing.T, file string, path ...string) ([]time.Time, []int64) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "ftdc", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := ftdc.NewReader(f)
	var ts []time.Time
	var vs []int64
	for {
		d, err := r.Next()
		if err == io.EOF {
			return ts, vs
		}
		if err != nil {
			t.Fatal(err)
		}
		if d.Kind != ftdc.MetricChunk {
			continue
		}
		c, err := ftdc.DecodeChunk(d.Data)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range c.Metrics {
			if strings.Join(m.Path, ".") == strings.Join(path, ".") {
				ts = append(ts, c.Times()...)
				vs = append(vs, m.Values...)
			}
		}
	}
}

// deltaOver is the growth of a series between the first and the last
// sample inside w, and the time between them by the server's uptime.
func deltaOver(ts []time.Time, vs, up []int64, w Window) (d, secs float64) {
	first, last := -1, -1
	for i, at := range ts {
		if !at.Before(w.Start) && !at.After(w.End) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return float64(vs[last] - vs[first]), float64(up[last]-up[first]) / 1000
}

// TestReal4212Window: the 4.2.12 standalone's busiest minutes, cut into
// windows from the capture's own timestamps, summarised with the sampler's
// code; CPU and the command rate agree with the metrics read straight from
// the chunks, and windows outside the capture say so.
func TestReal4212Window(t *testing.T) {
	dir := folder(t, "metrics-4.2.12")
	ts, user := metricSeries(t, "metrics-4.2.12", "serverStatus", "extra_info", "user_time_us")
	_, sys := metricSeries(t, "metrics-4.2.12", "serverStatus", "extra_info", "system_time_us")
	_, up := metricSeries(t, "metrics-4.2.12", "serverStatus", "uptimeMillis")
	_, cmds := metricSeries(t, "metrics-4.2.12", "serverStatus", "opcounters", "command")
	first, last := ts[0], ts[len(ts)-1]
	// windows inside the last chunks (where the server is busy), one
	// straddling the capture's end, one after it
	busy := Window{last.Add(-150 * time.Second).Add(300 * time.Millisecond), last.Add(-120 * time.Second).Add(300 * time.Millisecond)}
	straddle := Window{last.Add(-10 * time.Second), last.Add(20 * time.Second)}
	after := Window{last.Add(time.Minute), last.Add(2 * time.Minute)}
	caps, err := ReadFolders(context.Background(), []string{dir}, []Window{busy, straddle, after})
	if err != nil {
		t.Fatal(err)
	}
	c := caps[0]
	if c.Host != "ip-10-0-0-192" || c.Version != "4.2.12" || c.Role != telemetry.RoleStandalone || !c.First.Equal(first) || !c.Last.Equal(last) || c.Samples != len(ts) {
		t.Fatalf("capture %s %s %s %s..%s %d samples; want the file's %s..%s, %d", c.Host, c.Version, c.Role, c.First, c.Last, c.Samples, first, last, len(ts))
	}

	st, covs := WindowTelemetry(caps, busy)
	if st == nil || !covs[0].Covered || covs[0].Samples != 30 {
		t.Fatalf("busy window: %+v", covs)
	}
	h := st.Hosts[c.Host]
	du, secs := deltaOver(ts, user, up, busy)
	ds, _ := deltaOver(ts, sys, up, busy)
	wantCPU := (du + ds) / (secs * 1e6) * 100
	if h.CPUPct == nil || math.Abs(*h.CPUPct-wantCPU) > 1e-9 || wantCPU < 1 {
		t.Errorf("CPU %v%%, the chunks say %.3f%%", h.CPUPct, wantCPU)
	}
	dc, _ := deltaOver(ts, cmds, up, busy)
	if got := h.OpcountersPerS["command"]; math.Abs(got-dc/secs) > 1e-9 {
		t.Errorf("commands %.3f/s, the chunks say %.3f/s", got, dc/secs)
	}
	if h.Connections == nil || h.Connections.Current == nil || h.RSSMB == nil || h.Cores == nil || h.Samples != 30 {
		t.Errorf("connections, RSS, cores or samples missing: %+v", h)
	}
	if h.ReadLatencyUS == nil && h.WriteLatencyUS == nil && h.ReadOpsPerS == nil {
		t.Errorf("no opLatencies: %+v", h)
	}
	if st.Total == nil || st.Total.CPUPct == nil || *st.Total.CPUPct != *h.CPUPct {
		t.Errorf("total %+v", st.Total)
	}

	for _, w := range []Window{straddle, after} {
		st, covs := WindowTelemetry(caps, w)
		if st != nil || covs[0].Covered || covs[0].Why == "" {
			t.Errorf("window %s..%s past the capture: %+v", w.Start, w.End, covs)
		}
	}
}

// TestRealRoles: the role comes from what the capture collects and its
// command line: the standalones' files have getCmdLineOpts; an interim
// file alone (no metadata) does not say.
func TestRealRoles(t *testing.T) {
	for _, tc := range []struct {
		file, host, role string
		cpu              bool // extra_info has CPU times
	}{
		{"metrics-7.0.14", "e171d6d17411", telemetry.RoleStandalone, true},
		// Windows reports no CPU times in extra_info
		{"metrics-4.0.4-windows", "LPS-156814:48936", telemetry.RoleStandalone, false},
		{"metrics.interim-7.0.0-rc6", "byron-ThinkCentre-M910q", telemetry.RoleUnknown, true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			ts, _ := metricSeries(t, tc.file, "serverStatus", "uptimeMillis")
			w := Window{ts[2], ts[len(ts)-3]}
			caps, err := ReadFolders(context.Background(), []string{folder(t, tc.file)}, []Window{w})
			if err != nil {
				t.Fatal(err)
			}
			c := caps[0]
			if c.Host != tc.host || c.Role != tc.role || c.RoleEvidence == "" {
				t.Errorf("%s, %s (%s); want %s, %s", c.Host, c.Role, c.RoleEvidence, tc.host, tc.role)
			}
			st, covs := WindowTelemetry(caps, w)
			if st == nil {
				t.Fatalf("not covered: %+v", covs)
			}
			if got := st.Hosts[c.Host].CPUPct != nil; got != tc.cpu {
				t.Errorf("CPU reported %v, want %v", got, tc.cpu)
			}
		})
	}
}

// TestBadFolders: what cannot be read says so, naming the folder or file.
func TestBadFolders(t *testing.T) {
	empty := t.TempDir()
	notDir := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	garbage := t.TempDir()
	if err := os.WriteFile(filepath.Join(garbage, "metrics.2021-03-15T02-21-47Z-00000"), []byte("\x20\x00\x00\x00secret content here.............."), 0o644); err != nil {
		t.Fatal(err)
	}
	twice := folder(t, "metrics-7.0.14")
	many := t.TempDir()
	for i := range ftdc.MaxFolderFiles + 1 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("metrics.2021-03-15T02-21-47Z-%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// a sparse file past the folder's cap: refused by its size, unread
	huge := t.TempDir()
	if f, err := os.Create(filepath.Join(huge, "metrics.2021-03-15T02-21-47Z-00000")); err != nil {
		t.Fatal(err)
	} else if err := f.Truncate(ftdc.MaxFolderBytes + 1); err != nil {
		t.Fatal(err)
	} else {
		f.Close()
	}
	for _, tc := range []struct {
		dirs []string
		want string
	}{
		{[]string{empty}, "holds no FTDC metric files"},
		{[]string{notDir}, "is not a folder"},
		{[]string{filepath.Join(empty, "nope")}, "no such file"},
		{[]string{garbage}, "not valid FTDC"},
		{[]string{twice, twice}, "the same host"},
		{[]string{many}, "more than the 512 read"},
		{[]string{huge}, "more than the 2048 MiB read"},
	} {
		_, err := ReadFolders(context.Background(), tc.dirs, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%v: %v, want %q", tc.dirs, err, tc.want)
		}
	}
}
