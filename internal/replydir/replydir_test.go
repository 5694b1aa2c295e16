package replydir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
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
