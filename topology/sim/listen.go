package sim

import (
	"fmt"
	"slices"
)

// Option configures Start.
type Option func(*startOptions)

type startOptions struct {
	listen      []string
	shardListen []string
	alone       bool
}

// Listen makes Start listen on the given host:port addresses, one per
// listening server the URI lists (the standalone, each router, or each
// replica-set member, in order), instead of a free port on 127.0.0.1 for
// each. A fixed port lets a test stop a deployment and start another
// where clients expect it: a member's host in hello is the address it
// listens on, so a set restarted on the same ports is the same set to a
// driver.
func Listen(addrs ...string) Option {
	return func(o *startOptions) { o.listen = slices.Clone(addrs) }
}

// ListenShards makes a sharded deployment's shards listen on the given
// host:port addresses, one per shard in order, instead of a free port on
// 127.0.0.1 for each, so that a cluster restarted on the same ports has
// the same shard hosts (listShards, a sampler's direct connections).
func ListenShards(addrs ...string) Option {
	return func(o *startOptions) { o.shardListen = slices.Clone(addrs) }
}

// ListenError is Start's error when a server could not listen on its
// address (taken, or not this machine's): nothing was served, and every
// listener opened before it was closed.
type ListenError struct {
	Addr   string // the address asked for
	Server string // which server: "the standalone", "member 2 of 3", "router 1 of 2", "shard 1 of 3"
	Err    error
}

func (e *ListenError) Error() string {
	return fmt.Sprintf("sim: %s cannot listen on %s: %v", e.Server, e.Addr, e.Err)
}

func (e *ListenError) Unwrap() error { return e.Err }
