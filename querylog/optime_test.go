package querylog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOpTimes: each operation carries when it ended (a log line's t, a
// profile document's ts) and the sample rate it was logged at, and
// Start is that less its duration: in every form mongod writes t in.
func TestOpTimes(t *testing.T) {
	ops, _, err := readAll(t, Options{}, "testdata/real/hatchet-mongod-6.0.11.log")
	if err != nil {
		t.Fatal(err)
	}
	// The insert's line: 16:25:13.317 at -04:00, durationMillis 1.
	end := time.Date(2023, 9, 23, 20, 25, 13, 317e6, time.UTC)
	if op := ops[0]; op.Command != "insert" || !op.End.Equal(end) || !op.Start().Equal(end.Add(-time.Millisecond)) || op.SampleRate != 1 {
		t.Errorf("insert: end %s start %s rate %g; want end %s, a millisecond before, rate 1", op.End, op.Start(), op.SampleRate, end)
	}

	// The same line with t as iso8601-utc, as a $numberLong, and broken.
	b, err := os.ReadFile("testdata/real/hatchet-mongod-6.0.11.log")
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Split(string(b), "\n")[4] // the insert's (line 5)
	const local = `{"$date":"2023-09-23T16:25:13.317-04:00"}`
	if !strings.Contains(line, local) {
		t.Fatal("the insert's line is not as the test expects")
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		t    string
		want time.Time
	}{
		{`{"$date":"2023-09-23T20:25:13.317Z"}`, end},
		{`{"$date":{"$numberLong":"1695500713317"}}`, end},
		{`{"$date":"yesterday"}`, time.Time{}},
		{`17`, time.Time{}},
	} {
		p := filepath.Join(dir, "l.log")
		if err := os.WriteFile(p, []byte(strings.Replace(line, local, tc.t, 1)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ops, _, err := readAll(t, Options{}, p)
		if err != nil || len(ops) != 1 {
			t.Errorf("t %s: %d ops, %v", tc.t, len(ops), err)
			continue
		}
		if !ops[0].End.Equal(tc.want) || ops[0].SampleRate != 0 {
			t.Errorf("t %s: end %v, rate %v; want end %s, rate unknown (0)", tc.t, ops[0].End, ops[0].SampleRate, tc.want)
		}
	}

	// A profile document: ts less millis, in both extended JSONs.
	for _, f := range []string{"testdata/profile-relaxed.json", "testdata/profile-canonical.json"} {
		ops, _, err := readAll(t, Options{}, f)
		if err != nil {
			t.Fatal(err)
		}
		ts := time.Date(2024, 5, 2, 10, 0, 0, 1e6, time.UTC)
		if op := ops[0]; !op.End.Equal(ts) || !op.Start().Equal(ts.Add(-3*time.Millisecond)) {
			t.Errorf("%s: end %s start %s; want %s less 3 ms", f, op.End, op.Start(), ts)
		}
	}
}
