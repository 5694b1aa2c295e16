package loadprofile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestParseTrace: the rows a trace file may hold, with and without its
// header, and what each becomes.
func TestParseTrace(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name, text string
		want       []Point
	}{
		{"header", "t_s,rate\n0,120\n1,135.5\n2,0\n30,900\n31,0\n", []Point{{0, 120}, {s, 135.5}, {2 * s, 0}, {30 * s, 900}, {31 * s, 0}}},
		{"no header", "0,5\n10,0\n", []Point{{0, 5}, {10 * s, 0}}},
		{"spaces, CRLF, blank lines, a byte-order mark", "\ufeff T_S , Rate \r\n\r\n0.5 , 5\r\n 1.25,0\r\n\n", []Point{{500 * time.Millisecond, 5}, {1250 * time.Millisecond, 0}}},
		{"no final newline", "0,1e3\n86400,0", []Point{{0, 1000}, {24 * time.Hour, 0}}},
	} {
		got, err := ParseTrace("t.csv", []byte(tc.text))
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

// TestParseTraceErrors: a bad trace is refused in one line naming the
// file and line, saying what is wrong, never quoting what the line held.
func TestParseTraceErrors(t *testing.T) {
	secret := "hunter2"
	many := new(strings.Builder)
	for i := range MaxTraceRows + 1 {
		fmt.Fprintf(many, "%d.%d,1\n", i/10, i%10)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "t.csv: no rows"},
		{"header only", "t_s,rate\n", "t.csv: no rows"},
		{"one row", "0,5\n", "t.csv:1: one row"},
		{"open end", "0,5\n3,5\n", "t.csv:2: the last row ends the trace, so its rate must be 0"},
		{"unsorted", "0,5\n4,5\n3.5,1\n9,0\n", "t.csv:3: time 3.5 is not after 4"},
		{"repeated", "0,5\n4,5\n4,1\n9,0\n", "t.csv:3: time 4 is not after 4"},
		{"a nanosecond", "0,5\n1,5\n1.0000000001,0\n", "t.csv:3: time 1.0000000001 is within a nanosecond of 1"},
		{"negative time", "-1,5\n3,0\n", "t.csv:1: time -1 is negative"},
		{"NaN time", "0,5\nNaN,5\n3,0\n", "t.csv:2: time is not a number"},
		{"Inf time", "0,5\nInf,0\n", "t.csv:2: time +Inf is past the 24h"},
		{"past a day", "0,5\n86401,0\n", "t.csv:2: time 86401 is past the 24h"},
		{"words", "0," + secret + "\n1,0\n", "t.csv:1: rate is not a number"},
		{"word time", secret + ",1\n1,0\n", "t.csv:1: time is not a number"},
		{"NaN rate", "0,NaN\n1,0\n", "t.csv:1: rate is not a number"},
		{"negative rate", "0,-3\n1,0\n", "t.csv:1: rate -3 is negative"},
		{"rate too high", "0,2e7\n1,0\n", "t.csv:1: rate 20000000 calls/s is above 10000000"},
		{"three fields", "0,1,2\n1,0\n", "t.csv:1: not a row of two fields"},
		{"one field", "t_s,rate\n0\n1,0\n", "t.csv:2: not a row of two fields"},
		{"a header late", "0,5\nt_s,rate\n1,0\n", "t.csv:2: time is not a number"},
		{"too many rows", many.String(), fmt.Sprintf("t.csv:%d: more than 100000 rows", MaxTraceRows+1)},
	} {
		_, err := ParseTrace("t.csv", []byte(tc.text))
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, tc.want) || strings.Contains(msg, "\n") || strings.Contains(msg, secret) {
			t.Errorf("%s: %q, want one line starting %q", tc.name, msg, tc.want)
		}
	}
}

// TestReadTrace: a trace is read through infile (a size bound, regular
// files only), and through Parse it is a phase whose errors name the
// flag, the phase, the file and the line.
func TestReadTrace(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.csv", []byte("t_s,rate\n0,100\n2,0\n"))
	pts, err := ReadTrace(context.Background(), good)
	if err != nil || !slices.Equal(pts, []Point{{0, 100}, {2 * time.Second, 0}}) {
		t.Fatalf("ReadTrace: %v, %v", pts, err)
	}
	p, err := Parse("idle:1s,trace:"+good, TraceReaderFor(context.Background()))
	if err != nil || p.Duration() != 3*time.Second || p.Calls() != 200 {
		t.Fatalf("Parse: %v, %v", p, err)
	}

	big := write("big.csv", bytes.Repeat([]byte("\n"), MaxTraceBytes+1))
	fifo := filepath.Join(dir, "fifo.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	unsorted := write("unsorted.csv", []byte("t_s,rate\n0,5\n4,5\n3.5,1\n9,0\n"))
	for _, tc := range []struct{ path, want string }{
		{big, "--profile: phase 2 (trace): " + big + " is larger than 8 MiB"},
		{fifo, "--profile: phase 2 (trace): " + fifo + " is a FIFO"},
		{filepath.Join(dir, "absent.csv"), "--profile: phase 2 (trace): " + dir + "/absent.csv: "},
		{unsorted, "--profile: phase 2 (trace): " + unsorted + ":4: time 3.5 is not after 4"},
		{dir, "--profile: phase 2 (trace): " + dir + " is a directory"},
	} {
		done := make(chan error, 1)
		go func() { _, err := Parse("rate:1:1s,trace:"+tc.path, TraceReaderFor(context.Background())); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %v, want %q", filepath.Base(tc.path), err, tc.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: reading hangs", filepath.Base(tc.path))
		}
	}
}

// TestTraceRoundTrip: what WriteTrace writes of PerSecond's points,
// ReadTrace reads back as the same rates second by second.
func TestTraceRoundTrip(t *testing.T) {
	counts := []float64{0, 0, 3, 3, 3, 7.5, 0, 0, 1, 1}
	pts := PerSecond(counts)
	want := []Point{{0, 0}, {2 * time.Second, 3}, {5 * time.Second, 7.5}, {6 * time.Second, 0}, {8 * time.Second, 1}, {10 * time.Second, 0}}
	if !slices.Equal(pts, want) {
		t.Fatalf("PerSecond %v, want %v", pts, want)
	}
	var b bytes.Buffer
	if err := WriteTrace(&b, pts); err != nil {
		t.Fatal(err)
	}
	back, err := ParseTrace("w.csv", b.Bytes())
	if err != nil || !slices.Equal(back, pts) {
		t.Fatalf("read back %v, %v", back, err)
	}
	p, err := Parse("trace:w.csv", traceOf(map[string][]Point{"w.csv": back}))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range counts {
		if got := p.CallsBetween(time.Duration(i)*time.Second, time.Duration(i+1)*time.Second); got != c {
			t.Errorf("second %d: %g calls, want %g", i, got, c)
		}
	}
}
