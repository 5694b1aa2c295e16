package sweep

import (
	"errors"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/internal/errext"
)

// TestServerParamFlags: --server-param makes a series per value (every
// combination of two parameters), named NAME=V after the workload's own
// label; what the command line alone shows wrong is refused naming the
// flag.
func TestServerParamFlags(t *testing.T) {
	t.Parallel()
	cfg, err := parseSweep([]string{"--target", "a=sim:slots=8", "--concurrency", "4", "--workload", "read",
		"--server-param", "x=1,2", "--server-param", "y.z=on,off", "--server-param-hosts", "shards"})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, w := range cfg.workloads {
		labels = append(labels, w.Label)
		if len(w.ServerParams) != 2 || w.ServerParams[0].Name != "x" || w.ServerParams[1].Name != "y.z" {
			t.Errorf("%s: params %+v", w.Label, w.ServerParams)
		}
	}
	if got := strings.Join(labels, "|"); got != "read x=1 y.z=on|read x=1 y.z=off|read x=2 y.z=on|read x=2 y.z=off" {
		t.Errorf("series %s", got)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--server-param", "x"}, `--server-param`},
		{[]string{"--server-param", "=1"}, "no parameter name"},
		{[]string{"--server-param", "x=1,,2"}, "x: an empty value"},
		{[]string{"--server-param", "x=1,1"}, "x: 1 is given twice"},
		{[]string{"--server-param", "x=a b"}, "holds a space"},
		{[]string{"--server-param", "x$=1"}, "is not a parameter name"},
		{[]string{"--server-param", "x=1", "--server-param", "x=2"}, "--server-param: x is given twice"},
		{[]string{"--server-param-hosts", "routers"}, "--server-param-hosts: only with --server-param"},
		{[]string{"--server-param", "x=1", "--server-param-hosts", "everywhere"}, "--server-param-hosts"},
		{[]string{"--server-param", "x=1", "--agents", "2", "--agent-index", "0"}, "--server-param: server parameters are set by one process"},
	} {
		_, err := parseSweep(append([]string{"--target", "a=sim:slots=8", "--concurrency", "4"}, tc.args...))
		var u errext.UsageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || (!errors.As(err, &u) && !strings.Contains(err.Error(), "invalid argument")) {
			t.Errorf("%v: %v, want a refusal naming %q", tc.args, err, tc.want)
		}
	}
}
