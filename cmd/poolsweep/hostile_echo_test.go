package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/internal/errext"
)

// Bad input that must never be echoed: no error quotes what an input
// file holds, or more of a value the user typed than its short token
// (textfmt.Token).

// echoSecret is planted in every hostile file: no line poolsweep prints may
// hold it, or any part of it long enough to be read.
const echoSecret = "TOPSECRET-7f3a9c"

// TestHostileFilesNeverEchoed gives every command that reads a file one
// holding a secret, in every place a reader might quote it: a CSV whose
// header is a password file's line or whose cells are the secret, a
// workload file with a secret and a circular reference, binary garbage, a
// results, storm and resumed file whose kind, target, time or bytes are
// the secret, an FTDC folder and a saved-replies folder of garbage, each
// reached through a symlink as well. Each is refused with exit 2 and one
// line on stderr without the secret, nothing on stdout; the commands that
// start something (sweep, inspect) are stopped after validation, or read
// the file before anything starts.
func TestHostileFilesNeverEchoed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name, content string) string { return writeFile(t, dir, name, content) }
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	folder := func(name string, files map[string]string) string {
		p := filepath.Join(dir, name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		for n, c := range files {
			writeFile(t, p, n, c)
		}
		return p
	}
	garbage := "\x89PNG\r\n\x1a\n\x00\xff\xfe" + echoSecret + "\x00\x01\x02\x1b[2J" + echoSecret + "\xc3\x28\n"
	shadow := "root:" + echoSecret + ":20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n"
	run, err := os.ReadFile(simRun)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(run), "\n", 3)
	header, step := lines[0]+"\n", lines[1]+"\n"
	results := map[string]string{
		"a password file":            shadow,
		"binary garbage":             garbage,
		"a first record's kind":      `{"kind":"` + echoSecret + `"}` + "\n",
		"a later record's kind":      header + `{"kind":"` + echoSecret + `"}` + "\n",
		"a target":                   header + strings.Replace(step, `"target":"sim"`, `"target":"`+echoSecret+`"`, 1),
		"a time":                     header + strings.Replace(step, `"started_at":"2026-`, `"started_at":"`+echoSecret+`-`, 1),
		"a broken line":              header + echoSecret + "\n" + step,
		"a pool setting":             header + strings.Replace(step, `"pool_setting":"match"`, `"pool_setting":"`+echoSecret+`"`, 1),
		"a header's broken schema":   strings.Replace(header, `"schema":1`, `"schema":"`+echoSecret+`"`, 1) + step,
		"a step that is not a step":  header + `{"kind":"step","` + echoSecret + `":1}` + "\n",
		"a run header and a garbage": header + garbage,
	}
	type tc struct {
		name string
		args []string
		real bool // run the command itself: it reads the file before it starts anything
	}
	var cases []tc
	for what, body := range results {
		f := file("results-"+strings.ReplaceAll(what, " ", "-")+".jsonl", body)
		via := link("link-"+filepath.Base(f), f)
		other := file("other-"+filepath.Base(f), string(run))
		out := filepath.Join(dir, "out-"+filepath.Base(f))
		resume := folder("resume-"+strings.ReplaceAll(what, " ", "-"), map[string]string{"results.jsonl": body})
		cases = append(cases,
			tc{"analyze " + what, []string{"analyze", f}, true},
			tc{"analyze, through a symlink, " + what, []string{"analyze", via}, true},
			tc{"plot " + what, []string{"plot", f, "-o", out}, true},
			tc{"report " + what, []string{"report", f, "-o", out + ".html"}, true},
			tc{"compare " + what, []string{"compare", other, via}, true},
			tc{"merge " + what, []string{"merge", f, "-o", out + ".merged"}, true},
			tc{"fleet " + what, []string{"fleet", via, "--instances", "4"}, true},
			tc{"fleet --storm " + what, []string{"fleet", other, "--instances", "4", "--storm", via}, true},
			tc{"report --storm " + what, []string{"report", other, "--instances", "4", "--storm", f, "-o", out + ".html"}, true},
			tc{"sweep --resume " + what, []string{"sweep", "--target", "s=sim:slots=8", "--resume", resume, "--no-plot"}, true},
		)
	}
	csvs := map[string]string{
		"a password file as CSV":   shadow,
		"a secret header":          echoSecret + "," + echoSecret + "x\n1,2\n",
		"a secret header twice":    "concurrency,qps," + echoSecret + "," + echoSecret + "\n1,2,3,4\n",
		"a secret cell":            "concurrency,qps\n" + echoSecret + ",5\n",
		"a secret qps":             "concurrency,qps\n1," + echoSecret + "\n",
		"a secret target":          "concurrency,qps,target\n1,5," + echoSecret + "\x1b\n",
		"a secret pool":            "concurrency,qps,pool\n1,5," + echoSecret + "\n",
		"a secret trial":           "concurrency,qps,trial\n1,5," + echoSecret + "\n",
		"binary garbage as CSV":    garbage,
		"a quote in a secret cell": "concurrency,qps\n1," + echoSecret + "\"x\n",
	}
	for what, body := range csvs {
		f := file("csv-"+strings.ReplaceAll(what, " ", "-"), body)
		cases = append(cases,
			tc{"analyze --csv " + what, []string{"analyze", "--csv", f}, true},
			tc{"analyze --csv, through a symlink, " + what, []string{"analyze", "--csv", link("link-csv-"+filepath.Base(f), f)}, true})
	}
	workloads := map[string]string{
		"a password file as a workload": shadow,
		"a circular reference alone":    "dbpassword=" + echoSecret + "${a}\na=${dbpassword}\n",
		"binary garbage as a workload":  garbage,
		"a secret recordcount":          "readproportion=1\nrecordcount=" + echoSecret + "\n",
		"a secret proportion":           "readproportion=" + echoSecret + "\n",
		"a secret distribution":         "readproportion=1\nrequestdistribution=" + echoSecret + "\n",
		"a bad escape by a secret":      "readproportion=1\nk=" + echoSecret + "\\u00zz\n",
		"a recordcount out of range":    "readproportion=1\nrecordcount=-1\n" + echoSecret + "=1\n",
	}
	for what, body := range workloads {
		f := file("workload-"+strings.ReplaceAll(what, " ", "-"), body)
		cases = append(cases,
			tc{"sweep --workload-file " + what, []string{"sweep", "--target", "s=sim:slots=8", "--workload-file", f}, false},
			tc{"sweep --workload-file, through a symlink, " + what, []string{"sweep", "--target", "s=sim:slots=8", "--workload-file", link("link-w-"+filepath.Base(f), f)}, false})
	}
	// A circular reference is no error: as in YCSB (Java's Properties),
	// nothing is expanded. The file is taken, and shows nothing of itself.
	circular := file("workload-circular", "dbpassword="+echoSecret+"${a}\na=${dbpassword}\nreadproportion=1\n")
	if code, stdout, stderr := runWithinUsing(t, time.Minute, dryRunners, "sweep", "--target", "s=sim:slots=8", "--workload-file", circular); code != errext.ExitOK || strings.Contains(stdout+stderr, "TOPSECRET") {
		t.Errorf("a circular reference: exit %d, %q", code, stderr)
	}
	ftdcDir := folder("diagnostic.data", map[string]string{"metrics.2026-12-01T00-00-00Z-00000": garbage, "metrics.interim": garbage})
	repliesDir := folder("replies", map[string]string{"hello.mongod-7.0.14.json": garbage, "serverStatus.mongod-7.0.14.json": `{"` + echoSecret + `": {"$numberLong": "` + echoSecret + `"}}`})
	cases = append(cases,
		tc{"analyze --ftdc garbage", []string{"analyze", simRun, "--ftdc", ftdcDir}, true},
		tc{"inspect --replies garbage FTDC", []string{"inspect", "--replies", ftdcDir}, true},
		tc{"inspect --replies garbage replies", []string{"inspect", "--replies", repliesDir}, true},
	)
	for _, c := range cases {
		r := dryRunners
		if c.real {
			r = runners{}
		}
		code, stdout, stderr := runWithinUsing(t, time.Minute, r, c.args...)
		line := strings.TrimSpace(stderr)
		switch {
		case strings.Contains(stderr+stdout, "TOPSECRET") || strings.Contains(stderr+stdout, "7f3a9c"):
			t.Errorf("%s: the secret reached the terminal: %q", c.name, stderr)
		case code != errext.ExitUsage:
			t.Errorf("%s: exit %d, want 2\n%s", c.name, code, stderr)
		case line == "" || strings.Contains(line, "\n"):
			t.Errorf("%s: stderr %q, want one line", c.name, stderr)
		case stdout != "":
			t.Errorf("%s: stdout %q", c.name, stdout)
		}
	}
	t.Logf("%d hostile files tried", len(cases))
}

// longLine is the longest line a refusal of a 100-kB value may print:
// the flag's name, what was wrong, and the value's token.
const longLine = 300

// TestHostileLongValuesCut gives every flag of every command (from the
// flag definitions, as TestHostileFlags does) a 100-kB value of several
// shapes: one word, a list with one long element, a key=value, many short
// elements. Whatever the flag takes, the run exits 0 or 2, and no line of
// stderr is longer than longLine bytes or holds a run of the value longer
// than its token shows. It runs in a test process of its own, from a
// working directory of its own: a value that an output flag (compare
// --plot, -o) takes as a relative path is written there, never into the
// package's source directory (figures once landed there and were
// committed).
func TestHostileLongValuesCut(t *testing.T) {
	if !inOwnProcess(t) { // it changes directory
		return
	}
	dir := t.TempDir()
	sim, err := filepath.Abs(simRun)
	if err != nil {
		t.Fatal(err)
	}
	fromLog, err := filepath.Abs(realLog)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	other := writeFile(t, dir, "other.jsonl", string(mustRead(t, sim)))
	base := map[string][]string{
		"sweep":    {"--target", "s=sim:slots=8"},
		"serve":    {"--sim", "slots=8"},
		"inspect":  {"--uri", "mongodb://h/"},
		"analyze":  {sim},
		"plot":     {sim, "-o", filepath.Join(dir, "figs"), "--figure", "throughput"},
		"report":   {sim, "-o", filepath.Join(dir, "r.html")},
		"compare":  {sim, other},
		"merge":    {sim, "-o", filepath.Join(dir, "m.jsonl")},
		"fleet":    {sim, "--instances", "4"},
		"storm":    {"--target", "s=sim:slots=8", "-o", filepath.Join(dir, "storm.jsonl")},
		"workload": {"from-log", fromLog},
	}
	const n = 100_000
	values := []string{
		strings.Repeat("a", n),
		"1," + strings.Repeat("9", n),
		"read=" + strings.Repeat("7", n),
		strings.Repeat("1,", n/2),
		"s=mongodb://" + strings.Repeat("h", n) + "/",
		"mongodb://u:" + strings.Repeat("p", n) + "@h/",
	}
	root := newRootCmd(&env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, dryRunners)
	tried := 0
	check := func(label string, args []string, v string) {
		tried++
		code, _, stderr := runWithinUsing(t, 30*time.Second, dryRunners, args...)
		if code != errext.ExitOK && code != errext.ExitUsage {
			t.Errorf("%s: exit %d, want 0 or 2\n%.400s", label, code, stderr)
		}
		for _, l := range strings.Split(stderr, "\n") {
			if len(l) > longLine {
				t.Errorf("%s: a line of %d bytes: %.400s…", label, len(l), l)
			}
		}
		// A token shows 40 runes of the value; 64 in a row are more.
		for i := 0; i+64 <= len(v); i += len(v) / 8 {
			if strings.Contains(stderr, v[i:i+64]) {
				t.Errorf("%s: stderr holds the value whole: %.400s", label, stderr)
				break
			}
		}
	}
	for _, cmd := range root.Commands() {
		args, ok := base[cmd.Name()]
		if !ok {
			t.Errorf("command %s has no base arguments in this test", cmd.Name())
			continue
		}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			for i, v := range values {
				argv := append(append([]string{cmd.Name()}, args...), "--"+f.Name+"="+v)
				check(cmd.Name()+" --"+f.Name+" value "+string(rune('A'+i)), argv, v)
			}
			if f.Shorthand != "" {
				check(cmd.Name()+" -"+f.Shorthand, append(append([]string{cmd.Name()}, args...), "-"+f.Shorthand, values[0]), values[0])
			}
		})
		// What pflag itself refuses: a flag that does not exist, long.
		check(cmd.Name()+" an unknown flag", append([]string{cmd.Name(), "--" + values[0]}, args...), values[0])
		check(cmd.Name()+" an unknown shorthand", append([]string{cmd.Name(), "-Z" + values[0]}, args...), values[0])
		check(cmd.Name()+" a long argument", append(append([]string{cmd.Name()}, args...), values[0]), values[0])
	}
	check("an unknown command", []string{values[0]}, values[0])
	t.Logf("%d long values tried", tried)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFlagErrorsOneLine: what pflag itself refuses is said in our words,
// naming the flag, with a typed value shown as its token.
func TestFlagErrorsOneLine(t *testing.T) {
	long := strings.Repeat("z", 5000)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze", "--bogus"}, "poolsweep: unknown flag --bogus; see --help"},
		{[]string{"analyze", "--" + long}, `poolsweep: unknown flag --"` + strings.Repeat("z", 40) + `"… (5000 bytes); see --help`},
		{[]string{"plot", "-Z"}, "poolsweep: unknown shorthand flag in -Z; see --help"},
		{[]string{"analyze", "--format"}, "poolsweep: --format: needs a value"},
		{[]string{"analyze", "--lenient=maybe", simRun}, `poolsweep: --lenient: a switch takes no value, or true or false, not "maybe"`},
		{[]string{"sweep", "--records", long}, `poolsweep: --records: "` + strings.Repeat("z", 40) + `"… (5000 bytes) is not a whole number`},
		{[]string{"sweep", "--records", "-1"}, "poolsweep: --records: -1 is not between 1 and 100000000"},
	} {
		code, _, stderr := runWithinUsing(t, 30*time.Second, dryRunners, tt.args...)
		if code != errext.ExitUsage || strings.TrimSpace(stderr) != tt.want {
			t.Errorf("%.60q: exit %d, %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}
