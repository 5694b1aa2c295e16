package fromftdc

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/ftdc"
	"github.com/poolsweep/poolsweep/internal/testkit/ftdctest"
)

// hostileSamples is what each hostile chunk declares: 16 metrics ×
// 524,288 samples, the ftdc reader's most values (64 MiB of int64).
const hostileSamples = 1 << 19

// paidChunk declares hostileSamples samples and pays one byte of deltas
// for each (start's, a millisecond apart, as the format requires), every
// other metric a zero run: a few hundred bytes once compressed.
func paidChunk(at time.Time) []byte {
	ref := ftdctest.Reference(at, "h1:27017", 13)
	deltas := bytes.Repeat([]byte{1}, hostileSamples-1)
	deltas = append(deltas, 0)
	deltas = binary.AppendUvarint(deltas, 15*(hostileSamples-1)-1)
	return ftdctest.Chunk(ref, 16, hostileSamples-1, deltas)
}

// timelessChunk has no start field and declares the samples in one zero
// run: a few dozen bytes.
func timelessChunk() []byte {
	ref, _ := bson.Marshal(bson.D{{Key: "serverStatus", Value: bson.D{{Key: "host", Value: "h1:27017"}, {Key: "a", Value: int64(1)}}}})
	deltas := binary.AppendUvarint([]byte{0}, hostileSamples-2)
	return ftdctest.Chunk(ref, 1, hostileSamples-1, deltas)
}

// hostileFolder writes a folder: one honest chunk of 3 samples, then n
// paid chunks, and n more in a second file, timeless or paid. It returns
// the folder and its bytes.
func hostileFolder(t testing.TB, n int, timeless bool) (string, int64) {
	t.Helper()
	at := time.Date(2024, 9, 5, 16, 39, 3, 0, time.UTC)
	var a, b bytes.Buffer
	a.Write(ftdctest.MetricDoc(at, ftdctest.Chunk(ftdctest.Reference(at, "h1:27017", 2), 5, 2, ftdctest.Honest(2, 2))))
	for i := range n {
		a.Write(ftdctest.MetricDoc(at.Add(time.Duration(i)*time.Hour), paidChunk(at.Add(time.Duration(i)*time.Hour))))
		second := paidChunk(at.Add(time.Duration(n+i) * time.Hour))
		if timeless {
			second = timelessChunk()
		}
		b.Write(ftdctest.MetricDoc(at.Add(time.Duration(n+i)*time.Hour), second))
	}
	dir := filepath.Join(t.TempDir(), "diagnostic.data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"metrics.2024-09-05T16-39-03Z-00000": a.Bytes(), "metrics.2024-09-06T16-39-03Z-00000": b.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, int64(a.Len() + b.Len())
}

// allocated is what f allocates, in bytes.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHostileChunksBounded: a folder of a few kilobytes whose chunks
// declare half a million samples each costs what its bytes pay for (the
// budget: ftdc.BudgetFloor and ftdc.BudgetPerByte a byte), not what the
// chunks declare (64 MiB each); every such chunk is left out with a
// warning naming its file, and the honest chunk before them is read.
func TestHostileChunksBounded(t *testing.T) {
	const n = 4
	dir, size := hostileFolder(t, n, true)
	var c *Capture
	var err error
	got := allocated(func() { c, err = ReadFolder(context.Background(), dir, nil) })
	limit := uint64(ftdc.BudgetFloor + ftdc.BudgetPerByte*size + 4<<20)
	t.Logf("%d bytes of FTDC, %d chunks declaring %d samples each: %.1f MiB allocated (bound %.1f MiB)", size, 2*n, hostileSamples, float64(got)/(1<<20), float64(limit)/(1<<20))
	if got > limit {
		t.Errorf("reading %d bytes allocated %.1f MiB, more than the %.1f MiB its bytes pay for", size, float64(got)/(1<<20), float64(limit)/(1<<20))
	}
	if err != nil {
		t.Fatal(err)
	}
	if c.Samples != 3 || c.LeftOut != 2*n || len(c.Warnings) != 2*n {
		t.Fatalf("%d samples, %d chunks left out, warnings %q", c.Samples, c.LeftOut, c.Warnings)
	}
	for _, w := range c.Warnings {
		if !strings.Contains(w, filepath.Join(dir, "metrics.2024-09-0")) || !strings.Contains(w, "left out") {
			t.Errorf("warning %q does not name the file", w)
		}
	}
}

// TestZeroRunChunkRefused: a chunk whose samples carry start times but
// whose deltas are one zero run declares samples its bytes cannot hold
// (each later start time costs a byte): the folder is refused, naming the
// file and document, before the chunk's values are made.
func TestZeroRunChunkRefused(t *testing.T) {
	at := time.Date(2024, 9, 5, 16, 39, 3, 0, time.UTC)
	ref := ftdctest.Reference(at, "h1:27017", 13)
	chunk := ftdctest.Chunk(ref, 16, hostileSamples-1, binary.AppendUvarint([]byte{0}, 16*(hostileSamples-1)-1))
	dir := filepath.Join(t.TempDir(), "diagnostic.data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics.interim"), ftdctest.MetricDoc(at, chunk), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	got := allocated(func() { _, err = ReadFolder(context.Background(), dir, nil) })
	if err == nil || !strings.Contains(err.Error(), "metrics.interim: document 1") {
		t.Fatalf("err %v", err)
	}
	if _, err := ftdc.DecodeChunk(chunk); !errors.Is(err, ftdc.ErrCorrupt) || !strings.Contains(err.Error(), "bytes of deltas hold at most") {
		t.Errorf("decoded alone: %v", err)
	}
	if got > 8<<20 {
		t.Errorf("refusing it allocated %.1f MiB", float64(got)/(1<<20))
	}
}

// BenchmarkHostileFolder reads a folder of 80 chunks declaring 524,288
// samples each (about 40 KB); compare its B/op with the folder's bytes.
func BenchmarkHostileFolder(b *testing.B) {
	dir, size := hostileFolder(b, 40, false)
	b.ReportAllocs()
	b.ReportMetric(float64(size), "folder-bytes")
	for b.Loop() {
		if _, err := ReadFolder(context.Background(), dir, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRealFolder reads the real 4.2.12 capture, for comparison.
func BenchmarkRealFolder(b *testing.B) {
	dir := folder(b, "metrics-4.2.12")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFolder(context.Background(), dir, nil); err != nil {
			b.Fatal(err)
		}
	}
}
