package sim

import "go.mongodb.org/mongo-driver/v2/bson"

// storageEngine is serverStatus.storageEngine on a mongod (a mongos has
// none), with the fields and BSON types of the version's real captures
// (testdata/servers: 3.6.20, 4.2.1, 4.4.18, 5.0.2, 7.0.1, 7.0.14, 8.0.9; FTDC
// keeps the server's types): name, supportsCommittedReads, then from 4.2
// oldestRequiredTimestampForCrashRecovery (a timestamp), supportsPendingDrops
// and dropPendingIdents (int64), 4.4's supportsTwoPhaseIndexBuild,
// supportsSnapshotReadConcern, readOnly, persistent, backupCursorOpen (4.2+)
// and 5.0's supportsResumableIndexBuilds. mongostat picks its columns by
// name: without it, it takes a mongod for MMAPv1. The simulator answers
// wiredTiger, which every real mongod of these versions runs by default;
// it keeps nothing on disk, but what it reports is the shape a client of a
// default server meets.
//
// oldestRequiredTimestampForCrashRecovery is 0 on a standalone, as the
// standalone captures report it; a replica-set member's is its set's
// commit point (a real member's is its last stable checkpoint's, at or
// behind the commit point: the simulator takes no checkpoints); a shard's
// server, which keeps no oplog here, reports 0 (uncertain: a real shard
// primary reports its checkpoint's).
func (f *frontend) storageEngine() bson.D {
	v := f.d.version
	d := bson.D{
		{Key: "name", Value: "wiredTiger"},
		{Key: "supportsCommittedReads", Value: true},
	}
	if v.pendingDrops {
		var oldest bson.Timestamp
		if f.member != nil {
			committed, _ := f.member.rs.commitPoint()
			oldest = committed.ts
		}
		d = append(d,
			bson.E{Key: "oldestRequiredTimestampForCrashRecovery", Value: oldest},
			bson.E{Key: "supportsPendingDrops", Value: true},
			bson.E{Key: "dropPendingIdents", Value: int64(0)})
		if v.twoPhaseIndexBuild {
			d = append(d, bson.E{Key: "supportsTwoPhaseIndexBuild", Value: true})
		}
		d = append(d, bson.E{Key: "supportsSnapshotReadConcern", Value: true})
	}
	d = append(d,
		bson.E{Key: "readOnly", Value: false},
		bson.E{Key: "persistent", Value: true})
	if v.pendingDrops {
		d = append(d, bson.E{Key: "backupCursorOpen", Value: false})
	}
	if v.resumableIndexBuilds {
		d = append(d, bson.E{Key: "supportsResumableIndexBuilds", Value: true})
	}
	return d
}
