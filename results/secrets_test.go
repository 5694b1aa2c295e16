package results

import (
	"strings"
	"testing"
)

// TestReadResultsNeverQuotesIt: wherever a file puts a secret
// (the record's kind, a target, a time, a pool setting, a map key, bytes
// that are not JSON), the error names the line and field and shows none
// of it.
func TestReadResultsNeverQuotesIt(t *testing.T) {
	const secret = "HUNTER2SECRET"
	header := line(t, testHeader())
	step := line(t, testStep(1))
	twice := testHeader()
	twice.Targets = append(twice.Targets, twice.Targets[0])
	twice.Targets[1].Name = twice.Targets[0].Name
	for _, tt := range []struct{ name, body, want string }{
		{"a first line's kind", `{"kind":"` + secret + `"}` + "\n", "f.jsonl:1: not a poolsweep results file"},
		{"a later record's kind", header + `{"kind":"` + secret + `"}` + "\n", "f.jsonl:2: a record of an unknown kind"},
		{"not JSON after the header", header + secret + "\n" + step, "f.jsonl:2: not a JSON record (truncated file?): broken at byte 1"},
		{"a string broken by a control byte", header + `{"kind":"step","target":"` + secret + "\x01\"}\n" + step, "f.jsonl:2: not a JSON record"},
		{"a target not in the header", header + stepWith(t, "target", secret), "step.target: not one of the run header's 1 target(s)"},
		{"a time", header + stepWith(t, "started_at", secret), "f.jsonl:2: step: a time that is not RFC 3339"},
		{"a pool setting", header + stepWith(t, "pool_setting", secret), `step.pool_setting: not "match"`},
		{"an enum", header + stepWith(t, "bound", secret), "step.bound: not one of"},
		{"an op type's key", header + stepWith(t, "ops_by_type", map[string]any{secret + " x": map[string]any{"count": -1}}), "step.ops_by_type.(a key that is not an op type).count"},
		{"a target named twice", line(t, twice) + step, "run.targets[1].name: the name of an earlier target"},
	} {
		_, err := ReadResults(strings.NewReader(tt.body), "f.jsonl")
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), secret) {
			t.Errorf("%s: err = %v, want %q and no secret", tt.name, err, tt.want)
		}
	}
}
