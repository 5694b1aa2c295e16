package replydir

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/ftdc"
	"github.com/poolsweep/poolsweep/internal/testkit/ftdctest"
)

func realFTDC(t *testing.T, dir, as, from string, cut int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "ftdc", from))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, as), data[:len(data)-cut], 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoadFTDC: the newest sample comes from metrics.interim, the
// metadata from the newest archive; a file cut mid-document (a server
// killed while writing) keeps what came before the cut.
func TestLoadFTDC(t *testing.T) {
	dir := t.TempDir()
	realFTDC(t, dir, "metrics.interim", "metrics.interim-7.0.0-rc6", 0)
	realFTDC(t, dir, "metrics.2021-03-15T02-21-47Z-00000", "metrics-4.2.12", 0)
	realFTDC(t, dir, "metrics.2019-02-14T19-38-43Z-00000", "metrics-4.0.4-windows", 0)
	hosts, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := hosts[0]
	if v := h.Replies["serverStatus"].Lookup("version").StringValue(); v != "7.0.0-rc6" {
		t.Errorf("sample from %s, not the interim file", v)
	}
	if v := h.Replies["buildInfo"].Lookup("version").StringValue(); v != "4.2.12" {
		t.Errorf("metadata of %s, not the newest archive", v)
	}
	if len(h.Files) != 2 || h.SampledAt.IsZero() {
		t.Errorf("files %v, sampled %v", h.Files, h.SampledAt)
	}

	cut := t.TempDir()
	realFTDC(t, cut, "metrics.2021-03-15T02-21-47Z-00000", "metrics-4.2.12", 100)
	hosts, err = Load(cut)
	if err != nil {
		t.Fatalf("a cut file: %v", err)
	}
	if hosts[0].Replies["serverStatus"] == nil {
		t.Error("no sample from the chunks before the cut")
	}

	var bad *Error
	if _, err := Load(filepath.Join(dir, "metrics.interim")); !errors.As(err, &bad) {
		t.Errorf("a file as the folder: %v", err)
	}
}

// TestFTDCChunkOverBudget: an interim file of a few hundred bytes whose
// chunk declares half a million samples (64 MiB of values) is left out
// with a warning naming it, within what its bytes pay for, and the
// newest archive's honest sample is read instead.
func TestFTDCChunkOverBudget(t *testing.T) {
	at := time.Date(2024, 9, 5, 16, 39, 3, 0, time.UTC)
	const samples = 1 << 19
	deltas := append(bytes.Repeat([]byte{1}, samples-1), 0)
	deltas = binary.AppendUvarint(deltas, 15*(samples-1)-1)
	hostile := ftdctest.MetricDoc(at, ftdctest.Chunk(ftdctest.Reference(at, "h1:27017", 13), 16, samples-1, deltas))
	honest := ftdctest.MetricDoc(at, ftdctest.Chunk(ftdctest.Reference(at, "h1:27017", 2), 5, 2, ftdctest.Honest(2, 2)))
	dir := t.TempDir()
	for name, data := range map[string][]byte{"metrics.interim": hostile, "metrics.2024-09-05T16-39-03Z-00000": honest} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	hosts, err := Load(dir)
	runtime.ReadMemStats(&after)
	got := after.TotalAlloc - before.TotalAlloc
	limit := uint64(ftdc.BudgetFloor + ftdc.BudgetPerByte*int64(len(hostile)+len(honest)) + 4<<20)
	if got > limit {
		t.Errorf("%d bytes of FTDC allocated %.1f MiB, more than the %.1f MiB they pay for", len(hostile)+len(honest), float64(got)/(1<<20), float64(limit)/(1<<20))
	}
	if err != nil {
		t.Fatal(err)
	}
	h := hosts[0]
	if len(h.Warnings) != 1 || !strings.HasPrefix(h.Warnings[0], "metrics.interim: ") || !h.SampledAt.Equal(at.Add(2*time.Second)) {
		t.Errorf("warnings %q, sampled at %v", h.Warnings, h.SampledAt)
	}
}
