package sim

import (
	"container/heap"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The read and write ticket counts as server parameters: a mongod's
// wiredTigerConcurrentReadTransactions and
// wiredTigerConcurrentWriteTransactions (every version the simulator
// answers as), and storageEngineConcurrentReadTransactions and
// storageEngineConcurrentWriteTransactions from 7.0, the names 7.0 gave
// them; both names are one value, as on a real 7.0 server. They are the
// simulator's read and write slots (read_slots, write_slots), so setting
// one changes the capacity the construction gives (slots / service time)
// from the next operation on. A real 7.0+ server honours them only with
// the fixed ticket algorithm (storageEngineConcurrencyAdjustmentAlgorithm
// fixedConcurrentTransactions); the simulator's tickets are always fixed.
// A router has none, as a real mongos.

// wireV7 is 7.0's wire version, the first with the storageEngine names.
const wireV7 = 21

func init() {
	reads := func(f *frontend) *slotPool { return f.shard.reads }
	writes := func(f *frontend) *slotPool { return f.shard.writes }
	for _, p := range []struct {
		name  string
		since int32
		pool  func(*frontend) *slotPool
	}{
		{"wiredTigerConcurrentReadTransactions", 0, reads},
		{"wiredTigerConcurrentWriteTransactions", 0, writes},
		{"storageEngineConcurrentReadTransactions", wireV7, reads},
		{"storageEngineConcurrentWriteTransactions", wireV7, writes},
	} {
		pool := p.pool
		registerParam(&serverParam{name: p.name, mongods: true, runtime: true, since: p.since,
			get: func(f *frontend) any { return int32(pool(f).size()) },
			set: func(f *frontend, v bson.RawValue) error {
				n, err := intParam(v, 1, maxSlots)
				if err != nil {
					return err
				}
				pool(f).resize(int(n))
				return nil
			}})
	}
}

// size is how many slots the pool has.
func (p *slotPool) size() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total
}

// resize gives the pool n slots from now on. Slots added are free at
// once; slots taken away are those that free first (idle ones before
// busy ones), and an op already booked keeps its booking, so a pool
// made smaller runs the ops it had accepted to their end.
func (p *slotPool) resize(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := freeAt(time.Since(p.epoch))
	for len(p.free) < n {
		heap.Push(&p.free, now)
	}
	for len(p.free) > n {
		heap.Pop(&p.free)
	}
	p.total = n
}
