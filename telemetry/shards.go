package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/topology"
)

// A mongos has no tickets, queues or global lock, and before 7.0 no
// opLatencies: a saturated shard shows on its own primary only. So on a
// sharded cluster the sampler samples each shard's primary directly, next to
// the routers, the way a DBA would: listShards names each shard's hosts
// ("rs1/db3:27018,db4:27018", or a bare host for a shard that is not a
// replica set), a replica-set client of one connection per host finds the
// primary, and a direct client of one connection samples it. A shard that
// cannot be reached from the load host within ShardTimeout (a firewall, a
// private network) is said once, and then no shard is sampled: the bound is
// judged on what the routers report, and every step says why.

// findShards looks for every shard's primary once per sampler, after
// listShards has answered; it returns whether it looked this time.
func (s *ServerSampler) findShards(ctx context.Context) bool {
	if s.shardsDone || !s.sharded() {
		return false
	}
	s.shardsDone = true
	switch {
	case s.opts.NoShardSampling:
		s.shardsWhyNot = "--no-shard-sampling: only the mongos routers are sampled"
		return true
	case !s.shardsAsked || s.shards == nil:
		s.shardsWhyNot = "listShards did not answer, so the shards are not known"
		return true
	case len(s.shards) == 0:
		s.shardsWhyNot = "listShards names no shard"
		return true
	}
	found := make([]*hostSampler, len(s.shards))
	errs := make([]error, len(s.shards))
	var wg sync.WaitGroup
	for i, sh := range s.shards {
		wg.Go(func() { found[i], errs[i] = s.findPrimary(ctx, sh) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, h := range found {
			if h != nil {
				_ = h.client.Disconnect(context.WithoutCancel(ctx))
			}
		}
		s.shardsWhyNot = topology.RedactError(err) + "; only the mongos routers are sampled"
		return true
	}
	s.shardHosts = found
	s.askCores(ctx, s.shardHosts)
	return true
}

// findPrimary finds one shard's primary and makes its sampling client.
func (s *ServerSampler) findPrimary(ctx context.Context, sh shardInfo) (*hostSampler, error) {
	cctx, cancel := context.WithTimeout(ctx, s.opts.ShardTimeout)
	defer cancel()
	where := fmt.Sprintf("shard %s (%s)", sh.name, strings.Join(sh.hosts, ","))
	primary := ""
	switch {
	case len(sh.hosts) == 0:
		return nil, fmt.Errorf("%s: listShards gives no host", where)
	case sh.setName == "" && len(sh.hosts) == 1:
		primary = sh.hosts[0]
	default:
		p, err := s.askPrimary(cctx, sh)
		if err != nil {
			return nil, fmt.Errorf("%s could not be reached from this host within %s: %w", where, s.opts.ShardTimeout, err)
		}
		primary = p
	}
	h, err := newHostSampler(primary, s.opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	h.shard = sh.name
	// Reach it now, within the same bound, so that an unreachable primary
	// is said here once rather than as a failed sample every second.
	if err := h.client.Ping(cctx, readpref.Primary()); err != nil {
		_ = h.client.Disconnect(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("%s: primary %s could not be reached from this host within %s: %w", where, primary, s.opts.ShardTimeout, err)
	}
	return h, nil
}

// askPrimary asks a shard's replica set which member is primary, through a
// replica-set client of one connection per host with the user's
// credentials and TLS, and returns the primary's own address (hello's me).
func (s *ServerSampler) askPrimary(ctx context.Context, sh shardInfo) (string, error) {
	co := options.Client().SetHosts(sh.hosts).SetMaxPoolSize(1).SetMinPoolSize(0).
		SetAppName("poolsweep-telemetry").SetServerMonitoringMode(options.ServerMonitoringModePoll).
		SetServerSelectionTimeout(s.opts.ShardTimeout).SetConnectTimeout(s.opts.ShardTimeout).SetRetryReads(false)
	if sh.setName != "" {
		co.SetReplicaSet(sh.setName)
	} else {
		co.SetDirect(true)
	}
	copyAccess(co, s.opts.Base)
	c, err := mongo.Connect(co)
	if err != nil {
		return "", err
	}
	defer func() { _ = c.Disconnect(context.WithoutCancel(ctx)) }()
	admin := c.Database("admin")
	command := "hello"
	raw, err := admin.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}, options.RunCmd().SetReadPreference(readpref.Primary())).Raw()
	if err != nil {
		// Servers before 4.4.2 know only isMaster.
		command = "isMaster"
		var err2 error
		if raw, err2 = admin.RunCommand(ctx, bson.D{{Key: "isMaster", Value: 1}}, options.RunCmd().SetReadPreference(readpref.Primary())).Raw(); err2 != nil {
			return "", err
		}
	}
	hi := parseHello(command, raw)
	switch {
	case hi.writablePrimary && hi.me != "":
		return hi.me, nil
	case hi.primary != "":
		return hi.primary, nil
	}
	return "", errors.New("no member says which is primary")
}

// window summarises one host's snapshots with its hostInfo answer.
func (h *hostSampler) window(shardHosts map[string]bool) hostWindow {
	hw := summarizeHost(h.snaps, shardHosts)
	if h.info.cores != nil {
		c := *h.info.cores
		hw.sample.Cores = &c
	}
	hw.sample.CoresMayMissQuota = h.info.memLimited
	return hw
}

// shardTelemetry puts the shards' primaries, or why they are not sampled,
// on st (a sharded cluster only).
func (s *ServerSampler) shardTelemetry(st *results.ServerTelemetry) {
	if !s.sharded() {
		return
	}
	sampled := len(s.shardHosts) > 0
	st.ShardsSampled = &sampled
	if !sampled {
		st.ShardsNotSampled = s.shardsWhyNot
		return
	}
	st.ShardHosts = make(map[string]*results.ShardSample, len(s.shardHosts))
	windows := make([]hostWindow, 0, len(s.shardHosts))
	for _, h := range s.shardHosts {
		hw := h.window(nil)
		st.ShardHosts[h.shard] = &results.ShardSample{Host: h.host, Sample: hw.sample}
		windows = append(windows, hw)
	}
	st.ShardTotal = totalOf(windows)
}
