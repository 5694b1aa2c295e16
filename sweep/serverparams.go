package sweep

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/teardown"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep/failpoint"
	"github.com/poolsweep/poolsweep/topology"
)

// Server parameters as an axis within one run (sweep --server-param): each
// value is a series; before a series' steps the session sets its values
// with setParameter on every host the parameter belongs to, reads them
// back with getParameter into the step, and at the end sets the originals
// back. Every change goes through the target's failpoint.Guard, which
// records the original in poolsweep_meta before the first change, so the
// originals come back at the end, on an error, on a signal and at
// --resume after a crash.

// Which hosts --server-param-hosts sets a parameter on.
const (
	// ParamHostsAuto: a standalone's or replica set's mongods; on a
	// sharded cluster the routers when they have the parameter, else the
	// shards' mongods.
	ParamHostsAuto    = ""
	ParamHostsRouters = "routers"
	ParamHostsShards  = "shards"
	ParamHostsMongods = "mongods"
	ParamHostsAll     = "all"
)

// ParamHostChoices are --server-param-hosts' values.
var ParamHostChoices = []string{ParamHostsRouters, ParamHostsShards, ParamHostsMongods, ParamHostsAll}

// targetParams is what a target's parameters are set with: the hosts of
// each parameter, and each value as the BSON type its server reads.
type targetParams struct {
	hosts map[string][]string
	typed map[string]map[string]bson.RawValue // name → value as given → typed
	set   string                              // the series label words now in force
}

// paramAxes are the parameters the workloads sweep, each with its values
// in the order first seen.
func (s *Session) paramAxes() (names []string, values map[string][]string) {
	values = map[string][]string{}
	for _, w := range s.Workloads {
		for _, p := range w.ServerParams {
			if _, ok := values[p.Name]; !ok {
				names = append(names, p.Name)
			}
			if !slices.Contains(values[p.Name], p.Value) {
				values[p.Name] = append(values[p.Name], p.Value)
			}
		}
	}
	return names, values
}

// checkServerParams asks every target, before anything is loaded,
// whether each swept parameter can be set to each of its values on every
// host it belongs to: it reads the original, sets each value in turn
// (through the Guard: recorded first) and sets the original back. What
// the server refuses (a name it lacks, a startup-only parameter, a value
// of the wrong type, a user without the privilege) is bad input, said in
// one line with the server's reason.
//
// A new run's caller asks it once the targets are wired and before the
// plan line, so that a refusal is the run's last word; a resumed run
// asks it in Run, once the values an earlier process left are set back.
func (s *Session) CheckServerParams(ctx context.Context) error {
	if s.paramsChecked {
		return nil
	}
	s.paramsChecked = true
	names, values := s.paramAxes()
	if len(names) == 0 {
		return nil
	}
	s.params = map[string]*targetParams{}
	for _, t := range s.Targets {
		tp, err := s.checkTargetParams(ctx, t, names, values)
		if err != nil {
			if len(s.Targets) > 1 {
				var ue errext.UsageError
				if errors.As(err, &ue) {
					return errext.Usagef("target %s: %w", t.Header.Name, ue.Err)
				}
				return fmt.Errorf("target %s: %w", t.Header.Name, err)
			}
			return err
		}
		s.params[t.Header.Name] = tp
	}
	return nil
}

func (s *Session) checkTargetParams(ctx context.Context, t SessionTarget, names []string, values map[string][]string) (tp *targetParams, err error) {
	client, err := mongo.Connect(t.NewClient().SetMaxPoolSize(2).SetTimeout(failpoint.OffTimeout))
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	g := s.failPointGuard(client, t)
	defer func() {
		if cerr := g.Close(ctx); cerr != nil && err == nil {
			err = fmt.Errorf("--server-param: after trying the values: %w", cerr)
		}
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), disconnectTimeout)
		teardown.Within(dctx, func(ctx context.Context) { client.Disconnect(ctx) })
		cancel()
	}()
	tp = &targetParams{hosts: map[string][]string{}, typed: map[string]map[string]bson.RawValue{}}
	for _, name := range names {
		hosts, err := s.paramHostsOf(ctx, client, g, t.Header, name)
		if err != nil {
			return nil, err
		}
		tp.hosts[name] = hosts
		tp.typed[name] = map[string]bson.RawValue{}
		for _, host := range hosts {
			orig, err := g.GetParam(ctx, host, name)
			if err != nil {
				return nil, paramRefused(name, "", host, "getParameter", err)
			}
			for _, v := range values[name] {
				typed, err := typedLike(v, orig)
				if err != nil {
					return nil, errext.Usagef("--server-param %s=%s: %v", textfmt.Short(name), textfmt.Short(v), err)
				}
				tp.typed[name][v] = typed
			}
		}
		// Each value is tried once on every host before any load: the
		// server is the only judge of its range.
		for _, v := range values[name] {
			for _, host := range hosts {
				if _, err := g.SetParam(ctx, host, name, tp.typed[name][v]); err != nil {
					return nil, paramRefused(name, v, host, "setParameter", err)
				}
			}
		}
		if err := g.RestoreParams(ctx); err != nil {
			return nil, fmt.Errorf("--server-param %s: setting back the original after trying the values: %w", textfmt.Short(name), err)
		}
	}
	return tp, nil
}

// Codes real servers refuse getParameter and setParameter with.
const (
	codeBadValue         = 2
	codeUnauthorized     = 13
	codeIllegalOperation = 20
	codeInvalidOptions   = 72
)

// paramRefused words a server's refusal of a parameter (value "" for a
// read) as bad input naming the flag, with the server's own reason; an
// error that is not the server's answer (a network error) stays a failed
// run.
func paramRefused(name, value, host, command string, err error) error {
	flag := "--server-param " + textfmt.Short(name)
	if value != "" {
		flag += "=" + textfmt.Short(value)
	}
	var ce mongo.CommandError
	if !errors.As(err, &ce) {
		return fmt.Errorf("%s: %s on %s: %w", flag, command, host, err)
	}
	reason := textfmt.Line(ce.Message)
	switch ce.Code {
	case codeInvalidOptions:
		return errext.Usagef("%s: %s has no such parameter (%s: %s)", flag, host, command, reason)
	case codeIllegalOperation:
		return errext.Usagef("%s: %s cannot change it while it runs (%s); a startup setting is compared as two targets", flag, host, reason)
	case codeUnauthorized:
		return errext.Usagef("%s: the user may not run %s on %s (%s); it needs the %s privilege on the cluster", flag, command, host, reason, command)
	case codeBadValue:
		return errext.Usagef("%s: %s refused the value (%s)", flag, host, reason)
	}
	return errext.Usagef("%s: %s on %s was refused: %s (%s)", flag, command, host, reason, ce.Name)
}

// typedLike reads v as a value of orig's BSON type, as getParameter
// reported it: a whole number for an integer, a number for a double, true
// or false for a boolean, the text for a string.
func typedLike(v string, orig bson.RawValue) (bson.RawValue, error) {
	var x any
	switch orig.Type {
	case bson.TypeInt32:
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return bson.RawValue{}, fmt.Errorf("the server reads this parameter as a 32-bit whole number, and %s is not one", textfmt.Short(v))
		}
		x = int32(n)
	case bson.TypeInt64:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return bson.RawValue{}, fmt.Errorf("the server reads this parameter as a whole number, and %s is not one", textfmt.Short(v))
		}
		x = n
	case bson.TypeDouble:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return bson.RawValue{}, fmt.Errorf("the server reads this parameter as a number, and %s is not one", textfmt.Short(v))
		}
		x = f
	case bson.TypeBoolean:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return bson.RawValue{}, fmt.Errorf("the server reads this parameter as true or false, and %s is neither", textfmt.Short(v))
		}
		x = b
	case bson.TypeString:
		x = v
	default:
		return bson.RawValue{}, fmt.Errorf("the server reports this parameter as a %s, which --server-param does not set", orig.Type)
	}
	t, data, err := bson.MarshalValue(x)
	if err != nil {
		return bson.RawValue{}, err
	}
	return bson.RawValue{Type: t, Value: data}, nil
}

// paramHostsOf is where name is set on a target: its mongods (a
// standalone, every member of a replica set), its routers, or every member
// of its shards, as ParamHosts chooses; on a sharded cluster without a
// choice, the routers when the first has the parameter, else the shards.
func (s *Session) paramHostsOf(ctx context.Context, client *mongo.Client, g *failpoint.Guard, h results.TargetHeader, name string) ([]string, error) {
	which := s.ParamHosts
	if h.Topology != topology.Sharded {
		switch which {
		case ParamHostsRouters:
			return nil, errext.Usagef("--server-param-hosts routers: target %s is a %s, which has no routers", h.Name, h.Topology)
		case ParamHostsShards:
			return nil, errext.Usagef("--server-param-hosts shards: target %s is a %s, which has no shards", h.Name, h.Topology)
		}
		return slices.Clone(h.Hosts), nil
	}
	if len(h.Hosts) == 0 {
		return nil, fmt.Errorf("--server-param: target %s lists no routers", h.Name)
	}
	routers := slices.Clone(h.Hosts)
	if which == ParamHostsRouters {
		return routers, nil
	}
	if which == ParamHostsAuto {
		if _, err := g.GetParam(ctx, routers[0], name); err == nil {
			return routers, nil
		}
	}
	shards, err := shardHosts(ctx, client)
	if err != nil {
		return nil, err
	}
	if which == ParamHostsAll {
		return append(routers, shards...), nil
	}
	return shards, nil
}

// shardHosts lists every member of every shard, from listShards' host
// field ("rs/h1:p,h2:p", or "h:p" for a shard that is not a replica set).
func shardHosts(ctx context.Context, client *mongo.Client) ([]string, error) {
	var reply struct {
		Shards []struct {
			Host string `bson:"host"`
		} `bson:"shards"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "listShards", Value: 1}}).Decode(&reply); err != nil {
		return nil, fmt.Errorf("--server-param: the shards' hosts cannot be listed: listShards: %w", err)
	}
	var out []string
	for _, sh := range reply.Shards {
		hosts := sh.Host
		if _, after, ok := strings.Cut(hosts, "/"); ok {
			hosts = after
		}
		for _, h := range strings.Split(hosts, ",") {
			if h = strings.TrimSpace(h); h != "" && !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("--server-param: listShards names no shard hosts")
	}
	return out, nil
}

// setServerParams puts the step's series' parameters in force on t (set
// only when another series' were), and reads each back on every host
// with getParameter for the step's record.
func (t *sessionTarget) setServerParams(ctx context.Context, params []results.ServerParam) ([]results.ServerParam, error) {
	if len(params) == 0 || t.params == nil {
		return nil, nil
	}
	label := results.ParamLabel(params)
	if t.params.set != label {
		t.params.set = ""
		for _, p := range params {
			for _, host := range t.params.hosts[p.Name] {
				if _, err := t.guard.SetParam(ctx, host, p.Name, t.params.typed[p.Name][p.Value]); err != nil {
					return nil, err
				}
			}
		}
		t.params.set = label
	}
	out := make([]results.ServerParam, len(params))
	for i, p := range params {
		out[i] = results.ServerParam{Name: p.Name, Value: p.Value}
		for _, host := range t.params.hosts[p.Name] {
			v, err := t.guard.GetParam(ctx, host, p.Name)
			if err != nil {
				return nil, fmt.Errorf("getParameter %s on %s: %w", p.Name, host, err)
			}
			out[i].Read = append(out[i].Read, results.ServerParamRead{Host: host, Value: v.String()})
		}
	}
	return out, nil
}

// restoreServerParams sets back every parameter the targets' series
// changed, on a context of its own (the run's may be cancelled); its
// error names each value left.
func restoreServerParams(ctx context.Context, targets map[string]*sessionTarget) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(targets)) {
		if g := targets[name].guard; g != nil {
			if err := g.RestoreParams(ctx); err != nil {
				errs = append(errs, fmt.Errorf("target %s: %w", name, err))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("a server parameter was not set back: %w; --resume sets it back", errors.Join(errs...))
	}
	return nil
}

// ParamPlanLine says, before the run, what it will change on the
// servers (--server-param): each parameter's values, where, and that the
// originals are set back; "" when it changes nothing.
func (s *Session) ParamPlanLine() string {
	names, values := s.paramAxes()
	if len(names) == 0 {
		return ""
	}
	where := "on each target's mongods (on a cluster: its routers where they have the parameter, else its shards)"
	switch s.ParamHosts {
	case ParamHostsRouters:
		where = "on each target's routers"
	case ParamHostsShards:
		where = "on every member of each target's shards"
	case ParamHostsMongods:
		where = "on each target's mongods"
	case ParamHostsAll:
		where = "on each target's routers and shards"
	}
	parts := make([]string, len(names))
	for i, n := range names {
		vs := make([]string, len(values[n]))
		for j, v := range values[n] {
			vs[j] = textfmt.Short(v)
		}
		parts[i] = textfmt.Short(n) + " to " + strings.Join(vs, ", then ")
	}
	return fmt.Sprintf("server parameters: this run sets %s %s with setParameter, each value before its own series' steps, and sets the originals back at its end (recorded first in poolsweep_meta)",
		strings.Join(parts, "; "), where)
}
