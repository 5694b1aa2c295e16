package compare

import (
	"testing"

	"github.com/poolsweep/poolsweep/sweep"
)

// The read and write classes are sweep.OpClassOf's (tested here because
// the sweep package is not this helper's to add test files to).
func TestOpClassOf(t *testing.T) {
	tests := []struct {
		op, want string
	}{
		{sweep.TypeFind, sweep.OpClassRead},    // what the recorder writes for reads
		{sweep.TypeScan, sweep.OpClassRead},    // a range read is a read
		{sweep.TypeUpdate, sweep.OpClassWrite}, // what the recorder writes for writes
		{sweep.TypeInsert, sweep.OpClassWrite},
		{"getMore", sweep.OpClassRead}, // MongoDB's spelling, case-insensitive
		{"delete", sweep.OpClassWrite}, // a write the recorder does not issue yet
		{"findAndModify", sweep.OpClassWrite},
		{"hello", ""}, // neither: never bends read or write latency
		{"", ""},
	}
	for _, tt := range tests {
		if got := sweep.OpClassOf(tt.op); got != tt.want {
			t.Errorf("OpClassOf(%q) = %q, want %q", tt.op, got, tt.want)
		}
		if isRead(tt.op) != (tt.want == sweep.OpClassRead) || isWrite(tt.op) != (tt.want == sweep.OpClassWrite) {
			t.Errorf("%q: isRead %v isWrite %v, want class %q", tt.op, isRead(tt.op), isWrite(tt.op), tt.want)
		}
	}
}
