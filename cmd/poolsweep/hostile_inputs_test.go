package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/testkit/credtest"
)

// inputCase is a command that reads a file and writes one: file is where
// (under the test's directory) the one file both read and written lies,
// holding the content of fixture; args gives the command with in, the
// spelling of the path it reads, and out, the spelling of the path it
// writes (the file itself, or the directory it would be written into
// when dir is set). flag is how the refusal names the output flag.
type inputCase struct {
	label   string
	flag    string
	file    string
	fixture string
	dir     bool
	args    func(in, out, uri string) []string
	// skip names the spellings that do not apply: merge reads a
	// directory, which no link to the file inside it names.
	skip []string
	// pem: the file is a CA certificate, which a URI's tlsCAFile names.
	pem bool
}

// of is the case's output flag as outputFlags names it ("report --out").
func (c inputCase) of() string {
	cmd := strings.Fields(c.label)[0]
	long := map[string]string{"-o": "--out"}[c.flag]
	if long == "" {
		long = c.flag
	}
	return cmd + " " + long
}

// A YCSB property file, to be read by --workload-file.
const inputProps = "recordcount=100\nreadproportion=1\n"

func inputCases() []inputCase {
	stormFixture := filepath.Join("testdata", "storm-accept.jsonl")
	stormRun := filepath.Join("testdata", "sim-accept.jsonl") // a sweep of the deployment the storm stormed
	sweep := func(extra ...string) []string {
		return append([]string{"sweep", "--concurrency", "1", "--warmup", "100ms", "--duration", "200ms"}, extra...)
	}
	return []inputCase{
		{label: "report R -o R", flag: "-o", file: "run/results.jsonl", fixture: pairFixture,
			args: func(in, out, _ string) []string { return []string{"report", in, "-o", out} }},
		{label: "report A B -o B", flag: "-o", file: "run/b.jsonl", fixture: abCandInput,
			args: func(in, out, _ string) []string { return []string{"report", abBaseInput, in, "-o", out} }},
		{label: "report R --storm S -o S", flag: "-o", file: "run/storm.jsonl", fixture: stormFixture,
			args: func(in, out, _ string) []string {
				return []string{"report", stormRun, "--instances", "3", "--storm", in, "-o", out}
			}},
		{label: "report --format markdown: a figure's name", flag: "-o", file: "run/r_files/throughput.svg", fixture: pairFixture, dir: true,
			args: func(in, out, _ string) []string {
				return []string{"report", in, "--format", "markdown", "-o", strings.TrimSuffix(out, "_files") + ".md"}
			}},
		{label: "fleet R -o R", flag: "-o", file: "run/results.jsonl", fixture: pairFixture,
			args: func(in, out, _ string) []string { return []string{"fleet", in, "--instances", "3", "-o", out} }},
		{label: "fleet R --storm S -o S", flag: "-o", file: "run/storm.jsonl", fixture: stormFixture,
			args: func(in, out, _ string) []string {
				return []string{"fleet", stormRun, "--instances", "3", "--storm", in, "-o", out}
			}},
		{label: "merge F -o F", flag: "--out", file: "run/results.jsonl", fixture: agentFixture,
			args: func(in, out, _ string) []string { return []string{"merge", in, "-o", out} }},
		{label: "merge DIR -o DIR", flag: "--out", file: "run/results.jsonl", fixture: agentFixture, dir: true,
			args: func(in, out, _ string) []string { return []string{"merge", filepath.Dir(in), "-o", out} },
			skip: []string{"a symlink to the file read", "a hard link"}},
		{label: "workload from-log L -o L", flag: "-o", file: "run/mongod.log", fixture: realLog,
			args: func(in, out, _ string) []string { return []string{"workload", "from-log", in, "-o", out} }},
		{label: "workload from-log L -o W --rate-trace L", flag: "--rate-trace", file: "run/mongod.log", fixture: realLog,
			args: func(in, out, _ string) []string {
				return []string{"workload", "from-log", in, "-o", filepath.Join(filepath.Dir(filepath.Dir(out)), "w.yaml"), "--rate-trace", out}
			}},
		{label: "plot R -o DIR holding R at a figure's name", flag: "-o", file: "figs/throughput.svg", fixture: pairFixture, dir: true,
			args: func(in, out, _ string) []string { return []string{"plot", in, "-o", out} }},
		{label: "compare A B --plot DIR holding B at a figure's name", flag: "--plot", file: "ab/ab-deltas.svg", fixture: abCandInput, dir: true,
			args: func(in, out, _ string) []string { return []string{"compare", abBaseInput, in, "--plot", out} }},
		{label: "sweep --out DIR --workload-file DIR/report.html", flag: "--out", file: "out/report.html", dir: true,
			args: func(in, out, uri string) []string {
				return sweep("--uri", uri, "--workload-file", in, "--out", out)
			}},
		{label: "sweep --out DIR --storm DIR/a figure", flag: "--out", file: "out/latency.png", fixture: stormFixture, dir: true,
			args: func(in, out, uri string) []string {
				return sweep("--uri", uri, "--instances", "3", "--storm", in, "--out", out)
			}},
		{label: "sweep --out DIR --uri tlsCAFile=DIR/report.html", flag: "--out", file: "out/report.html", pem: true, dir: true,
			args: func(in, out, uri string) []string { return sweep("--uri", uri+"&tls=true&tlsCAFile="+in, "--out", out) }},
		{label: "inspect --save-replies DIR --uri tlsCAFile=DIR/a reply's name", flag: "--save-replies", file: "rep/hello.mongod-standalone-7.0.0.json", pem: true, dir: true,
			args: func(in, out, uri string) []string {
				return []string{"inspect", "--uri", uri + "&tls=true&tlsCAFile=" + in, "--save-replies", out}
			}},
		{label: "sweep --resume DIR --storm DIR/report.html", flag: "--resume", file: "run/report.html", fixture: stormFixture, dir: true,
			args: func(in, out, _ string) []string {
				return []string{"sweep", "--instances", "3", "--storm", in, "--resume", out}
			}},
	}
}

// inputSpelling is a way to name, in one command line, the file read and
// the file (or the directory that holds the file) written, both the same:
// it returns the two spellings for file (absolute, under d), after making
// any link it needs.
type inputSpelling struct {
	name  string
	paths func(t *testing.T, d, file string, dir bool) (in, out string)
}

// outOf is what the output flag names for file: the file, or its directory.
func outOf(file string, dir bool) string {
	if dir {
		return filepath.Dir(file)
	}
	return file
}

var inputSpellings = []inputSpelling{
	{"one path", func(_ *testing.T, d, file string, dir bool) (string, string) {
		return filepath.Join(d, file), outOf(filepath.Join(d, file), dir)
	}},
	{"relative and absolute", func(t *testing.T, d, file string, dir bool) (string, string) {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(wd, filepath.Join(d, file))
		if err != nil {
			t.Fatal(err)
		}
		return rel, outOf(filepath.Join(d, file), dir)
	}},
	{"./ and ..", func(_ *testing.T, d, file string, dir bool) (string, string) {
		first := strings.Split(file, "/")[0]
		spelt := d + "/./" + first + "/../" + file
		return filepath.Join(d, file), outOf(spelt, dir)
	}},
	{"a symlink to the file read", func(t *testing.T, d, file string, dir bool) (string, string) {
		link := filepath.Join(d, "link"+filepath.Ext(file))
		if err := os.Symlink(filepath.Join(d, file), link); err != nil {
			t.Fatal(err)
		}
		return link, outOf(filepath.Join(d, file), dir)
	}},
	{"a symlinked directory", func(t *testing.T, d, file string, dir bool) (string, string) {
		if err := os.Symlink(filepath.Join(d, filepath.Dir(file)), filepath.Join(d, "lnkdir")); err != nil {
			t.Fatal(err)
		}
		through := filepath.Join(d, "lnkdir", filepath.Base(file))
		if dir { // the directory poolsweep writes into may not be a symlink: read through it
			return through, outOf(filepath.Join(d, file), dir)
		}
		return filepath.Join(d, file), through
	}},
	{"a hard link", func(t *testing.T, d, file string, dir bool) (string, string) {
		hard := filepath.Join(d, "hard"+filepath.Ext(file))
		if err := os.Link(filepath.Join(d, file), hard); err != nil {
			t.Fatal(err)
		}
		if dir {
			return hard, outOf(filepath.Join(d, file), dir)
		}
		return filepath.Join(d, file), hard
	}},
}

// TestOutputNeverReplacesInput gives every command that reads a file and
// writes one the same file as both, in every spelling (inputSpellings):
// each is refused before any work with exit status 2 and one line naming
// the output flag, nothing in the test's directory changes (not a byte
// of the input), and nothing connects to the URI.
func TestOutputNeverReplacesInput(t *testing.T) {
	t.Parallel()
	// Every output flag (outputFlags) is here, or says why not.
	elsewhere := map[string]string{
		"storm --out":  "creates a new file: any existing file, an input too, is refused",
		"serve --data": "FerretDB's own directory, read and written by design",
		"serve --log":  "TestServeLogNotInData",
	}
	covered := map[string]bool{}
	for _, c := range inputCases() {
		covered[c.of()] = true
	}
	for _, f := range outputFlags() {
		if !covered[f] && elsewhere[f] == "" {
			t.Errorf("%s writes a path but has no case here: add one", f)
		}
	}
	resumable, err := os.ReadFile(agentFixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range inputCases() {
		for _, s := range inputSpellings {
			if slices.Contains(c.skip, s.name) {
				continue
			}
			t.Run(c.label+", "+s.name, func(t *testing.T) {
				t.Parallel()
				d := t.TempDir()
				p := filepath.Join(d, c.file)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				content := []byte(inputProps)
				if c.pem {
					content, _ = credtest.Certificates(t)
				} else if c.fixture != "" {
					if content, err = os.ReadFile(c.fixture); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(p, content, 0o644); err != nil {
					t.Fatal(err)
				}
				if c.flag == "--resume" {
					writeFile(t, filepath.Dir(p), "results.jsonl", string(resumable))
				}
				in, out := s.paths(t, d, c.file, c.dir)
				srv := newCounter(t)
				before := treeWithContent(t, d)
				args := c.args(in, out, srv.uri())
				code, stdout, stderr := runWithin(t, time.Minute, args...)
				line := strings.TrimSpace(stderr)
				if code != errext.ExitUsage || stdout != "" || strings.Contains(line, "\n") || !strings.HasPrefix(line, "poolsweep: "+c.flag+": ") ||
					!strings.Contains(line, "never writes over a file it reads") {
					t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %s, refusing to write over its input", args, code, stdout, stderr, c.flag)
				}
				if after := treeWithContent(t, d); after != before {
					t.Errorf("%q changed the files:\nbefore:\n%s\nafter:\n%s", args, before, after)
				}
				if n := srv.n.Load(); n != 0 {
					t.Errorf("%q connected %d time(s) before refusing its output", args, n)
				}
			})
		}
	}
}

// TestServeLogNotInData: serve's --log is appended to, and FerretDB reads
// and writes every file in --data: a log named inside it, however
// spelled, is refused before anything starts.
func TestServeLogNotInData(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	data := filepath.Join(d, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(data, filepath.Join(d, "lnk")); err != nil {
		t.Fatal(err)
	}
	for _, log := range []string{data + "/server.log", d + "/./data/../data/server.log", d + "/lnk/server.log"} {
		before := treeWithContent(t, d)
		code, stdout, stderr := runWithin(t, time.Minute, "serve", "--data", data, "--log", log)
		line := strings.TrimSpace(stderr)
		if code != errext.ExitUsage || stdout != "" || strings.Contains(line, "\n") || !strings.HasPrefix(line, "poolsweep: --log: ") {
			t.Errorf("serve --log %s: exit %d, stdout %q, stderr %q; want exit 2 and one line naming --log", log, code, stdout, stderr)
		}
		if after := treeWithContent(t, d); after != before {
			t.Errorf("serve --log %s changed the files:\n%s\n%s", log, before, after)
		}
	}
}

// treeWithContent is listTree with each regular file's digest, so that a
// file rewritten in place shows.
func treeWithContent(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		line := strings.TrimPrefix(p, dir) + " " + e.Type().String()
		if e.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		out = append(out, line)
		return nil
	})
	sort.Strings(out)
	return strings.Join(out, "\n")
}
