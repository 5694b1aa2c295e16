package corpus

import (
	"strings"
	"testing"
)

// TestFileNameReadsBack: every name FileName gives, whatever version and
// role a server reports, is one ParseName reads back with the same
// command, process, role and version; a version no server reports is
// named "unknown".
func TestFileNameReadsBack(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ version, want string }{
		{"7.0.14", "7.0.14"},
		{"8.0.0-poolsweep-sim", "8.0.0-poolsweep-sim"},
		{"7.0.0-rc6", "7.0.0-rc6"},
		{"4.4.29-rc0", "4.4.29-rc0"},
		{"8.0.4-ent", "8.0.4-ent"},
		{"6.0.15-12", "6.0.15-12"},
		{"8.1.0-alpha-1234-gabcdef0", "8.1.0-alpha-1234-gabcdef0"},
		{"8.0", "8.0"},
		{"unknown-2020", "unknown-2020"},
		{"", "unknown"},
		{"unknown", "unknown"},
		{"seven", "unknown"},
		{"7.0.0/../../etc", "unknown"},
		{"7.0.0-rc6.manual", "unknown"},
		{strings.Repeat("7", 5000), "unknown"},
	} {
		for _, role := range []string{"", "standalone", "replset-primary", "replset-secondary"} {
			name := FileName("hello", "mongod", role, tt.version, "")
			f, ok := ParseName(name)
			if !ok || f.Command != "hello" || f.Process != "mongod" || f.Role != role || f.Version != tt.want || f.Variant != "" {
				t.Errorf("version %.20q role %q: %s reads back as %+v, %v", tt.version, role, name, f, ok)
			}
		}
	}
	if f, ok := ParseName("serverStatus.mongod-7.0.0-rc6.manual.json"); !ok || f.Version != "7.0.0-rc6" || f.Variant != ".manual" {
		t.Errorf("a variant after a suffixed version: %+v, %v", f, ok)
	}
}
