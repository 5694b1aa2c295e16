package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestWall: a duration is printed to the precision a person reads it at.
func TestWall(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{1234 * time.Millisecond, "1.23s"},                         // under 10 s: to 10 ms
		{12345 * time.Millisecond, "12.3s"},                        // under a minute: to 100 ms
		{90*time.Second + 400*time.Millisecond, "1m30s"},           // under an hour: to the second
		{2*time.Hour + 20*time.Minute + 40*time.Second, "2h21m0s"}, // to the minute
	} {
		if got := Wall(tc.d); got != tc.want {
			t.Errorf("Wall(%s) = %s, want %s", tc.d, got, tc.want)
		}
	}
}

// TestPrefixWriter: whole lines go out one at a time, each after the
// prefix, however the writes split them; a last line without its newline
// waits for Flush.
func TestPrefixWriter(t *testing.T) {
	var out bytes.Buffer
	w := PrefixWriter(&out, "agent 0: ")
	for _, chunk := range []string{"first", " line\nsec", "ond\n\nthird"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	if got := out.String(); got != "agent 0: first line\nagent 0: second\nagent 0: \n" {
		t.Errorf("before Flush: %q", got)
	}
	w.Flush()
	if !strings.HasSuffix(out.String(), "agent 0: third\n") {
		t.Errorf("after Flush: %q", out.String())
	}
}
