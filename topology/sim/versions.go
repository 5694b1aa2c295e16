package sim

import "github.com/poolsweep/poolsweep/internal/serverversion"

// The MongoDB versions the simulator answers as, and what each version's
// real mongod and mongos put in their replies. Every flag here follows the
// corpus of real replies in testdata/servers (its README says, per fact,
// whether a capture, the manual or the server's source is the evidence), and
// the conformance test holds the replies to it.

// defaultVersion is the version a spec without version= answers as. 8.2
// is modeled too but asked for by name: its replies add connection
// admission (connections.queuedForEstablishment, establishmentRateLimit,
// queues.ingressSessionEstablishment), which a default should not spring
// on the tests and users of the 8.0 shape.
const defaultVersion = "8.0"

// serverVersion is one version's shape of the replies.
type serverVersion struct {
	name string // "7.0"
	// as is the release string the servers report when the spec names one
	// (version=7.0.0-rc6); "" reports the series' simulated release.
	as   string
	wire int32 // hello.maxWireVersion

	// hello is the hello command (4.4.2+); before it only isMaster exists.
	hello bool
	// opcounters64: opcounters are int64 from 4.2 (the real 4.2.1 and
	// 4.4.18 captures decoded from FTDC say so; the manual's 4.4 reply had
	// int32), int32 before as far as the manual knows.
	opcounters64 bool
	// memMB32: hostInfo system.memSizeMB and memLimitMB are int32 (the real
	// 4.2.1 capture); int64 from 5.0 (5.0.2, 7.0.1, 7.0.14) and in the
	// manual's 4.0 and 4.4.
	memMB32 bool
	// routerLatencies: a mongos reports opLatencies from 7.0 (SERVER-46478).
	routerLatencies bool
	// cpuTimes: extra_info.{user,system}_time_us on Linux from 4.2.
	cpuTimes bool
	// queues: tickets live under queues.execution (8.0) instead of
	// wiredTiger.concurrentTransactions (4.0–7.0).
	queues bool
	// queueCounters: each ticket side reports its ticket holder's queue
	// counters (queueLength, totalTimeQueuedMicros, …) from 7.0. In 7.0
	// they sit on the side itself (the 7.0 SemaphoreTicketHolder appends
	// them flat; queueLength and processing int64, as the real 7.0.1 and
	// 7.0.14 captures have them, not the int32 the source read suggested);
	// queueBlocks: from 8.0
	// they sit, int64, in an exempt and a normalPriority block. Source:
	// mongodb/mongo src/mongo/util/concurrency/ticketholder.cpp, the 7.0
	// TicketHolderWithQueueingStats::appendStats and
	// SemaphoreTicketHolder::_appendImplStats, and the 8.0
	// TicketHolder::appendStats with semaphore_ticketholder.cpp (see
	// testdata/servers/README.md). A lowPriority block exists only with the
	// PriorityTicketHolder, which is not the default, so it is not modeled.
	queueCounters, queueBlocks bool
	// memLimit: hostInfo system.memLimitMB (4.2+: the real 4.2.1 capture has
	// it, int32 as its memSizeMB; the manual says 4.4); coresAvailable:
	// system.numCoresAvailableToProcess (8.0+).
	memLimit, coresAvailable bool
	// leased: connPoolStats totalLeased and hosts.*.leased (5.0+).
	leased bool
	// topologyTime: listShards shards.*.topologyTime (5.0+).
	topologyTime bool
	// routerGlobalLock: a mongos reports globalLock (currentQueue,
	// activeClients) from 8.0, as real 8.0 routers do; 6.0.3's
	// has none (netdata's struct dump).
	routerGlobalLock bool
	// connRejected: connections.rejected (6.3+, the manual), the
	// connections refused at maxIncomingConnections and, from 8.2, by the
	// establishment rate limiter too.
	connRejected bool
	// ingress: 8.2's connection-establishment rate limiter reports
	// connections.queuedForEstablishment and
	// connections.establishmentRateLimit (int64, SessionEstablishment-
	// RateLimiter::appendStatsConnections) and
	// queues.ingressSessionEstablishment (RateLimiter::appendStats), on
	// mongod and mongos alike, and its parameters (ingress_* in a spec)
	// exist. Backported to 8.0.12 and 7.0.23 (the manual), which the
	// simulator's 7.0 and 8.0 (x.y.0 releases) predate.
	ingress bool

	// serverStatus.storageEngine (storage.go), from the captures:
	// pendingDrops: oldestRequiredTimestampForCrashRecovery,
	// supportsPendingDrops, dropPendingIdents, supportsSnapshotReadConcern
	// and backupCursorOpen (4.2+: 4.2.1 has them, 3.6.20 not; 4.0 has no
	// capture and keeps 3.6.20's four fields, uncertain);
	// twoPhaseIndexBuild: supportsTwoPhaseIndexBuild (4.4.18 only);
	// resumableIndexBuilds: supportsResumableIndexBuilds (5.0.0 and 5.0.2;
	// not 7.0.1, 7.0.14 or 8.0.9; 6.0 has no capture and is left without
	// it, uncertain).
	pendingDrops, twoPhaseIndexBuild, resumableIndexBuilds bool

	// Replica sets. retryLabels: an error of a retryable write carries the
	// RetryableWriteError label (4.4+), on which drivers of wire version 9+
	// retry. primaryNames: "not primary" (NotWritablePrimary,
	// NotPrimaryNoSecondaryOk) rather than "not master" (NotMaster,
	// NotMasterNoSlaveOk), and serverStatus.repl.isWritablePrimary rather
	// than ismaster (SERVER-50412, SERVER-50420: 4.9, so 5.0+).
	// majorityDefault: a write without writeConcern waits for a majority
	// (the implicit default from 5.0; w:1 before).
	retryLabels, primaryNames, majorityDefault bool
	// replWallTimes: replSetGetStatus has the optimes' wall times
	// (lastCommittedWallTime, lastAppliedWallTime, …) and majorityVoteCount
	// and writeMajorityCount (4.2+, the 4.2 captures). replStatus44: its
	// members have lastAppliedWallTime and lastDurableWallTime, it has
	// votingMembersCount and writableVotingMembersCount (SERVER-46274,
	// 4.3.4) and no longer syncingTo (4.4+; see testdata/servers/README.md).
	replWallTimes, replStatus44 bool
}

// versions is the table, oldest first.
var versions = []serverVersion{
	{name: "4.0", wire: 7},
	{name: "4.2", wire: 8, cpuTimes: true, pendingDrops: true, memLimit: true, memMB32: true, opcounters64: true, replWallTimes: true},
	{name: "4.4", wire: 9, cpuTimes: true, pendingDrops: true, twoPhaseIndexBuild: true, hello: true, memLimit: true, opcounters64: true, replWallTimes: true, replStatus44: true, retryLabels: true},
	{name: "5.0", wire: 13, cpuTimes: true, pendingDrops: true, resumableIndexBuilds: true, hello: true, memLimit: true, opcounters64: true, leased: true, topologyTime: true,
		replWallTimes: true, replStatus44: true, retryLabels: true, primaryNames: true, majorityDefault: true},
	{name: "6.0", wire: 17, cpuTimes: true, pendingDrops: true, hello: true, memLimit: true, opcounters64: true, leased: true, topologyTime: true,
		replWallTimes: true, replStatus44: true, retryLabels: true, primaryNames: true, majorityDefault: true},
	{name: "7.0", wire: 21, cpuTimes: true, pendingDrops: true, hello: true, memLimit: true, opcounters64: true, leased: true, topologyTime: true,
		routerLatencies: true, queueCounters: true, connRejected: true,
		replWallTimes: true, replStatus44: true, retryLabels: true, primaryNames: true, majorityDefault: true},
	{name: "8.0", wire: 25, cpuTimes: true, pendingDrops: true, hello: true, memLimit: true, opcounters64: true, leased: true, topologyTime: true,
		routerLatencies: true, queueCounters: true, queueBlocks: true, queues: true, coresAvailable: true,
		routerGlobalLock: true, connRejected: true,
		replWallTimes: true, replStatus44: true, retryLabels: true, primaryNames: true, majorityDefault: true},
	{name: "8.2", wire: 27, cpuTimes: true, pendingDrops: true, hello: true, memLimit: true, opcounters64: true, leased: true, topologyTime: true,
		routerLatencies: true, queueCounters: true, queueBlocks: true, queues: true, coresAvailable: true,
		routerGlobalLock: true, connRejected: true, ingress: true,
		replWallTimes: true, replStatus44: true, retryLabels: true, primaryNames: true, majorityDefault: true},
}

// versionOf returns the table row of a spec's version ("" is the
// default): a series (7.0), or a release string a real server reports
// (7.0.0-rc6, 4.4.29-rc0, 8.0.4-ent), answered with its series' replies
// and reported as given, so that what poolsweep does with a real server's
// version can be tried on the simulator.
func versionOf(name string) (serverVersion, bool) {
	if name == "" {
		name = defaultVersion
	}
	as := ""
	if rel, ok := serverversion.Parse(name); ok && rel.Patch >= 0 {
		name, as = rel.Series(), rel.Text
	}
	for _, v := range versions {
		if v.name == name {
			v.as = as
			return v, true
		}
	}
	return serverVersion{}, false
}

// knownVersions lists the accepted version= values.
func knownVersions() []string {
	names := make([]string, len(versions))
	for i, v := range versions {
		names[i] = v.name
	}
	return names
}

// Versions lists the versions a spec's version= accepts, oldest first,
// for tests that run something against every one of them.
func Versions() []string { return knownVersions() }

// release is the version string buildInfo and serverStatus report: a real
// version with a suffix that says what answers, which topology.Detect and
// people reading a report recognise.
func (v serverVersion) release() string {
	if v.as != "" {
		return v.as
	}
	return v.name + ".0-poolsweep-sim"
}

// versionArray is buildInfo's versionArray for the release: its major,
// minor and patch, and 0.
func (v serverVersion) versionArray() []any {
	rel, _ := serverversion.Parse(v.release())
	return []any{int32(rel.Major), int32(rel.Minor), int32(max(rel.Patch, 0)), int32(0)}
}
