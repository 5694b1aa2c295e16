package querylog

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const slowLine = `{"t":{"$date":"2024-05-02T10:00:01.000+00:00"},"s":"I","c":"COMMAND","id":51803,"ctx":"conn7","msg":"Slow query","attr":{"type":"command","ns":"shop.orders","appName":"checkout","command":{"find":"orders","filter":{"status":"SECRET"},"$db":"shop"},"planSummary":"COLLSCAN","docsExamined":10,"nreturned":1,"reslen":300,"durationMillis":3}}`

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// noSecret fails when any warning or error quotes the file.
func noSecret(t *testing.T, rep *Report, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), "SECRET") {
		t.Errorf("error quotes the file: %v", err)
	}
	if rep == nil {
		return
	}
	for _, w := range rep.Warnings {
		if strings.Contains(w.String(), "SECRET") {
			t.Errorf("warning quotes the file: %v", w)
		}
	}
}

// TestBadLines: lines that cannot be read are warnings with their line
// numbers; the lines around them are read.
func TestBadLines(t *testing.T) {
	rows := []struct {
		name    string
		content string
		ops     int
		warning string // "FILE:LINE: …" after the file's name
	}{
		// The file ends mid-line, as a log being written does.
		{"truncated", slowLine + "\n" + slowLine[:len(slowLine)/2], 1, ":2: cut short"},
		// A line that is not JSON between two that are.
		{"not JSON", slowLine + "\nSECRET garbage\n" + slowLine + "\n", 2, ":2: not JSON"},
		// JSON that is not a log entry.
		{"not an entry", slowLine + "\n{\"SECRET\":1}\n" + slowLine + "\n", 2, ":2: JSON that is not a mongod log line"},
		// A profile document among log lines.
		{"other kind", slowLine + "\n{\"op\":\"query\",\"ns\":\"SECRET.x\"}\n", 1, ":2: a system.profile document among mongod log lines"},
		// A log entry whose attributes are not a document.
		{"bad attr", slowLine + "\n" + `{"t":{"$date":"x"},"s":"I","c":"COMMAND","id":51803,"ctx":"c","msg":"Slow query","attr":"SECRET"}` + "\n", 1, ":2: a log entry whose attributes are not extended JSON"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			path := write(t, "mongod.log", r.content)
			ops, rep, err := readAll(t, Options{}, path)
			noSecret(t, rep, err)
			if err != nil {
				t.Fatal(err)
			}
			if len(ops) != r.ops {
				t.Errorf("%d ops, want %d", len(ops), r.ops)
			}
			found := false
			for _, w := range rep.Warnings {
				found = found || strings.HasPrefix(w.String(), path+r.warning)
			}
			if !found {
				t.Errorf("warnings %v lack %q", rep.Warnings, r.warning)
			}
		})
	}
}

// TestBadFiles: a file whose first line is not an input is an error
// naming its line.
func TestBadFiles(t *testing.T) {
	rows := []struct{ name, content, want string }{
		{"not JSON", "SECRET is not a log\n", ":1: not JSON"},
		{"not an entry", "\n{\"SECRET\":true}\n", ":2: JSON that is not a mongod log entry"},
		{"one cut line", slowLine[:40], ":1: its first JSON line is cut short"},
		{"array cut", "[" + `{"op":"query","ns":"a.b","command":{"find":"b"}}` + ",\n{\"op\":", ":2: the JSON array is cut short"},
		{"array of logs", "[" + slowLine + "]", ":1: an array of JSON that are not system.profile documents"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			path := write(t, "in.json", r.content)
			_, rep, err := readAll(t, Options{}, path)
			noSecret(t, rep, err)
			if err == nil || !strings.HasPrefix(err.Error(), path+r.want) {
				t.Errorf("error %v, want %q", err, path+r.want)
			}
		})
	}
}

// TestLongLine: a line longer than the limit is skipped a chunk at a time,
// never held, and said with its number.
func TestLongLine(t *testing.T) {
	old := maxLine
	maxLine = 1 << 10
	defer func() { maxLine = old }()
	long := `{"t":{"$date":"x"},"SECRET":"` + strings.Repeat("x", 200<<10) + `"}`
	path := write(t, "mongod.log", slowLine+"\n"+long+"\n"+slowLine+"\n")
	ops, rep, err := readAll(t, Options{}, path)
	noSecret(t, rep, err)
	if err != nil || len(ops) != 2 || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0].String(), ":2: longer than 1 KiB") {
		t.Errorf("%d ops, warnings %v, %v", len(ops), rep.Warnings, err)
	}
}

// TestLine200MB: the 200 MB line, at the real limit.
func TestLine200MB(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 200 MB file")
	}
	path := filepath.Join(t.TempDir(), "mongod.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(slowLine + "\n{\"attr\":\"")
	chunk := bytes.Repeat([]byte("y"), 1<<20)
	for range 200 {
		f.Write(chunk)
	}
	f.WriteString("\"}\n" + slowLine + "\n")
	f.Close()
	ops, rep, err := readAll(t, Options{}, path)
	if err != nil || len(ops) != 2 || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0].String(), ":2: longer than") {
		t.Errorf("%d ops, warnings %v, %v", len(ops), rep.Warnings, err)
	}
}

// TestGrowing: a log that grows while read is read to its size at open.
func TestGrowing(t *testing.T) {
	path := write(t, "mongod.log", slowLine+"\n"+slowLine+"\n")
	n := 0
	rep, err := Read(context.Background(), []string{path}, Options{}, func(op *Op) error {
		n++
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteString(strings.Repeat(slowLine+"\n", 100))
		return err
	})
	if err != nil || n != 2 || len(rep.Grew) != 1 {
		t.Fatalf("%d ops, grew %v, %v", n, rep.Grew, err)
	}
	if !strings.Contains(rep.Warnings[len(rep.Warnings)-1].String(), "grew while it was read") {
		t.Errorf("warnings %v", rep.Warnings)
	}
}

// TestTotalCap: all inputs together are bounded.
func TestTotalCap(t *testing.T) {
	path := write(t, "mongod.log", strings.Repeat(slowLine+"\n", 10))
	_, rep, err := readAll(t, Options{MaxTotal: 1000}, path)
	noSecret(t, rep, err)
	if err == nil || !strings.Contains(err.Error(), "over the total size") {
		t.Errorf("error %v", err)
	}
}

// TestGzip: a rotated, compressed log reads as the log.
func TestGzip(t *testing.T) {
	plain, err := os.ReadFile("testdata/real/hatchet-mongod-6.0.11.log")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(plain)
	zw.Close()
	path := write(t, "mongod.log.1.gz", buf.String())
	zops, _, err := readAll(t, Options{}, path)
	if err != nil {
		t.Fatal(err)
	}
	ops, _, _ := readAll(t, Options{}, "testdata/real/hatchet-mongod-6.0.11.log")
	if len(zops) != len(ops) {
		t.Errorf("gzip: %d ops, plain %d", len(zops), len(ops))
	}
}
