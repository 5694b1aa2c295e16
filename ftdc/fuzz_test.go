package ftdc

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// FuzzReader feeds any bytes to the reader as a file and decodes every
// chunk it yields and its last sample: the only outcomes are documents or
// an error, never a panic, a hang or an allocation past the bounds.
func FuzzReader(f *testing.F) {
	at := time.Unix(1700000000, 0)
	ref := marshal(f, bson.D{{Key: "start", Value: bson.NewDateTimeFromTime(at)}, {Key: "s", Value: bson.D{{Key: "n", Value: int32(1)}, {Key: "x", Value: "y"}}}})
	chunk := encodeChunk(f, ref, [][]int64{{at.UnixMilli() + 1000, at.UnixMilli() + 2000}, {1, 1}})
	f.Add(fileDoc(f, at, MetricChunk, nil, chunk))
	f.Add(fileDoc(f, at, Metadata, ref, nil))
	f.Add(realFile(f, "metrics.interim-7.0.0-rc6"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		for range 64 {
			d, err := r.Next()
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrCorrupt) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("unexpected error kind: %v", err)
				}
				return
			}
			if d.Kind != MetricChunk {
				continue
			}
			c, err := DecodeChunk(d.Data)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("chunk error not ErrCorrupt: %v", err)
				}
				continue
			}
			if c.Samples < 1 {
				t.Fatalf("a chunk of %d samples", c.Samples)
			}
			for _, m := range c.Metrics {
				if len(m.Values) != c.Samples {
					t.Fatalf("metric of %d values in a chunk of %d samples", len(m.Values), c.Samples)
				}
			}
			if _, err := c.Last(); err != nil {
				t.Fatalf("last sample of a decoded chunk: %v", err)
			}
		}
	})
}

// FuzzChunk feeds any bytes to a chunk's decoder as its inflated content
// (the fuzzer cannot get through zlib by mutation): reference document,
// counts and deltas, with the same guarantees as FuzzReader.
func FuzzChunk(f *testing.F) {
	ref := marshal(f, bson.D{{Key: "a", Value: int64(1)}, {Key: "b", Value: bson.A{int32(2), true, bson.Timestamp{T: 3, I: 4}}}, {Key: "c", Value: 1.5}})
	var plain bytes.Buffer
	plain.Write(ref)
	plain.Write([]byte{6, 0, 0, 0, 3, 0, 0, 0, 1, 0, 4, 7, 0, 2, 0x80, 0x01})
	f.Add(plain.Bytes())
	f.Fuzz(func(t *testing.T, plain []byte) {
		c, err := DecodeChunk(encodePlain(t, plain))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("chunk error not ErrCorrupt: %v", err)
			}
			return
		}
		for _, m := range c.Metrics {
			if len(m.Values) != c.Samples {
				t.Fatalf("metric of %d values in a chunk of %d samples", len(m.Values), c.Samples)
			}
		}
		if _, err := c.Last(); err != nil {
			t.Fatalf("last sample of a decoded chunk: %v", err)
		}
	})
}
