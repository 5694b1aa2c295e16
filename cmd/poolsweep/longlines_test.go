package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// manyTargets writes simRun's steps once per target, for n targets whose
// names are the longest a target may have (results.MaxTargetName bytes).
func manyTargets(t *testing.T, path string, n int) {
	t.Helper()
	b, err := os.ReadFile(simRun)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var h map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
		t.Fatal(err)
	}
	t0 := h["targets"].([]any)[0].(map[string]any)
	var names []string
	var targets []any
	for i := range n {
		name := strings.Repeat(string(rune('a'+i%26)), results.MaxTargetName-3) + "-" + string(rune('a'+i/26)) + string(rune('a'+i%26))
		names = append(names, name)
		c := map[string]any{}
		for k, v := range t0 {
			c[k] = v
		}
		c["name"] = name
		// A URI of a hundred hosts, as a large deployment's may be.
		c["uri"] = "mongodb://" + strings.Repeat("host-0000.example.internal:27017,", 100) + "h/"
		targets = append(targets, c)
	}
	h["targets"] = targets
	out, _ := json.Marshal(h)
	text := string(out) + "\n"
	for _, l := range lines[1:] {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r["kind"] != "step" {
			b, _ := json.Marshal(r)
			text += string(b) + "\n"
			continue
		}
		for _, name := range names {
			r["target"] = name
			b, _ := json.Marshal(r)
			text += string(b) + "\n"
		}
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNoLineOverLineMax: a run of forty targets, each named as long as a
// name may be and with a URI of a hundred hosts, is analysed, compared and reported (text, markdown) with
// no line longer than textfmt.LineMax on stdout, stderr or the report:
// lists of names are cut (textfmt.List) and a name past the limit is
// refused where it is read (TestLongTargetNameRefused).
func TestNoLineOverLineMax(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	manyTargets(t, a, 40)
	manyTargets(t, b, 40)
	md := filepath.Join(dir, "r.md")
	for _, args := range [][]string{
		{"analyze", a},
		{"compare", a, b},
		{"compare", a, b, "--format", "markdown"},
		{"report", a, b, "-o", md, "--format", "markdown"},
		{"fleet", a, "--instances", "4"},
	} {
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %.300s", args[0], code, stderr)
		}
		texts := map[string]string{"stdout": stdout, "stderr": stderr}
		if args[0] == "report" {
			data, err := os.ReadFile(md)
			if err != nil {
				t.Fatal(err)
			}
			texts["report"] = string(data)
		}
		for what, text := range texts {
			for i, line := range strings.Split(text, "\n") {
				if len(line) > textfmt.LineMax {
					t.Errorf("%s %s line %d: %d bytes: %.120s…", strings.Join(args[:1], " "), what, i+1, len(line), line)
				}
			}
		}
	}
}
