package ftdc

import (
	"errors"
	"fmt"
)

// ErrOverBudget is the error of a chunk a Budget leaves out: well formed
// as far as read, but declaring more samples and metrics than the bytes
// read so far pay for.
var ErrOverBudget = errors.New("ftdc: over the budget")

// What decoding costs, in bytes allocated: per metric (its path and
// record), per sample (its time and a reader's record of it) and per
// value (an int64).
const (
	metricCost = 512
	sampleCost = 128
)

// What a Budget allows: a chunk at most ChunkFloor bytes and BudgetPerByte
// more per byte of its own compressed data; all the chunks of a capture
// together BudgetFloor and BudgetPerByte per byte read. Real captures cost less
// than 200 bytes per compressed byte (the richest chunk of testdata/ftdc:
// 21 values, 168 bytes); the margin is tenfold, and what a chunk leaves
// unspent carries over to the next. A chunk of zero runs
// can declare half a million samples in a few dozen bytes, and costs no
// more than those bytes allow.
const (
	ChunkFloor    = 1 << 20
	BudgetFloor   = 16 << 20
	BudgetPerByte = 2048
)

// Budget bounds what decoding the chunks of one capture (a folder of
// metrics.* files) may allocate in all, so that memory follows the bytes
// the input holds, not the counts it declares. A chunk over the budget is
// refused with ErrOverBudget before anything of its size is made, and the
// chunks after it may still fit; a chunk is held to its own bytes too, so
// that what honest chunks left unspent never pays for a hostile one. A
// Budget is not safe for concurrent use.
type Budget struct {
	left      int64
	chunkLeft int64 // what the chunk being decoded may still take
	// Spent is what the decoded chunks were charged.
	Spent int64
}

// NewBudget returns a budget of BudgetFloor.
func NewBudget() *Budget { return &Budget{left: BudgetFloor} }

// DecodeChunk decodes a chunk as the package's DecodeChunk does, paid from
// the budget: data's length earns BudgetPerByte a byte, and the chunk's
// declared size, metrics, samples and values are charged before they are
// allocated. A chunk the budget cannot pay for is an error wrapping
// ErrOverBudget; a chunk that is not valid is one wrapping ErrCorrupt.
func (b *Budget) DecodeChunk(data []byte) (*Chunk, error) {
	b.left += int64(len(data)) * BudgetPerByte
	b.chunkLeft = ChunkFloor + int64(len(data))*BudgetPerByte
	return decodeChunk(data, b)
}

// charge takes n bytes from the budget; a nil budget pays for anything
// within the bounds on one chunk.
func (b *Budget) charge(n int64) error {
	if b == nil {
		return nil
	}
	if n > b.chunkLeft {
		return fmt.Errorf("%w: the chunk needs %d MiB, more than its own bytes allow", ErrOverBudget, n>>20)
	}
	if n > b.left {
		return fmt.Errorf("%w: the chunk needs %d MiB, %d MiB are left of what the data read so far allows", ErrOverBudget, n>>20, b.left>>20)
	}
	b.chunkLeft -= n
	b.left -= n
	b.Spent += n
	return nil
}
