package sweep

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// TestHostsName: a --uri's target is named by its hosts within
// results.MaxTargetName bytes, saying how many are left out, so that no
// URI stretches a table or a progress line, and a results file's reader
// takes the name.
func TestHostsName(t *testing.T) {
	t.Parallel()
	many := make([]string, 50)
	for i := range many {
		many[i] = "node" + strings.Repeat("x", i%7) + ".example.internal:27017"
	}
	for _, tt := range []struct {
		hosts []string
		want  string
	}{
		{[]string{"a:27017"}, "a:27017"},
		{[]string{"a:27017", "b:27017"}, "a:27017,b:27017"},
		{many, "node.example.internal:27017,nodex.example.internal:27017 +48"},
		{[]string{strings.Repeat("h", 5000) + ":27017"}, strings.Repeat("h", 61) + "…"},
		{[]string{strings.Repeat("h", 5000), "b:1"}, strings.Repeat("h", 58) + "… +1"},
	} {
		got := hostsName(tt.hosts)
		if got != tt.want || len(got) > results.MaxTargetName {
			t.Errorf("%d hosts: %q (%d bytes), want %q", len(tt.hosts), got, len(got), tt.want)
		}
	}
}
