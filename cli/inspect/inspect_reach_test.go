package inspect

import "testing"

func TestReadsReach(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode string
		n    int
		want int
	}{
		{"primary", 3, 1},            // the default: the primary only
		{"primaryPreferred", 3, 1},   // the primary while there is one
		{"secondaryPreferred", 3, 2}, // both secondaries
		{"secondary", 5, 4},          // every secondary
		{"nearest", 3, 3},            // any member
		{"secondary", 1, 1},          // a one-member set has no secondary: never 0
	} {
		if got := readsReach(c.mode, c.n); got != c.want {
			t.Errorf("readsReach(%s, %d) = %d, want %d", c.mode, c.n, got, c.want)
		}
	}
}
