package ftdc

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"math"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Bounds on one chunk. A server keeps its chunks far below them (300
// samples of a few thousand metrics by default; it refuses to read back a
// chunk of more than 10,000,000 bytes); past them the input is refused
// before anything that size is allocated.
const (
	// MaxChunkSize is the largest uncompressed chunk decoded.
	MaxChunkSize = 10_000_000
	// MaxValues is the most values (metrics × samples) a chunk may hold:
	// 64 MiB of int64.
	MaxValues = 8 << 20
	// maxDepth is how deep the server itself recurses into a document.
	maxDepth = 10
)

// Chunk is one decoded metric chunk.
type Chunk struct {
	// Reference is the chunk's first sample as the server built it: every
	// field, strings included, with the server's own BSON types.
	Reference bson.Raw
	// Metrics are the reference's numeric fields in document order, each
	// with its value in every sample.
	Metrics []Metric
	// Samples is how many samples the chunk holds, the reference first.
	Samples int
}

// Metric is one numeric field of a chunk's samples.
type Metric struct {
	// Path is the field's keys from the reference's root (array elements
	// by index).
	Path []string
	// Type is the field's BSON type in the reference.
	Type bson.Type
	// Part is "t" or "i" for a timestamp's seconds and increment, which
	// FTDC keeps as two metrics; "" otherwise.
	Part string
	// Values holds the field in each sample (len Samples), as the server
	// stores it: a double truncated toward zero (NaN as 0), a bool as 0 or
	// 1, a date in milliseconds since the epoch.
	Values []int64
}

// DecodeChunk decodes a MetricChunk document's Data, within the bounds on
// one chunk. A reader of many chunks decodes them through a Budget.
func DecodeChunk(data []byte) (*Chunk, error) { return decodeChunk(data, nil) }

func decodeChunk(data []byte, b *Budget) (*Chunk, error) {
	if len(data) < 4 {
		return nil, corrupt("chunk of %d bytes has no length", len(data))
	}
	size := binary.LittleEndian.Uint32(data)
	if size > MaxChunkSize {
		return nil, corrupt("chunk says it holds %d bytes, more than %d", size, MaxChunkSize)
	}
	if err := b.charge(int64(size)); err != nil {
		return nil, err
	}
	zr, err := zlib.NewReader(bytes.NewReader(data[4:]))
	if err != nil {
		return nil, corrupt("chunk is not zlib: %v", err)
	}
	// The reference and the counts come first: the counts are held to
	// the chunk's bytes and charged before the rest is inflated.
	var pre []byte
	var head [4]byte
	if _, err := io.ReadFull(zr, head[:]); err == nil {
		if refLen := binary.LittleEndian.Uint32(head[:]); refLen >= 5 && uint64(refLen)+8 <= uint64(size) {
			pre = make([]byte, refLen+8)
			copy(pre, head[:])
			if _, err := io.ReadFull(zr, pre[4:]); err != nil {
				return nil, corrupt("chunk inflates to fewer bytes than the %d it says", size)
			}
			ref := bson.Raw(pre[:refLen])
			if err := ref.Validate(); err != nil {
				return nil, corrupt("reference document is not BSON: %v", err)
			}
			if err := admit(ref, pre[refLen:], int(size-refLen-8), b); err != nil {
				return nil, err
			}
		}
	}
	// Inflated into one buffer of the size charged, never a growing one.
	plain := make([]byte, size)
	got := copy(plain, pre)
	if got == 0 {
		got = copy(plain, head[:])
	}
	if n, err := io.ReadFull(zr, plain[got:]); err == io.ErrUnexpectedEOF || err == io.EOF {
		return nil, corrupt("chunk inflates to %d bytes, not the %d it says", got+n, size)
	} else if err != nil {
		return nil, corrupt("chunk does not inflate: %v", err)
	}
	if n, _ := zr.Read(make([]byte, 1)); n > 0 {
		return nil, corrupt("chunk inflates to more than the %d bytes it says", size)
	}
	return decodePlain(plain)
}

// admit holds the counts a chunk declares (counts: its metric and delta
// counts, as stored) to its bytes, and charges them to b (nil: no
// budget), before anything of their size is made.
func admit(ref bson.Raw, counts []byte, deltaBytes int, b *Budget) error {
	nMetrics := binary.LittleEndian.Uint32(counts)
	nDeltas := binary.LittleEndian.Uint32(counts[4:])
	samples := uint64(nDeltas) + 1
	if uint64(nMetrics)*samples > MaxValues {
		return corrupt("chunk of %d metrics × %d samples is more than %d values", nMetrics, samples, MaxValues)
	}
	// Every sample a server takes has its own start time, later than the
	// one before, so each sample after the reference costs at least one
	// byte of deltas: a zero run can stand for any count of unchanged
	// values, never for a clock that stood still.
	if v, err := ref.LookupErr("start"); err == nil && v.Type == bson.TypeDateTime && uint64(nDeltas) > uint64(deltaBytes) {
		return corrupt("chunk says %d samples, its %d bytes of deltas hold at most %d", samples, deltaBytes, deltaBytes+1)
	}
	return b.charge(int64(nMetrics)*metricCost + int64(nMetrics)*int64(samples)*8 + int64(samples)*sampleCost)
}

// decodePlain decodes an inflated chunk whose counts were admitted.
func decodePlain(plain []byte) (*Chunk, error) {
	if len(plain) < 5 {
		return nil, corrupt("chunk of %d bytes has no reference document", len(plain))
	}
	refLen := binary.LittleEndian.Uint32(plain)
	if refLen < 5 || uint64(refLen)+8 > uint64(len(plain)) {
		return nil, corrupt("reference document of %d bytes in a chunk of %d", refLen, len(plain))
	}
	ref := bson.Raw(plain[:refLen])
	if err := ref.Validate(); err != nil {
		return nil, corrupt("reference document is not BSON: %v", err)
	}
	rest := plain[refLen:]
	nMetrics := binary.LittleEndian.Uint32(rest)
	nDeltas := binary.LittleEndian.Uint32(rest[4:])
	// Checked again, uncharged: the same rules hold whatever the path.
	if err := admit(ref, rest[:8], len(rest)-8, nil); err != nil {
		return nil, err
	}
	rest = rest[8:]
	samples := uint64(nDeltas) + 1

	var metrics []Metric
	var base []int64
	if err := extract(ref, nil, 0, int(nMetrics), &metrics, &base); err != nil {
		return nil, err
	}
	if uint64(len(metrics)) != uint64(nMetrics) {
		return nil, corrupt("chunk says %d metrics, its reference document has %d", nMetrics, len(metrics))
	}
	values := make([]int64, uint64(nMetrics)*samples)
	var zeros uint64
	for m := range metrics {
		col := values[uint64(m)*samples : uint64(m+1)*samples]
		col[0] = base[m]
		prev := uint64(base[m])
		for s := uint64(1); s < samples; s++ {
			var delta uint64
			if zeros > 0 {
				zeros--
			} else {
				d, n := binary.Uvarint(rest)
				if n <= 0 {
					return nil, corrupt("deltas end early, at metric %d sample %d", m, s)
				}
				rest = rest[n:]
				if d == 0 {
					z, n := binary.Uvarint(rest)
					if n <= 0 {
						return nil, corrupt("zero run without its length, at metric %d sample %d", m, s)
					}
					rest = rest[n:]
					zeros = z
				}
				delta = d
			}
			// The server's arithmetic is uint64 and wraps.
			prev += delta
			col[s] = int64(prev)
		}
		metrics[m].Values = col
	}
	return &Chunk{Reference: ref, Metrics: metrics, Samples: int(samples)}, nil
}

// extract lists doc's numeric fields in order, as the server extracts
// them, with each one's value in doc; past limit fields it stops (the
// caller finds the count wrong), so a reference of many tiny fields costs
// no more than the count its chunk declared and was charged for.
func extract(doc bson.Raw, path []string, depth, limit int, out *[]Metric, vals *[]int64) error {
	if depth > maxDepth {
		return corrupt("reference document nested deeper than %d", maxDepth)
	}
	if len(doc) < 5 {
		return corrupt("reference document: a document of %d bytes", len(doc))
	}
	// Element by element, never a list of them all: a reference of a
	// million one-byte fields costs nothing past the limit.
	for rest := []byte(doc[4 : len(doc)-1]); len(rest) > 0; {
		if len(*out) > limit {
			return nil
		}
		el, r, ok := bsoncore.ReadElement(rest)
		if !ok {
			return corrupt("reference document: an element cut short")
		}
		rest = r
		e := bson.RawElement(el)
		key := e.Key()
		p := append(path[:len(path):len(path)], key)
		v := e.Value()
		add := func(part string, x int64) {
			*out = append(*out, Metric{Path: p, Type: v.Type, Part: part})
			*vals = append(*vals, x)
		}
		switch v.Type {
		case bson.TypeDouble:
			add("", truncate(v.Double()))
		case bson.TypeInt32:
			add("", int64(v.Int32()))
		case bson.TypeInt64:
			add("", v.Int64())
		case bson.TypeDecimal128:
			add("", decimalToInt(v.Decimal128()))
		case bson.TypeBoolean:
			var b int64
			if v.Boolean() {
				b = 1
			}
			add("", b)
		case bson.TypeDateTime:
			add("", v.DateTime())
		case bson.TypeTimestamp:
			t, i := v.Timestamp()
			add("t", int64(t))
			add("i", int64(i))
		case bson.TypeEmbeddedDocument, bson.TypeArray:
			sub := bson.Raw(v.Value)
			if err := extract(sub, p, depth+1, limit, out, vals); err != nil {
				return err
			}
		}
	}
	return nil
}

// truncate converts a double as the server does: NaN is 0, beyond int64
// is clamped.
func truncate(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// decimalToInt reads a decimal128 as a whole number, clamped like a
// double (no server metric is a decimal; this only keeps the count right).
func decimalToInt(d bson.Decimal128) int64 {
	f, err := strconv.ParseFloat(d.String(), 64)
	if err != nil {
		return 0
	}
	return truncate(f)
}

// Times returns when each sample was taken: the reference's top-level
// start field in every sample, or nil when the chunk has none.
func (c *Chunk) Times() []time.Time {
	for _, m := range c.Metrics {
		if len(m.Path) == 1 && m.Path[0] == "start" && m.Type == bson.TypeDateTime {
			out := make([]time.Time, len(m.Values))
			for i, ms := range m.Values {
				out[i] = time.UnixMilli(ms).UTC()
			}
			return out
		}
	}
	return nil
}
