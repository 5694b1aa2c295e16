package workload

import (
	"math/rand/v2"
	"sync/atomic"

	"github.com/poolsweep/poolsweep/workload/internal/zipf"
)

// zipfTheta is YCSB's default Zipfian constant.
const zipfTheta = 0.99

// KeySpace picks record keys for reads and updates and hands out new keys
// for inserts. It is shared by all workers of a target; per-worker
// randomness comes from the *rand.Rand passed to each call.
type KeySpace struct {
	dist    string
	base    int64        // records loaded
	next    atomic.Int64 // next insert index
	zipf    *zipf.Dist   // over the loaded records (uniform keys use none)
	zipfMax int64
	// gapFrom..gapTo are keys no one inserts: the other agents' share
	// below this agent's block (agent mode; see AgentBlock).
	gapFrom, gapTo int64
	// loaded is how many keys (user0 on) are known to be in the
	// collection: poolsweep loaded them, or found its complete load of
	// them (SetLoaded). 0: none known, and no read is checked.
	loaded int64
}

// SetLoaded says that the first n keys are known to be in the
// collection, so that an op by one of them that finds no document is
// evidence the target lost its data (sweep counts them per step). Set it
// before the workers start, from what Prepare loaded or reused.
func (k *KeySpace) SetLoaded(n int64) { k.loaded = min(max(n, 0), k.base) }

// Loaded says whether key index n is one known to be in the collection.
// Inserted keys never are: an insert may not have landed yet when another
// worker reads it ("latest").
func (k *KeySpace) Loaded(n int64) bool { return n >= 0 && n < k.loaded }

// NewKeySpace covers records loaded keys; inserts continue from nextInsert.
func NewKeySpace(dist string, records, nextInsert int64) *KeySpace {
	k := &KeySpace{dist: dist, base: records}
	k.next.Store(nextInsert)
	if dist != "uniform" {
		k.zipf = zipf.New(records, zipfTheta)
		k.zipfMax = records
	}
	return k
}

// Key returns "user<n>" for the n-th record.
func Key(n int64) string { return string(appendKey(nil, n)) }

// Pick returns the index of an existing record.
func (k *KeySpace) Pick(r *rand.Rand) int64 {
	switch k.dist {
	case "zipfian":
		// Scramble the rank so the hot keys are spread over the key space,
		// as YCSB's ScrambledZipfianGenerator does.
		return int64(fnv64(uint64(k.zipf.Rank(r))) % uint64(k.base))
	case "latest":
		// Most recently inserted keys are hottest.
		last := k.next.Load() - 1
		n := k.skipGap(last - k.zipf.Rank(r))
		if n < 0 {
			n = 0
		}
		return n
	default:
		return r.Int64N(k.base)
	}
}

// NextInsert reserves a new key index for an insert.
func (k *KeySpace) NextInsert() int64 { return k.next.Add(1) - 1 }

func fnv64(v uint64) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < 8; i++ {
		h ^= v & 0xff
		h *= 0x100000001b3
		v >>= 8
	}
	return h
}

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// randomString is n random letters and digits from r.
func randomString(r *rand.Rand, n int) string { return string(appendRandom(make([]byte, 0, n), r, n)) }

// appendRandom appends n random letters and digits from r; cheap enough
// for the worker loop, and allocation-free when b has room.
func appendRandom(b []byte, r *rand.Rand, n int) []byte {
	for n > 0 {
		x := r.Uint64()
		for j := 0; j < 10 && n > 0; j++ {
			b = append(b, letters[x%uint64(len(letters))])
			x /= uint64(len(letters))
			n--
		}
	}
	return b
}
