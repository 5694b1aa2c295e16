// Package corpus reads the corpus of real MongoDB servers' replies in
// testdata/servers (its README says where each reply comes from) for the
// tests that hold poolsweep to them: the simulator's conformance test, the
// telemetry parser's goldens and its read-paths check. It finds the folder
// from its own source file, so it works from any package's tests. FileName
// names a reply as the corpus does, for inspect --save-replies.
//
// It also holds the tests' one fixture of real servers' FTDC: FTDCFolder
// copies captures of testdata/ftdc into a diagnostic.data folder, through
// internal/outfile.
package corpus

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/serverversion"
)

// Dir is the corpus folder, testdata/servers at the module's root.
func Dir() string { return testdata("servers") }

// testdata is the folder name of testdata at the module's root, found
// from this source file.
func testdata(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", name)
}

// nameRE is the regular shape of a corpus file name:
// <command>.<process>[-<role>]-<version>[.<variant>].json, version being
// a server's version string as serverversion reads it (7.0.14,
// 7.0.0-rc6, 8.0.0-poolsweep-sim), a series (x.y) for a reply built from
// the manual, "unknown-<year>" for a capture whose version was not
// recorded, or "unknown" for one that --save-replies could not name.
var nameRE = regexp.MustCompile(`^([A-Za-z]+)\.(mongod|mongos)(-[a-z]+(?:-[a-z]+)?)?-(` + serverversion.Pattern + `|` + Unknown + `(?:-\d{4})?)(\.[a-z]+)?\.json$`)

// Unknown is the version in the name of a reply whose server reported no
// version, or one no server reports.
const Unknown = "unknown"

var unknownYear = regexp.MustCompile(`^unknown-\d{4}$`)

// File is what a corpus file's name says about its reply.
type File struct {
	Name, Command, Process, Role, Version, Variant string
}

// Manual reports whether the reply was built from the manual, not captured.
func (f File) Manual() bool { return f.Variant == ".manual" }

// ParseName splits a file name; ok is false for a name off the pattern.
func ParseName(name string) (File, bool) {
	m := nameRE.FindStringSubmatch(name)
	if m == nil {
		return File{}, false
	}
	return File{Name: name, Command: m[1], Process: m[2], Role: strings.TrimPrefix(m[3], "-"), Version: m[4], Variant: m[5]}, true
}

// FileName is the corpus name of a reply: command, process, role (may be
// empty), version and variant ("" for a capture, "manual", "edited"). A
// version serverversion does not read is named Unknown, so that every
// name written here is one ParseName reads back.
func FileName(command, process, role, version, variant string) string {
	if _, ok := serverversion.Parse(version); !ok && version != Unknown && !unknownYear.MatchString(version) {
		version = Unknown
	}
	name := command + "." + process
	if role != "" {
		name += "-" + role
	}
	name += "-" + version
	if variant != "" {
		name += "." + variant
	}
	return name + ".json"
}

// Files lists every reply in the corpus.
func Files() ([]File, error) {
	entries, err := os.ReadDir(Dir())
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	var files []File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		f, ok := ParseName(e.Name())
		if !ok {
			return nil, fmt.Errorf("corpus file %s: name is not <command>.<process>[-<role>]-<version>[.<variant>].json", e.Name())
		}
		files = append(files, f)
	}
	return files, nil
}

// Load reads one corpus file into bson.Raw (Extended JSON v2, canonical
// where the source kept the types).
func Load(name string) (bson.Raw, error) {
	data, err := os.ReadFile(filepath.Join(Dir(), name))
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	var raw bson.Raw
	if err := bson.UnmarshalExtJSON(data, true, &raw); err != nil {
		return nil, fmt.Errorf("corpus %s: %w", name, err)
	}
	return raw, nil
}

// ReadPath is one line of read-paths.txt: a field poolsweep reads.
type ReadPath struct {
	Command string
	Path    []string
}

// String is the line as read-paths.txt writes it.
func (p ReadPath) String() string { return p.Command + " " + strings.Join(p.Path, ".") }

// ReadPaths loads testdata/servers/read-paths.txt.
func ReadPaths() ([]ReadPath, error) {
	f, err := os.Open(filepath.Join(Dir(), "read-paths.txt"))
	if err != nil {
		return nil, fmt.Errorf("read paths: %w", err)
	}
	defer f.Close()
	var out []ReadPath
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmd, path, ok := strings.Cut(line, " ")
		if !ok {
			return nil, fmt.Errorf("read-paths.txt: %q: want <command> <dotted path>", line)
		}
		out = append(out, ReadPath{Command: cmd, Path: strings.Split(path, ".")})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read paths: %w", err)
	}
	return out, nil
}

// Listed is every field poolsweep reads, as read-paths.txt lists them,
// from a copy compiled in (the file itself is only in the source tree).
func Listed() []ReadPath {
	out := make([]ReadPath, 0, len(listed))
	for _, l := range listed {
		cmd, path, _ := strings.Cut(l, " ")
		out = append(out, ReadPath{Command: cmd, Path: strings.Split(path, ".")})
	}
	return out
}
