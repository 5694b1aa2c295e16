// Package ftdctest builds FTDC files byte by byte for the tests of the
// packages that read them: chunks whose counts and deltas are whatever a
// test says, honest or hostile, as the ftdc package's documentation
// describes the format.
package ftdctest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Chunk is a metric chunk's data: ref, the declared metric and delta
// counts, and the delta bytes as given, inflated size first, zlib after.
func Chunk(ref bson.Raw, metrics, deltas uint32, deltaBytes []byte) []byte {
	var plain bytes.Buffer
	plain.Write(ref)
	binary.Write(&plain, binary.LittleEndian, metrics)
	binary.Write(&plain, binary.LittleEndian, deltas)
	plain.Write(deltaBytes)
	var out bytes.Buffer
	binary.Write(&out, binary.LittleEndian, uint32(plain.Len()))
	zw, _ := zlib.NewWriterLevel(&out, zlib.BestCompression)
	zw.Write(plain.Bytes())
	zw.Close()
	return out.Bytes()
}

// MetricDoc is the FTDC document (type 1) holding a chunk's data.
func MetricDoc(id time.Time, data []byte) []byte {
	b, err := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewDateTimeFromTime(id)}, {Key: "type", Value: int32(1)}, {Key: "data", Value: bson.Binary{Data: data}}})
	if err != nil {
		panic(err)
	}
	return b
}

// Reference is a sample as a server takes it, reduced to what a reader
// needs: start, serverStatus with host, version and uptimeMillis, and
// extra numeric fields (metrics in all: 3 + extra).
func Reference(at time.Time, host string, extra int) bson.Raw {
	ss := bson.D{{Key: "host", Value: host}, {Key: "version", Value: "7.0.14"}, {Key: "uptimeMillis", Value: int64(1000)}}
	for i := range extra {
		ss = append(ss, bson.E{Key: "m" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)), Value: int64(i)})
	}
	b, err := bson.Marshal(bson.D{{Key: "start", Value: bson.NewDateTimeFromTime(at)}, {Key: "serverStatus", Value: ss}, {Key: "end", Value: bson.NewDateTimeFromTime(at)}})
	if err != nil {
		panic(err)
	}
	return b
}

// Honest is the delta bytes of a chunk of Reference(at, host, extra) with
// n further samples a second apart, nothing else changing: start's and
// end's deltas of 1,000 ms, uptimeMillis' too, every other delta zero.
func Honest(extra, n int) []byte {
	var out []byte
	second := binary.AppendUvarint(nil, 1000)
	zeros := func(k int) {
		if k > 0 {
			out = append(out, 0)
			out = binary.AppendUvarint(out, uint64(k-1))
		}
	}
	// metrics in order: start, uptimeMillis, extra…, end
	for range n {
		out = append(out, second...)
	}
	for range n {
		out = append(out, second...)
	}
	zeros(extra * n)
	for range n {
		out = append(out, second...)
	}
	return out
}
