package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/plan"
)

// dryRunners stop the commands that start or connect to something once
// their flags are validated: what argv turns into, with nothing started.
var dryRunners = runners{
	sweep:   func(_ context.Context, o *sweepOptions) error { return o.Validate() },
	serve:   func(_ context.Context, o *serveOptions) error { _, err := o.Validate(); return err },
	inspect: func(_ context.Context, o *inspectOptions) error { _, err := o.Validate(); return err },
	storm:   func(_ context.Context, o *stormOptions) error { _, err := o.Validate(); return err },
}

// Hostile values, by what a flag takes.
var (
	hostileNumbers = []string{"0", "-1", "1", "NaN", "nan", "Inf", "+Inf", "-Inf", "infinity", "1e309", "-1e309", "1e-320",
		"2147483647", "2147483648", "4294967296", "9223372036854775807", "9223372036854775808", "18446744073709551615",
		"18446744073709551616", "0.5", "0x10", "1_000", "+5", "", " ", "\t", "5 ", "\x00", "5\x00", "\x1b[2J", "1\n2", "١"}
	hostileDurations = []string{"0s", "0", "-1s", "1ns", "1", "NaN", "Inf", "1e309s", "2562048h", "2562047h", "9223372036854775807ns",
		"9223372036854775808ns", "2147483648s", "4294967296s", "87600h", "168h1ns", "24h", "1h", "1ms", "", " ", "\x00", "\x1b[2J", "5s "}
	hostileLists = []string{"0", "-1", "1", "1..64xInf", "1..64x+Inf", "1..64xNaN", "1..64x-Inf", "1..64x1e309", "1..64x1",
		"1..64x1.0000000001", "1..100000x1.0001", "1..64x100", "100..1000+5000", "100..1000+Inf", "1..64+0", "64..1x2",
		"9223372036854775808", "18446744073709551615", "1..9223372036854775807+1", "1..100000+1", "1..1000+1", "1..64x2",
		"", " ", ",", "1,,2", "\x1b[2J", "1..64x2\x00", "match", "1e3",
		"1..1+1e308", "1..1+01e308", "7..7x1e300"} // one level with a step past what an int holds: it hung
	// hostilePercents are what a percentage flag gets beyond the numbers:
	// the numbers with a % after them, and what a % makes of them.
	hostilePercents = []string{"1e-320%", "-1e-320%", "1e-400%", "1e-400", "4.9e-324%", "2.2e-308%", "0.001%", "0.01%", "5%", "5%%",
		"%", "NaN%", "Inf%", "-0%", "0x1p-3%", "0x1p-3", "1_0%", "5 %", "1e309%", "100%", "1000%", "1000.5%"}
	hostileWords = []string{"", " ", "bogus", "READ", "knee ", "text,json", "\x00", "\x1b[31mred\x1b[0m", strings.Repeat("x", 5000)}
	hostileText  = []string{"", " ", "\t", "\x00", "\x1b[2J", strings.Repeat("a", 5000)}
)

// mustRefuse are values a text flag's check must refuse, beyond the
// hostile text every one gets: the audit's cases and their neighbours.
var mustRefuse = map[string][]string{
	"database": {strings.Repeat("a", 64), strings.Repeat("d", 5000), "a/b", "a\\b", "a.b", "a b", "a\"b", "a$b", "a*b", "a<b", "a>b",
		"a:b", "a|b", "a?b", "a\x00b", "a\x1bb", "admin", "local", "config"},
	"uri": {"mongodb://h/?maxConnecting=4294967296", "mongodb://h/?maxConnecting=0", "mongodb://h/?maxPoolSize=9223372036854775808",
		"mongodb://h/?maxPoolSize=200000", "mongodb://h/?minPoolSize=4294967296", "mongodb://h/?connectTimeoutMS=9223372036854775807",
		"mongodb://h/?serverSelectionTimeoutMS=-1", "mongodb://h/?heartbeatFrequencyMS=1", "mongodb://h/?timeoutMS=99999999999", "http://h/",
		// What the driver refused only once a run had started, and neighbours.
		"mongodb://h/?readPreference=bogus", "mongodb://h/?authMechanism=PLAIN", "mongodb://u:p@h/?authMechanism=PLAIN&authMechanismProperties=A:B",
		"mongodb://h/?tlsCAFile=/nonexistent", "mongodb://:pw@host", "mongodb://h/?tlsCAFile=/dev/zero", "mongodb://h/?readConcernLevel=bogus",
		"mongodb://h/?compressors=bogus", "mongodb://h/?authSource=admin", "mongodb://u@h/?authMechanism=GSSAPI&authMechanismProperties=BOGUS:1",
		"mongodb://h/?tlsInsecure=true&tlsAllowInvalidCertificates=true", "mongodb://a,b/?directConnection=true",
		"mongodb+srv://c.example.invalid/?srvMaxHosts=2&replicaSet=rs", "mongodb://a/?loadBalanced=true&replicaSet=rs", "mongodb://h/?maxPoolSzie=5",
		"mongodb://u:p@h/?authMechanism=plain", "mongodb://u@h/?authMechanism=GSSAPI"},
	"target": {"a=mongodb://h/?maxConnecting=4294967296", "a=sim:slots=NaN", "a=sim:slots=4294967296", "a=sim:service=Inf",
		"a=sim:jitter=NaN", "noequals", "=mongodb://h/", "a=mongodb://h/?readPreference=bogus", "a=mongodb://:pw@host",
		"a=mongodb://h/?tlsCAFile=/nonexistent", "a=mongodb://h/?compressors=bogus", "a=mongodb+srv://c.example.invalid:27017/"},
	"run-id": {"no spaces", "../up", strings.Repeat("r", 65), "-lead"},
	// The pool options and the profile (sweep); --timeout and
	// --max-connecting are storm's too, which refuses these as well.
	"min-pool":                 {"-1", "100001", "0,0", "1.5", "1,,2"},
	"max-idle":                 {"-1s", "1500us", "25h", "0,0", "1"},
	"timeout":                  {"0", "-5ms", "1h1ms"},
	"max-connecting":           {"0", "2,0", "-2", "1025"},
	"retry":                    {"maybe", "on,on", "ON", "true", "on,,off", "on,off,on"},
	"server-selection-timeout": {"0", "-5ms", "1h1ms", "1500us", "1s,1s"},
	"heartbeat":                {"0", "499ms", "1h1ms", "1500us", "500ms,500ms"},
	"profile":                  {"idle:5s", "rate:100:5h", "rate:20000000:1s", "burst:1s", strings.Repeat("rate:1:1s,", 500)},
	"listen":                   {"bad", "127.0.0.1:99999", "127.0.0.1:-1", "127.0.0.1:NaN", "example.com:1"},
	"sim":                      {"slots=0", "slots=NaN", "slots=4294967296", "service=-1ms", "service=Inf", "colour=blue", "jitter=2"},
	"resolution":               {"NaN", "Inf", "0", "1", "1.0000001", "5", "1e309", "sqrt3"},
	"threshold": {"ops>1e308", "ops>9223372036854775808", "calls>1000000001", "errors<1e308", "errors<100000000000001", "errors<100.5%",
		"p99<1h1ms", "connections<1000000001", "knee>=100001", "ops>" + strings.Repeat("9", 5000),
		"ops>1e-320", "ops>1e-400", "errors<1e-320%", "errors<4.9e-324"},
	"fail-on-regression": {"1e308", "1001%", "9223372036854775808%", "1e-320%"},
	"run-noise":          {"1e308", "100.5%", "1e-320%", "1e-320", "0.001%"},
	"min-effect":         {"1e-320", "1e-320%"},
	"alpha":              {"1e-320", "1e-400"},
	"max-warmup":         {"1s", "2999ms", "100ms"}, // below the 3s MSER-5 needs
	"min-warmup":         {"61s", "1h"},             // above --max-warmup's 1m default
}

// mustAccept are values each flag must take: the limits themselves.
var mustAccept = map[string][]string{
	"database":                 {strings.Repeat("a", 63), "poolsweep_2"},
	"max-connecting":           {"1", "1024"},
	"min-pool":                 {"0", "1"}, // the simulator's lowest level is 1: pool match
	"max-idle":                 {"0", "1ms", "24h"},
	"timeout":                  {"5s"}, // sweep: --op-timeout's default; storm: within 1s..10m
	"retry":                    {"on", "off", "off,on"},
	"server-selection-timeout": {"1ms", "5s"}, // at most --op-timeout's default
	"heartbeat":                {"500ms", "1h"},
	"profile":                  {"rate:100:1s", "idle:1s,ramp:0:500:2s"},
	"resolution":               {"sqrt2", "1.05", "4", "x2"},
	"threshold":                {"ops<=1000000000", "calls<=1e9", "errors<=100000000000000", "errors<=100%", "connections<=1000000000", "p99<=1h"},
	"max-warmup":               {"3s", "20h"}, // 8 sim levels × 20h: within plan.MaxRunTime
	// Percentages: 0, the least nonzero one, the limits, with or without %.
	"run-noise":          {"0", "0%", "0.01%", "3", "100%"},
	"fail-on-regression": {"0%", "0.01%", "5%", "1000%"},
	"min-effect":         {"0", "0.01", "1000%"},
	"precision":          {"0.1%", "50%"},
}

// flagContext is what a sweep flag needs beside it to be used at all.
var flagContext = map[string][]string{
	"max-in-flight": {"--rate", "1000", "--pool", "16"},
	"arrivals":      {"--rate", "1000", "--pool", "16"},
	"rate":          {"--pool", "16"},
	"search":        {"--concurrency", "1..64x2"},
	"max-warmup":    {"--warmup", "auto"},
	"min-warmup":    {"--warmup", "auto"},
	"precision":     {"--duration", "auto"},
	"resolution":    {"--search", "knee", "--concurrency", "1..64x2"},
	"budget":        {"--search", "knee", "--concurrency", "1..64x2", "--duration", "100ms", "--warmup", "0s"},
	"slo-p99":       {"--search", "pool", "--concurrency", "1..64x2"},
	"agents":        {"--agent-index", "0", "--run-id", "r", "--uri", "mongodb://h/"},
	"agent-index":   {"--agents", "1024", "--run-id", "r", "--uri", "mongodb://h/"},
	"agent-timeout": {"--agents", "2", "--agent-index", "0", "--run-id", "r", "--uri", "mongodb://h/"},
	"agent-silence": {"--agents", "2", "--agent-index", "0", "--run-id", "r", "--uri", "mongodb://h/"},
	"run-id":        {"--agents", "2", "--agent-index", "0", "--uri", "mongodb://h/"},
}

// TestHostileFlags walks every flag of every command, by what the flag
// declares it takes (cli/cmdutil/flags.go), and gives it hostile values: numbers
// that overflow, are not finite, or are out of range; durations too long
// for a Duration; lists whose steps never end or end at once; words not in
// the set; empty values, whitespace and control characters. Each run is
// in-process with the commands that connect or start a server stopped
// after validation (dryRunners), under a time bound. A value outside the
// declared range (by this test's own parse) must be refused with exit 2
// and one line naming the flag; any value is either refused so or
// accepted (exit 0) — never a hang, a panic, another status, or a control
// character on the terminal. A flag registered any other way fails the
// test, so a new one cannot escape it. Each command's walk runs in a test
// process of its own (it changes directory), all of them at once: the
// values are many, and the accepted ones draw figures.
func TestHostileFlags(t *testing.T) {
	if !ownProcessChild() { // a walk changes directory: no ancestor of it may be parallel
		t.Parallel()
	}
	root := newRootCmd(&env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, dryRunners)
	if ownProcessChild() {
		for _, cmd := range root.Commands() {
			t.Run(cmd.Name(), func(t *testing.T) {
				if inOwnProcessChild(t) {
					hostileWalk(t, cmd.Name())
				}
			})
		}
		return
	}
	// Every command's walk in a process of its own, all started now.
	waits := map[string]func(*testing.T){}
	for _, cmd := range root.Commands() {
		waits[cmd.Name()] = ownProcess(t, t.Name()+"/"+cmd.Name())
	}
	for _, cmd := range root.Commands() {
		t.Run(cmd.Name(), func(t *testing.T) { waits[cmd.Name()](t) })
	}
}

// hostileWalk gives every flag of the command name its hostile values
// (see TestHostileFlags), from a working directory of the test's own.
func hostileWalk(t *testing.T, name string) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.jsonl")
	simRun, err := filepath.Abs(simRun)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(simRun)
	if err != nil {
		t.Fatal(err)
	}
	fromLog, err := filepath.Abs(realLog)
	if err != nil {
		t.Fatal(err)
	}
	// Paths among the hostile values ("0", "NaN") are written relative to
	// the working directory: the test's own, not the package's.
	t.Chdir(dir)
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// What each command needs to get as far as its flags' use.
	base := map[string][]string{
		"sweep":    {"--target", "s=sim:slots=8"},
		"serve":    {"--sim", "slots=8"},
		"inspect":  {"--uri", "mongodb://h/"},
		"analyze":  {simRun},
		"plot":     {simRun, "-o", filepath.Join(dir, "figs"), "--figure", "throughput"}, // one figure: PNGs are this test's cost
		"report":   {simRun, "-o", filepath.Join(dir, "r.html")},
		"compare":  {simRun, other},
		"merge":    {simRun, "-o", filepath.Join(dir, "m.jsonl")},
		"fleet":    {simRun, "--instances", "4"},
		"storm":    {"--target", "s=sim:slots=8", "-o", filepath.Join(dir, "storm.jsonl")},
		"workload": {"from-log", fromLog},
	}
	root := newRootCmd(&env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, dryRunners)
	tried := 0
	for _, cmd := range root.Commands() {
		if cmd.Name() != name {
			continue
		}
		args, ok := base[cmd.Name()]
		if !ok {
			t.Errorf("command %s has no base arguments in this test", cmd.Name())
			continue
		}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() == "bool" {
				return
			}
			d, ok := asDeclared(f.Value)
			if !ok {
				t.Errorf("%s --%s (%s) is not declared through cli/cmdutil: its range is nobody's", cmd.Name(), f.Name, f.Value.Type())
				return
			}
			if lo, hi, _, _, ok := limitsOf(d); ok {
				// A declared range is a bound, not a formality: nothing a
				// sweep plans needs more than these.
				limit := map[string]float64{"int": 1e8, "uint64": 1e8, "float": 1e4, "percent": 1e4, "duration": float64(7 * 24 * time.Hour)}[d.Type()]
				if lo < 0 || hi > limit {
					t.Errorf("%s --%s declares %s: wider than any use (at most %g)", cmd.Name(), f.Name, d.Accepts(), limit)
				}
			}
			values, inRange := hostileFor(d)
			values = append(values, mustRefuse[f.Name]...)
			var context []string
			if cmd.Name() == "sweep" {
				context = flagContext[f.Name]
			}
			names := func(line string) bool {
				return strings.Contains(line, "--"+f.Name+":") || f.Shorthand != "" && strings.Contains(line, "-"+f.Shorthand+":")
			}
			for _, v := range values {
				tried++
				argv := append(append(append([]string{cmd.Name()}, args...), context...), "--"+f.Name+"="+v)
				code, stdout, stderr := runBounded(t, argv)
				refused := code == errext.ExitUsage
				line := strings.TrimSpace(stderr)
				switch {
				case code != errext.ExitOK && code != errext.ExitUsage:
					t.Errorf("%s --%s=%q: exit %d, want 0 or 2\n%s", cmd.Name(), f.Name, v, code, stderr)
				case refused && (strings.Contains(line, "\n") || !strings.Contains(line, " -")):
					t.Errorf("%s --%s=%q: refused with %q, want one line naming a flag", cmd.Name(), f.Name, v, stderr)
				case !refused && (inRange != nil && !inRange(v) || contains(mustRefuse[f.Name], v)):
					t.Errorf("%s --%s=%q (%s): accepted a value outside what the flag declares", cmd.Name(), f.Name, v, d.Accepts())
				case (inRange != nil && !inRange(v) || contains(mustRefuse[f.Name], v)) && !names(line):
					t.Errorf("%s --%s=%q: refused, but the line does not name the flag: %q", cmd.Name(), f.Name, v, line)
				case strings.ContainsAny(stderr+stdout, "\x00\x1b\r"):
					t.Errorf("%s --%s=%q: a raw control character reached the terminal: %q", cmd.Name(), f.Name, v, stderr)
				case strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "internal error"):
					t.Errorf("%s --%s=%q: %s", cmd.Name(), f.Name, v, stderr)
				}
			}
			for _, v := range mustAccept[f.Name] {
				argv := append(append(append([]string{cmd.Name()}, args...), context...), "--"+f.Name+"="+v)
				if code, _, stderr := runBounded(t, argv); code != errext.ExitOK {
					t.Errorf("%s --%s=%q: exit %d, want the limit accepted\n%s", cmd.Name(), f.Name, v, code, stderr)
				}
			}
		})
	}
	t.Logf("%d hostile values tried", tried)
}

// hostileFor is the hostile values for a flag by what it declares, and,
// where the test can tell by its own parse, which of them lie in range
// (nil: the flag's own check decides).
func hostileFor(d cmdutil.Declared) ([]string, func(string) bool) {
	if lo, hi, openLo, openHi, ok := limitsOf(d); ok {
		// A nonzero value nearer 0 than the smallest normal float64 (a
		// denormal), or than the flag's own least (a percentage's), is out.
		least := 0x1p-1022
		if l, ok := d.(interface{ Least() float64 }); ok {
			least = max(least, l.Least())
		}
		within := func(x float64) bool {
			return !math.IsNaN(x) && !math.IsInf(x, 0) && (x > lo || !openLo && x == lo) && (x < hi || !openHi && x == hi) &&
				(x == 0 || math.Abs(x) >= least)
		}
		// strconv reads more than a decimal (hex floats, underscores)
		// and rounds what underflows to 0; the flags take decimals only.
		decimal := func(s string) (float64, bool) {
			if s == "" || strings.Trim(s, "0123456789.eE+-") != "" {
				return 0, false
			}
			x, err := strconv.ParseFloat(s, 64)
			m, _, _ := strings.Cut(strings.ToLower(s), "e")
			return x, err == nil && (x != 0 || !strings.ContainsAny(m, "123456789"))
		}
		switch d.Type() {
		case "duration":
			return append(append([]string{}, hostileDurations...), hostileNumbers...), func(s string) bool {
				x, err := time.ParseDuration(s)
				return err == nil && within(float64(x))
			}
		case "float":
			return hostileNumbers, func(s string) bool {
				x, ok := decimal(s)
				return ok && within(x)
			}
		case "percent":
			return append(append([]string{}, hostileNumbers...), hostilePercents...), func(s string) bool {
				x, ok := decimal(strings.TrimSuffix(s, "%"))
				return ok && within(x)
			}
		default: // int, uint64
			return hostileNumbers, func(s string) bool {
				x, err := strconv.ParseInt(s, 10, 64)
				return err == nil && within(float64(x))
			}
		}
	}
	if max, match, ok := levelsOf(d); ok {
		return hostileLists, func(s string) bool {
			if match && s == "match" {
				return true
			}
			levels, err := plan.ParseLevels(s, max)
			if err != nil {
				return false
			}
			for _, l := range levels {
				if l < 1 || l > max {
					return false
				}
			}
			return true
		}
	}
	if choices, list, ok := choicesOf(d); ok {
		return append(append([]string{}, hostileWords...), hostileNumbers...), func(s string) bool {
			words := []string{s}
			if list {
				words = strings.Split(s, ",")
			}
			for _, w := range words {
				if !contains(choices, strings.TrimSpace(w)) {
					return false
				}
			}
			return true
		}
	}
	return append(append([]string{}, hostileText...), hostileNumbers...), func(s string) bool { return strings.TrimSpace(s) != "" }
}

// Every command's flags are declared through cli/cmdutil: asDeclared
// sees them, and limitsOf, levelsOf and choicesOf read what each
// declares.

// asDeclared is v as a declared flag, and whether it is one.
func asDeclared(v pflag.Value) (cmdutil.Declared, bool) {
	d, ok := v.(cmdutil.Declared)
	return d, ok
}

// limitsOf is a number flag's range.
func limitsOf(d cmdutil.Declared) (lo, hi float64, openLo, openHi, ok bool) {
	if n, isNum := d.(interface {
		Limits() (lo, hi float64, openLo, openHi bool)
	}); isNum {
		lo, hi, openLo, openHi = n.Limits()
		return lo, hi, openLo, openHi, true
	}
	return 0, 0, false, false, false
}

// levelsOf is a list-of-levels flag's highest level and whether it takes
// "match".
func levelsOf(d cmdutil.Declared) (max int, match, ok bool) {
	if l, isLevels := d.(interface{ Levels() (int, bool) }); isLevels {
		max, match = l.Levels()
		return max, match, true
	}
	return 0, false, false
}

// choicesOf is a word flag's words and whether it takes a list of them.
func choicesOf(d cmdutil.Declared) (choices []string, list, ok bool) {
	if c, isChoice := d.(interface{ Choices() ([]string, bool) }); isChoice {
		choices, list = c.Choices()
		return choices, list, true
	}
	return nil, false, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// runBounded runs argv in-process with the dry runners and fails the test
// if it does not return within 30 s: a value that hangs a command is the
// defect this test is for.
func runBounded(t *testing.T, argv []string) (int, string, string) {
	t.Helper()
	return runWithinUsing(t, 30*time.Second, dryRunners, argv...)
}
