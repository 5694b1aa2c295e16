package ftdc

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The tests write FTDC as the format's description says a server writes
// it, so that the reader can be held to inputs whose every value is known:
// encodeChunk is the writer's side of a chunk (reference, counts, deltas
// with zero runs, zlib), fileDoc one document of a file.

// encodeChunk builds a chunk's Data from a reference document and the
// values of every metric in each further sample (values[m][s-1]).
func encodeChunk(t testing.TB, ref bson.Raw, values [][]int64) []byte {
	t.Helper()
	var ms []Metric
	var base []int64
	if err := extract(ref, nil, 0, 1<<30, &ms, &base); err != nil {
		t.Fatal(err)
	}
	if len(values) != len(ms) {
		t.Fatalf("%d value columns for %d metrics", len(values), len(ms))
	}
	deltas := 0
	if len(values) > 0 {
		deltas = len(values[0])
	}
	var plain bytes.Buffer
	plain.Write(ref)
	binary.Write(&plain, binary.LittleEndian, uint32(len(ms)))
	binary.Write(&plain, binary.LittleEndian, uint32(deltas))
	var flat []uint64
	for m := range ms {
		prev := uint64(base[m])
		for _, v := range values[m] {
			flat = append(flat, uint64(v)-prev)
			prev = uint64(v)
		}
	}
	var tmp [binary.MaxVarintLen64]byte
	for i := 0; i < len(flat); {
		plain.Write(tmp[:binary.PutUvarint(tmp[:], flat[i])])
		if flat[i] != 0 {
			i++
			continue
		}
		run := 0
		for i+1+run < len(flat) && flat[i+1+run] == 0 {
			run++
		}
		plain.Write(tmp[:binary.PutUvarint(tmp[:], uint64(run))])
		i += 1 + run
	}
	var out bytes.Buffer
	binary.Write(&out, binary.LittleEndian, uint32(plain.Len()))
	zw := zlib.NewWriter(&out)
	zw.Write(plain.Bytes())
	zw.Close()
	return out.Bytes()
}

// fileDoc is one FTDC document of kind k holding doc or a chunk's data.
func fileDoc(t testing.TB, id time.Time, k Kind, doc bson.Raw, data []byte) []byte {
	t.Helper()
	d := bson.D{{Key: "_id", Value: bson.NewDateTimeFromTime(id)}, {Key: "type", Value: int32(k)}}
	if k == MetricChunk {
		d = append(d, bson.E{Key: "data", Value: bson.Binary{Data: data}})
	} else {
		d = append(d, bson.E{Key: "doc", Value: doc})
	}
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func marshal(t testing.TB, v any) bson.Raw {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newZlib(w *bytes.Buffer) *zlib.Writer { return zlib.NewWriter(w) }
