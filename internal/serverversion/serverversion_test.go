package serverversion_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/ftdc"
	"github.com/poolsweep/poolsweep/internal/corpus"
	"github.com/poolsweep/poolsweep/internal/serverversion"
)

// TestParse: the version strings servers report, and strings none does.
func TestParse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in                  string
		major, minor, patch int
		suffix              string
	}{
		{"7.0.14", 7, 0, 14, ""},
		{"3.6.20", 3, 6, 20, ""},
		{"8.0", 8, 0, -1, ""},                                         // a series, as the manual's replies name it
		{"8.0.0-poolsweep-sim", 8, 0, 0, "poolsweep-sim"},             // the simulator
		{"7.0.0-rc6", 7, 0, 0, "rc6"},                                 // a release candidate (real FTDC in testdata/ftdc)
		{"4.4.29-rc0", 4, 4, 29, "rc0"},                               // a patch release's candidate
		{"8.0.4-ent", 8, 0, 4, "ent"},                                 // a vendor's mark
		{"6.0.15-12", 6, 0, 15, "12"},                                 // Percona Server for MongoDB
		{"8.1.0-alpha-1234-gabcdef0", 8, 1, 0, "alpha-1234-gabcdef0"}, // a development build
		{"8.3.2", 8, 3, 2, ""},
		{"2.6.12.1", 2, 6, 12, ""}, // four numbers
	} {
		v, ok := serverversion.Parse(tt.in)
		if !ok || v.Major != tt.major || v.Minor != tt.minor || v.Patch != tt.patch || v.Suffix != tt.suffix || v.Text != tt.in {
			t.Errorf("%q: %+v %v", tt.in, v, ok)
		}
	}
	for _, in := range []string{
		"", "7", "v7.0.14", "7.0.", "7.0.0-", "7.0.0-rc6.manual", "7.0.0 ", " 7.0.0", "7.0.0-rc 6",
		"7.0.0/../x", "7.0.0-\x00", "7.0.0-é", "1.2.3.4.5", "unknown", "7.0.0-" + strings.Repeat("a", 60),
	} {
		if v, ok := serverversion.Parse(in); ok {
			t.Errorf("%q read as %+v", in, v)
		}
	}
}

// TestRealVersions: every version string in the captured replies of
// testdata/servers (buildInfo and serverStatus) and in the real FTDC of
// testdata/ftdc (serverStatus.version of each chunk's reference) parses,
// and names a corpus file that reads back with that version.
func TestRealVersions(t *testing.T) {
	t.Parallel()
	files, err := corpus.Files()
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, f := range files {
		if f.Command != "buildInfo" && f.Command != "serverStatus" {
			continue
		}
		raw, err := corpus.Load(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := raw.Lookup("version").StringValueOK(); ok {
			versions = append(versions, v)
		}
	}
	ents, err := os.ReadDir(corpus.FTDCDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "metrics") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(corpus.FTDCDir(), e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		r := ftdc.NewReader(bytes.NewReader(data))
		for {
			d, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", e.Name(), err)
			}
			if d.Kind != ftdc.MetricChunk {
				continue
			}
			c, err := ftdc.DecodeChunk(d.Data)
			if err != nil {
				t.Fatalf("%s: %v", e.Name(), err)
			}
			if v, ok := ftdc.Section(c.Reference, "serverStatus").Lookup("version").StringValueOK(); ok {
				versions = append(versions, v)
			}
		}
	}
	if len(versions) < 30 {
		t.Fatalf("only %d versions found: the test would prove little", len(versions))
	}
	suffixed := 0
	for _, v := range versions {
		pv, ok := serverversion.Parse(v)
		if !ok {
			t.Errorf("a real server's version %q does not parse", v)
			continue
		}
		if pv.Suffix != "" {
			suffixed++
		}
		name := corpus.FileName("serverStatus", "mongod", "", v, "")
		if f, ok := corpus.ParseName(name); !ok || f.Version != v {
			t.Errorf("%s (version %q) reads back as %+v, %v", name, v, f, ok)
		}
	}
	if suffixed == 0 {
		t.Error("no suffixed version among the real ones (7.0.0-rc6's FTDC)")
	}
}
