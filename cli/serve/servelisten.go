package serve

import (
	"errors"
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	"net"
	"strconv"

	"github.com/poolsweep/poolsweep/topology/sim"
)

// simListen is where serve --sim's servers listen, from --listen
// HOST:PORT: the servers the URI lists (the standalone, the routers, or
// the replica set's members, in order), then a sharded simulator's
// shards. Port 0 gives each server a free port of its own on HOST; a
// fixed PORT is a base: the listed servers on PORT, PORT+1, …, then the
// shards on the next ports, so that a deployment killed and started
// again with the same --listen has the same hosts (a replica set's hello
// names its members by the addresses they listen on).
type simListen struct {
	fronts, shards []string
	names          []string // each server's name in messages, fronts then shards, as sim.ListenError names it
}

// simListenAddrs is --listen's rule for spec, refused (exit 2) when the
// block of ports runs past 65535.
func simListenAddrs(listen string, spec sim.Spec) (simListen, error) {
	host, portStr, err := net.SplitHostPort(listen)
	if err != nil {
		return simListen{}, errext.Usagef("--listen: %w", err) // CheckListen took it; kept for safety
	}
	port, _ := strconv.Atoi(portStr)
	nFronts, nShards, what := 1, 0, "the standalone" // a standalone's one port cannot overflow: CheckListen bounds it
	switch {
	case spec.Sharded():
		nFronts, nShards = spec.Routers, spec.Shards
		what = fmt.Sprintf("%d routers and %d shards", nFronts, nShards)
	case spec.ReplicaSet():
		nFronts, what = spec.Members, fmt.Sprintf("%d members", spec.Members)
	}
	n := nFronts + nShards
	if port != 0 && port+n-1 > 65535 {
		return simListen{}, errext.Usagef("--listen: %s need ports %d to %d, past 65535; give a port of at most %d (or 0 for free ones)",
			what, port, port+n-1, 65535-n+1)
	}
	addr := func(i int) string {
		if port == 0 {
			return net.JoinHostPort(host, "0")
		}
		return net.JoinHostPort(host, strconv.Itoa(port+i))
	}
	var l simListen
	for i := range nFronts {
		l.fronts = append(l.fronts, addr(i))
		switch {
		case spec.Sharded():
			l.names = append(l.names, fmt.Sprintf("router %d of %d", i+1, nFronts))
		case spec.ReplicaSet():
			l.names = append(l.names, fmt.Sprintf("member %d of %d", i+1, nFronts))
		default:
			l.names = append(l.names, "the standalone")
		}
	}
	for i := range nShards {
		l.shards = append(l.shards, addr(nFronts+i))
		l.names = append(l.names, fmt.Sprintf("shard %d of %d", i+1, nShards))
	}
	return l, nil
}

// options are the simulator's listen options.
func (l simListen) options() []sim.Option {
	opts := []sim.Option{sim.Listen(l.fronts...)}
	if len(l.shards) > 0 {
		opts = append(opts, sim.ListenShards(l.shards...))
	}
	return opts
}

// listenUsage makes a simulator's failure to listen bad input (exit 2,
// naming --listen): its port is taken or its host is not this machine's.
// Start opened no server before it gave up. nil for another error.
func listenUsage(err error) error {
	var le *sim.ListenError
	if errors.As(err, &le) {
		return errext.Usagef("--listen: %s cannot listen on %s: %w; nothing was started", le.Server, le.Addr, netCause(le.Err))
	}
	return nil
}

// probeListen checks that every address serve will listen on can be
// listened on, before anything is made or started: a taken port, or a
// host that is not this machine's, is bad input (exit 2), not a failed
// start. Another process may still take a port before the server does;
// the simulator's start then says so as bad input too (listenUsage),
// FerretDB's as a failed start (exit 1).
func (o *Options) probeListen() error {
	addrs, names := []string{o.listen}, []string{""}
	if o.sim != "" {
		addrs, names = append(append([]string(nil), o.simAddrs.fronts...), o.simAddrs.shards...), o.simAddrs.names
	}
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for i, addr := range addrs {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			if names[i] != "" {
				return errext.Usagef("--listen: %s cannot listen on %s: %w; nothing was started", names[i], addr, netCause(err))
			}
			return errext.Usagef("--listen: cannot listen on %s: %w; nothing was started", addr, netCause(err))
		}
		lns = append(lns, ln) // held until all are tried: port 0 twice must be two ports
	}
	return nil
}

// netCause is a listen error without its "listen tcp ADDR:" prefix (the
// message names the address itself): "bind: address already in use".
func netCause(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
