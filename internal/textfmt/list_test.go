package textfmt

import (
	"strconv"
	"testing"
)

// TestList: up to ListMax items are joined whole; past it the rest are
// counted, so the line does not grow with the list.
func TestList(t *testing.T) {
	var many []string
	for i := range 1000 {
		many = append(many, "t"+strconv.Itoa(i))
	}
	for _, tt := range []struct {
		items []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{many[:8], "t0, t1, t2, t3, t4, t5, t6, t7"},
		{many[:9], "t0, t1, t2, t3, t4, t5, t6, t7, and 1 more"},
		{many, "t0, t1, t2, t3, t4, t5, t6, t7, and 992 more"},
	} {
		if got := List(tt.items, ", "); got != tt.want {
			t.Errorf("%d items: %q, want %q", len(tt.items), got, tt.want)
		}
	}
}
