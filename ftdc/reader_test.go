package ftdc

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// readAll reads every document of an FTDC file and decodes its chunks.
func readAll(t *testing.T, data []byte) (meta []Document, chunks []*Chunk) {
	t.Helper()
	r := NewReader(bytes.NewReader(data))
	for {
		d, err := r.Next()
		if err == io.EOF {
			return meta, chunks
		}
		if err != nil {
			t.Fatal(err)
		}
		if d.Kind != MetricChunk {
			meta = append(meta, d)
			continue
		}
		c, err := DecodeChunk(d.Data)
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, c)
	}
}

// TestChunkRoundTrip: every value of every sample comes back, whatever the
// field's type, across zero runs that span metrics and deltas that wrap.
func TestChunkRoundTrip(t *testing.T) {
	start := time.Date(2025, 7, 10, 19, 0, 0, 0, time.UTC)
	ref := marshal(t, bson.D{
		{Key: "start", Value: bson.NewDateTimeFromTime(start)},
		{Key: "serverStatus", Value: bson.D{
			{Key: "process", Value: "mongod"}, // a string: no metric
			{Key: "uptime", Value: 12.75},     // a double, kept truncated
			{Key: "connections", Value: bson.D{{Key: "current", Value: int32(3)}, {Key: "totalCreated", Value: int64(40)}}},
			{Key: "ok", Value: true},
			{Key: "ts", Value: bson.Timestamp{T: 1700000000, I: 7}},
			{Key: "hosts", Value: bson.A{int32(1), "x", int64(-5)}},
		}},
	})
	// Metrics in order: start, uptime, current, totalCreated, ok, ts.t,
	// ts.i, hosts.0, hosts.2.
	values := [][]int64{
		{start.UnixMilli() + 1000, start.UnixMilli() + 2000, start.UnixMilli() + 3000},
		{13, 14, 15},
		{3, 3, 3}, // zeros …
		{40, 40, 40},
		{1, 1, 0}, // … running into the next metric
		{1700000001, 1700000002, 1700000002},
		{0, 0, 9},
		{1, 1, 1},
		{math.MaxInt64, math.MinInt64, -5}, // wraps both ways
	}
	c, err := DecodeChunk(encodeChunk(t, ref, values))
	if err != nil {
		t.Fatal(err)
	}
	if c.Samples != 4 || len(c.Metrics) != 9 {
		t.Fatalf("%d samples of %d metrics, want 4 of 9", c.Samples, len(c.Metrics))
	}
	wantFirst := []int64{start.UnixMilli(), 12, 3, 40, 1, 1700000000, 7, 1, -5}
	for m, met := range c.Metrics {
		want := append([]int64{wantFirst[m]}, values[m]...)
		if !slices.Equal(met.Values, want) {
			t.Errorf("metric %s%s: %v, want %v", strings.Join(met.Path, "."), met.Part, met.Values, want)
		}
	}
	if p := strings.Join(c.Metrics[8].Path, "."); p != "serverStatus.hosts.2" || c.Metrics[5].Part != "t" || c.Metrics[6].Part != "i" {
		t.Errorf("paths: %s, parts %q %q", p, c.Metrics[5].Part, c.Metrics[6].Part)
	}
	times := c.Times()
	if len(times) != 4 || !times[3].Equal(start.Add(3*time.Second)) {
		t.Errorf("times %v", times)
	}
	last, err := c.Last()
	if err != nil {
		t.Fatal(err)
	}
	// The reference's types, sample 3's values, strings kept.
	if v := last.Lookup("serverStatus", "uptime"); v.Type != bson.TypeDouble || v.Double() != 15 {
		t.Errorf("uptime %v", v)
	}
	if v := last.Lookup("serverStatus", "connections", "current"); v.Type != bson.TypeInt32 || v.Int32() != 3 {
		t.Errorf("current %v", v)
	}
	if v := last.Lookup("serverStatus", "ok"); v.Type != bson.TypeBoolean || v.Boolean() {
		t.Errorf("ok %v", v)
	}
	if tt, i := last.Lookup("serverStatus", "ts").Timestamp(); tt != 1700000002 || i != 9 {
		t.Errorf("ts %d %d", tt, i)
	}
	if s := last.Lookup("serverStatus", "hosts", "1").StringValue(); s != "x" {
		t.Errorf("hosts.1 %q", s)
	}
	if ref0, _ := c.Sample(0); !bytes.Equal(ref0, ref) {
		t.Error("sample 0 is not the reference")
	}
}

// TestReaderKinds: a file's metadata, periodic metadata and chunks come
// back in order with their _id; the end of the file is io.EOF, and a file
// cut inside a document is io.ErrUnexpectedEOF.
func TestReaderKinds(t *testing.T) {
	at := time.Date(2024, 4, 16, 11, 34, 42, 0, time.UTC)
	meta := marshal(t, bson.D{{Key: "buildInfo", Value: bson.D{{Key: "version", Value: "8.0.4"}}}})
	ref := marshal(t, bson.D{{Key: "start", Value: bson.NewDateTimeFromTime(at)}})
	var file []byte
	file = append(file, fileDoc(t, at, Metadata, meta, nil)...)
	file = append(file, fileDoc(t, at.Add(time.Second), MetricChunk, nil, encodeChunk(t, ref, [][]int64{{at.UnixMilli() + 1000}}))...)
	file = append(file, fileDoc(t, at.Add(2*time.Second), PeriodicMetadata, meta, nil)...)
	m, chunks := readAll(t, file)
	if len(m) != 2 || m[0].Kind != Metadata || m[1].Kind != PeriodicMetadata || len(chunks) != 1 {
		t.Fatalf("read %d metadata and %d chunks", len(m), len(chunks))
	}
	if !m[0].ID.Equal(at) || m[0].Doc.Lookup("buildInfo", "version").StringValue() != "8.0.4" {
		t.Errorf("metadata %v %s", m[0].ID, m[0].Doc)
	}
	r := NewReader(bytes.NewReader(file[:len(file)-3]))
	var err error
	for err == nil {
		_, err = r.Next()
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut file: %v, want io.ErrUnexpectedEOF", err)
	}
	if _, again := r.Next(); again != err {
		t.Errorf("after an error Next says %v", again)
	}
}

// TestRefusesCorrupt: each way a file or chunk can be wrong is an error
// wrapping ErrCorrupt, before anything of the size it claims is made.
func TestRefusesCorrupt(t *testing.T) {
	at := time.Unix(1700000000, 0)
	ref := marshal(t, bson.D{{Key: "a", Value: int64(1)}, {Key: "b", Value: int32(2)}})
	good := encodeChunk(t, ref, [][]int64{{2, 3}, {2, 2}})
	huge := append([]byte(nil), good...)
	huge[0], huge[1], huge[2], huge[3] = 0xff, 0xff, 0xff, 0x7f
	deep := bson.D{{Key: "x", Value: int32(1)}}
	for range 12 {
		deep = bson.D{{Key: "d", Value: deep}}
	}
	deepChunk := encodePlain(t, append(append([]byte(nil), marshal(t, deep)...), 1, 0, 0, 0, 0, 0, 0, 0))
	for _, tt := range []struct {
		name  string
		chunk []byte
		file  []byte
		says  string // what the error names
	}{
		{name: "chunk too short", chunk: []byte{1, 2}, says: "no length"},
		{name: "chunk claims 2 GiB", chunk: huge, says: "more than"},
		{name: "chunk not zlib", chunk: []byte{10, 0, 0, 0, 1, 2, 3, 4}, says: "not zlib"},
		{name: "chunk shorter than it says", chunk: func() []byte { b := append([]byte(nil), good...); b[0]++; return b }(), says: "not the"},
		{name: "deltas cut", chunk: encodePlain(t, append(append([]byte(nil), ref...), 2, 0, 0, 0, 5, 0, 0, 0, 1)), says: "end early"},
		{name: "metric count wrong", chunk: encodePlain(t, append(append([]byte(nil), ref...), 3, 0, 0, 0, 0, 0, 0, 0)), says: "says 3 metrics"},
		{name: "too many values", chunk: encodePlain(t, append(append([]byte(nil), ref...), 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0xff, 0xff, 0xff, 0xff, 0x0f)), says: "values"},
		{name: "nested too deep", chunk: deepChunk, says: "deeper"},
		{name: "reference not BSON", chunk: encodePlain(t, []byte{9, 0, 0, 0, 0x10, 'a', 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}), says: "not BSON"},
		{name: "document length absurd", file: []byte{0xff, 0xff, 0xff, 0xff, 0}, says: "not between"},
		{name: "document not BSON", file: []byte{6, 0, 0, 0, 0x7f, 0}, says: "not BSON"},
		{name: "no _id", file: marshal(t, bson.D{{Key: "type", Value: int32(0)}}), says: "no _id"},
		{name: "unknown type", file: marshal(t, bson.D{{Key: "_id", Value: bson.NewDateTimeFromTime(at)}, {Key: "type", Value: int32(9)}}), says: "unknown type"},
		{name: "chunk without data", file: marshal(t, bson.D{{Key: "_id", Value: bson.NewDateTimeFromTime(at)}, {Key: "type", Value: int32(1)}}), says: "without data"},
		{name: "metadata doc not a document", file: marshal(t, bson.D{{Key: "_id", Value: bson.NewDateTimeFromTime(at)}, {Key: "type", Value: int32(0)}, {Key: "doc", Value: "x"}}), says: "not a document"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.file != nil {
				_, err = NewReader(bytes.NewReader(tt.file)).Next()
			} else {
				_, err = DecodeChunk(tt.chunk)
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("err %v, want ErrCorrupt saying %q", err, tt.says)
			}
		})
	}
}

// encodePlain wraps an inflated chunk's bytes as a chunk's Data.
func encodePlain(t testing.TB, plain []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	out.Write([]byte{byte(len(plain)), byte(len(plain) >> 8), byte(len(plain) >> 16), byte(len(plain) >> 24)})
	zw := newZlib(&out)
	zw.Write(plain)
	zw.Close()
	return out.Bytes()
}

func realFile(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "ftdc", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
