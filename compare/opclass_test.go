package compare

import (
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// The read and write classes are results.OpClassOf's (tested here because
// the sweep package is not this helper's to add test files to).
func TestOpClassOf(t *testing.T) {
	tests := []struct {
		op, want string
	}{
		{results.TypeFind, results.OpClassRead},    // what the recorder writes for reads
		{results.TypeScan, results.OpClassRead},    // a range read is a read
		{results.TypeUpdate, results.OpClassWrite}, // what the recorder writes for writes
		{results.TypeInsert, results.OpClassWrite},
		{"getMore", results.OpClassRead}, // MongoDB's spelling, case-insensitive
		{"delete", results.OpClassWrite}, // a write the recorder does not issue yet
		{"findAndModify", results.OpClassWrite},
		{"hello", ""}, // neither: never bends read or write latency
		{"", ""},
	}
	for _, tt := range tests {
		if got := results.OpClassOf(tt.op); got != tt.want {
			t.Errorf("OpClassOf(%q) = %q, want %q", tt.op, got, tt.want)
		}
		if isRead(tt.op) != (tt.want == results.OpClassRead) || isWrite(tt.op) != (tt.want == results.OpClassWrite) {
			t.Errorf("%q: isRead %v isWrite %v, want class %q", tt.op, isRead(tt.op), isWrite(tt.op), tt.want)
		}
	}
}
