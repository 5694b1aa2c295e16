package querylog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseLogLine: whatever a file holds, Read returns (no panic, no
// hang), and no warning or error quotes it.
func FuzzParseLogLine(f *testing.F) {
	for _, name := range []string{"real/hatchet-mongod-6.0.11.log", "profile-relaxed.json", "profile-array.json",
		"querystats.json", "mongos.log", "redacted.log", "legacy-text.log"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.SplitN(string(data), "\n", 4)[:3] {
			f.Add(line)
		}
	}
	f.Add("[")
	f.Add(`{"t":1,"s":"I","c":"X","id":51803,"msg":"m","attr":{"type":"update","ns":"a.b","command":{"q":{"$or":[{"a":{"$in":[1,"x",null]}}]},"u":[{"$set":{"x":"$y"}}]}}}`)
	f.Fuzz(func(t *testing.T, line string) {
		path := filepath.Join(t.TempDir(), "in.log")
		if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
		rep, err := Read(context.Background(), []string{path}, Options{MaxTotal: 1 << 20}, func(*Op) error { return nil })
		msgs := []string{}
		if err != nil {
			msgs = append(msgs, err.Error())
		}
		for _, w := range rep.Warnings {
			msgs = append(msgs, w.String())
		}
		for _, m := range msgs {
			m = strings.ReplaceAll(m, path, "")
			if len(line) >= 12 && strings.Contains(m, line) {
				t.Errorf("message quotes the input: %q", m)
			}
		}
	})
}
