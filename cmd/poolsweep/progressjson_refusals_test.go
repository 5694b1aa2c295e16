package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// progressPlacements put --progress json where a user may: after the
// other flags, first after the command, as one argument with =, padded
// with blanks, and before the command's name.
var progressPlacements = []struct {
	name string
	put  func(cmd string, args []string) []string
}{
	{"last", func(cmd string, args []string) []string {
		return append(append([]string{cmd}, args...), "--progress", "json")
	}},
	{"first", func(cmd string, args []string) []string { return append([]string{cmd, "--progress=json"}, args...) }},
	{"padded", func(cmd string, args []string) []string {
		return append(append([]string{cmd}, args...), "--progress", " json\t")
	}},
	{"before the command", func(cmd string, args []string) []string { return append([]string{"--progress", "json", cmd}, args...) }},
}

// jsonRefusal checks that stderr is what docs/progress.md promises a
// refused command line under --progress json: every line a JSON object
// with event and time, the refusal one message event whose text is the
// "poolsweep: …" line, naming the flag (flag "": any). It returns the
// text.
func jsonRefusal(t *testing.T, label string, code int, stdout, stderr, flag string) string {
	t.Helper()
	if code != errext.ExitUsage {
		t.Errorf("%s: exit %d, want 2\n%s", label, code, stderr)
	}
	if stdout != "" {
		t.Errorf("%s: stdout %q", label, stdout)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(lines) != 1 {
		t.Errorf("%s: %d lines on stderr, want one message: %q", label, len(lines), stderr)
	}
	text := ""
	for _, line := range lines {
		ev, ok := jsonEvent(t, label, line)
		if !ok {
			continue
		}
		if ev["event"] != evMessage {
			t.Errorf("%s: a %v event, want the refusal as a message: %s", label, ev["event"], line)
		}
		s, _ := ev["text"].(string)
		if !strings.HasPrefix(s, "poolsweep: ") || flag != "" && !strings.Contains(s, flag) {
			t.Errorf("%s: message %q, want the \"poolsweep: …\" line naming %s", label, s, flag)
		}
		text = s
	}
	return text
}

// jsonEvent parses one stderr line as docs/progress.md defines it: a JSON
// object with event and time (RFC 3339); a message has a text.
func jsonEvent(t *testing.T, label, line string) (map[string]any, bool) {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Errorf("%s: stderr line is not a JSON object (%v): %q", label, err, line)
		return nil, false
	}
	name, _ := ev["event"].(string)
	ts, _ := ev["time"].(string)
	if _, err := time.Parse(time.RFC3339Nano, ts); name == "" || err != nil {
		t.Errorf("%s: no event or no RFC 3339 time: %s", label, line)
		return nil, false
	}
	if _, ok := ev["text"].(string); name == evMessage && !ok {
		t.Errorf("%s: a message without text: %s", label, line)
		return nil, false
	}
	return ev, true
}

// TestProgressJSONRefusals covers one class of bad input: under --progress json a
// command line refused before anything starts (by cobra's parse, a
// flag's own check, or the command's) is one JSON message on stderr,
// wherever --progress json is written. The real commands run, against a
// loopback port nothing listens on: a refusal let through would fail
// there with exit 1.
func TestProgressJSONRefusals(t *testing.T) {
	t.Parallel()
	const uri = "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200"
	refusals := []struct {
		args []string
		flag string // what the line must name
		last bool   // its last argument must end the command line
	}{
		// The audit's.
		{[]string{"--uri", uri, "--clients", "0"}, "--clients", false},
		{[]string{"--uri", uri, "--database", "admin"}, "--database", false},
		{[]string{"--uri", uri, "--threshold", "p99<<1ms"}, "--threshold", false},
		{[]string{"--uri", uri, "--concurrency", "0"}, "--concurrency", false},
		{[]string{"--uri", "mongodb://127.0.0.1:1/?readPreference=bogus"}, "--uri", false},
		{[]string{"--uri", uri, "--bogus"}, "--bogus", false},
		// Their neighbours: cobra's own refusals and the command's.
		{[]string{"--uri", uri, "--concurrency"}, "--concurrency", true}, // a flag without its value
		{[]string{"--uri", uri, "-Z"}, "-Z", false},
		{[]string{"--uri", uri, "extra"}, "extra", false},
		{[]string{"--uri", uri, "--uri", "mongodb://:pw@127.0.0.1:1"}, "--uri", false},
		{[]string{"--uri", uri, "--target", "a=sim:slots=4"}, "--target", false},
		{[]string{"--uri", uri, "--pool", "0"}, "--pool", false},
		{[]string{"--uri", uri, "--duration", "-1s"}, "--duration", false},
		{[]string{"--uri", uri, "--workload", "bogus"}, "--workload", false},
		{[]string{"--uri", uri, "--out", ""}, "--out", false},
		{[]string{"--uri", uri, "--agent-index", "1"}, "--agent-index", false},
		{[]string{"--uri", uri, "--resume", "/nonexistent/run"}, "--resume", false},
	}
	for _, p := range progressPlacements {
		for _, r := range refusals {
			if r.last && (p.name == "last" || p.name == "padded") {
				continue // there --progress json is the missing value
			}
			argv := p.put("sweep", r.args)
			code, stdout, stderr := runWithinUsing(t, 30*time.Second, runners{}, argv...)
			text := jsonRefusal(t, fmt.Sprintf("%s %q", p.name, argv), code, stdout, stderr, r.flag)
			if strings.Contains(text, "pw@") {
				t.Errorf("%q: the password: %q", argv, text)
			}
		}
	}
	// Every other command has no --progress: asking it for json is refused
	// as an unknown flag, in json. An unknown command too.
	root := newRootCmd(&env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, dryRunners)
	names := []string{"bogus"}
	for _, c := range root.Commands() {
		if c.Flags().Lookup("progress") == nil {
			names = append(names, c.Name())
		}
	}
	for _, name := range names {
		argv := []string{name, "--progress", "json"}
		code, stdout, stderr := runWithinUsing(t, 30*time.Second, dryRunners, argv...)
		jsonRefusal(t, fmt.Sprintf("%q", argv), code, stdout, stderr, "--progress")
	}
	// Without json, the refusal stays the one text line; a word that is
	// not text or json is refused so, naming --progress.
	for _, argv := range [][]string{
		{"sweep", "--uri", uri, "--clients", "0"},
		{"sweep", "--uri", uri, "--progress", "text", "--clients", "0"},
		{"sweep", "--uri", uri, "--progress", "JSON"},
		{"sweep", "--uri", uri, "--out", "--progress", "json", "--clients", "0"}, // --out takes "--progress": a directory name
	} {
		code, _, stderr := runWithinUsing(t, 30*time.Second, runners{}, argv...)
		if code != errext.ExitUsage || !strings.HasPrefix(stderr, "poolsweep: ") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one text line", argv, code, stderr)
		}
	}
}

// TestProgressJSONHostileFlags is TestHostileFlags' walk of the sweep
// command's flags (the command that takes --progress) under --progress
// json: every hostile value of every flag, by what the flag declares,
// with --progress json placed in turn where progressPlacements puts it.
// Whatever the value, every line of stderr is a JSON object; a refusal
// is one message naming the flag. It runs in a process of its own (it
// changes directory, as the walk does).
func TestProgressJSONHostileFlags(t *testing.T) {
	if !ownProcessChild() {
		t.Parallel()
		ownProcess(t, t.Name())(t)
		return
	}
	if !inOwnProcessChild(t) {
		return
	}
	t.Chdir(t.TempDir()) // paths among the values are relative to it
	root := newRootCmd(&env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, dryRunners)
	sweep, _, err := root.Find([]string{"sweep"})
	if err != nil || sweep.Flags().Lookup("progress") == nil {
		t.Fatalf("sweep has no --progress: %v", err)
	}
	base := []string{"--target", "s=sim:slots=8"}
	tried, refused := 0, 0
	sweep.Flags().VisitAll(func(f *pflag.Flag) {
		d, ok := f.Value.(cmdutil.Declared)
		if f.Value.Type() == "bool" || f.Name == "progress" || !ok { // TestHostileFlags fails an undeclared flag
			return
		}
		values, _ := hostileFor(d)
		values = append(values, mustRefuse[f.Name]...)
		for _, v := range values {
			p := progressPlacements[tried%len(progressPlacements)]
			argv := p.put("sweep", append(append(append([]string{}, base...), flagContext[f.Name]...), "--"+f.Name+"="+v))
			tried++
			label := fmt.Sprintf("--%s=%q (%s)", f.Name, v, p.name)
			code, stdout, stderr := runBounded(t, argv)
			switch {
			case code == errext.ExitUsage:
				refused++
				text := jsonRefusal(t, label, code, stdout, stderr, "")
				if !strings.Contains(text, " -") { // as TestHostileFlags asks of the text line
					t.Errorf("%s: refused, naming no flag: %q", label, text)
				}
			case code != errext.ExitOK:
				t.Errorf("%s: exit %d, want 0 or 2\n%s", label, code, stderr)
			default:
				for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
					if line != "" {
						jsonEvent(t, label, line)
					}
				}
			}
		}
	})
	t.Logf("%d hostile values tried under --progress json, %d refused", tried, refused)
	if refused == 0 {
		t.Error("no value was refused: the walk tried nothing")
	}
}
