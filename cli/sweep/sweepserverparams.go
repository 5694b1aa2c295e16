package sweep

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plan"
	sweeplib "github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/workload"
)

// Server settings as an axis within one run (--server-param NAME=V1,V2,
// --server-param-hosts): each value is a series, set on the servers
// before its steps and set back at the end (sweep's serverparams.go).
// The flag is the opt-in: without it poolsweep changes no server setting.
// What a server refuses is asked of the servers before any load; here
// the text is read.

// serverParamOptions are the flags' values.
type serverParamOptions struct {
	serverParams     []string // --server-param, each NAME=V1,V2
	serverParamHosts string   // --server-param-hosts
}

// Bounds of --server-param: a parameter name of the servers' is a few
// dozen characters; a value of a runtime setting is a number, a word or
// a short text.
const (
	maxParamName  = 128
	maxParamValue = 256
	maxParams     = 8
)

// addServerParamFlags registers --server-param and --server-param-hosts.
func (o *Options) addServerParamFlags(f *pflag.FlagSet) {
	cmdutil.TextArrayVar(f, &o.serverParams, "server-param", "NAME=V1,V2", checkServerParam,
		"a server parameter to sweep within the run (repeatable), each value its own series named NAME=V: set with setParameter before its steps on every host it belongs to, read back with getParameter into each step, the values taking turns trial by trial, and the originals (recorded in poolsweep_meta first) set back at the end, on an error or a signal, and by --resume after a crash; a startup-only or unknown parameter, a value of the wrong type or a user without the privilege is refused before any load, e.g. wiredTigerConcurrentReadTransactions=8,128 or ShardingTaskExecutorPoolMaxSize=4,32; compare --baseline NAME=V1 --candidate NAME=V2 concludes within the run")
	cmdutil.ChoiceVar(f, &o.serverParamHosts, "server-param-hosts", "", sweeplib.ParamHostChoices, false,
		"where --server-param sets its parameters: routers (a cluster's mongos), shards (every member of every shard), mongods (a standalone, a replica set's members, or a cluster's shards), all (routers and shards); default: the mongods, or on a cluster the routers when they have the parameter, else the shards")
	// The agents of --spawn would each set the servers' parameters: the
	// flags are refused with them (checkServerParamAgents).
	travel(f, travelNever, "server-param", "server-param-hosts")
}

// parseServerParam reads NAME=V1,V2,…: a name of the servers' kind
// (letters, digits, '.', '_'), and values without spaces, each once.
func parseServerParam(s string) (workload.ParamAxis, error) {
	name, list, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	switch {
	case !ok:
		return workload.ParamAxis{}, fmt.Errorf("%s is not NAME=V1,V2", textfmt.Token(s))
	case name == "":
		return workload.ParamAxis{}, errors.New("no parameter name before =")
	case len(name) > maxParamName:
		return workload.ParamAxis{}, fmt.Errorf("the name %s is longer than %d bytes", textfmt.Token(name), maxParamName)
	}
	for _, r := range name {
		if !(r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return workload.ParamAxis{}, fmt.Errorf("%s is not a parameter name (letters, digits, '.' and '_')", textfmt.Token(name))
		}
	}
	var values []string
	for _, v := range strings.Split(list, ",") {
		v = strings.TrimSpace(v)
		switch {
		case v == "":
			return workload.ParamAxis{}, fmt.Errorf("%s: an empty value", textfmt.Short(name))
		case len(v) > maxParamValue:
			return workload.ParamAxis{}, fmt.Errorf("%s: the value %s is longer than %d bytes", textfmt.Short(name), textfmt.Token(v), maxParamValue)
		case strings.ContainsFunc(v, func(r rune) bool { return r <= ' ' || r == 0x7f }):
			// A value is a word of a series label.
			return workload.ParamAxis{}, fmt.Errorf("%s: the value %s holds a space or a control character", textfmt.Short(name), textfmt.Token(v))
		case slices.Contains(values, v):
			return workload.ParamAxis{}, fmt.Errorf("%s: %s is given twice", textfmt.Short(name), textfmt.Short(v))
		}
		if values = append(values, v); len(values) > plan.MaxAxisValues {
			return workload.ParamAxis{}, fmt.Errorf("%s: more than %d values", textfmt.Short(name), plan.MaxAxisValues)
		}
	}
	return workload.ParamAxis{Name: name, Values: values}, nil
}

func checkServerParam(s string) error {
	_, err := parseServerParam(s)
	return err
}

// serverParamAxes reads every --server-param, refusing a parameter given
// twice and --server-param-hosts without one.
func (o *Options) serverParamAxes() ([]workload.ParamAxis, error) {
	if o.changed("server-param-hosts") && !o.changed("server-param") {
		return nil, errext.Usagef("--server-param-hosts: only with --server-param")
	}
	if len(o.serverParams) > maxParams {
		return nil, errext.Usagef("--server-param: %d parameters, more than the %d one run sweeps", len(o.serverParams), maxParams)
	}
	var axes []workload.ParamAxis
	for _, s := range o.serverParams {
		a, err := parseServerParam(s)
		if err != nil {
			return nil, errext.Usagef("--server-param: %w", err)
		}
		for _, b := range axes {
			if b.Name == a.Name {
				return nil, errext.Usagef("--server-param: %s is given twice (give its values in one list)", textfmt.Short(a.Name))
			}
		}
		axes = append(axes, a)
	}
	if len(axes) > 0 && (o.changed("spawn") || o.changed("agents")) {
		// One process sets and restores a server's parameters; agents
		// would each change them under the others' steps.
		return nil, errext.Usagef("--server-param: server parameters are set by one process (use --clients); several agents are not supported")
	}
	return axes, nil
}
