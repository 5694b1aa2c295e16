package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, f) }
func (r *recorder) Fatalf(f string, a ...any) { r.errs = append(r.errs, f) }
func (r *recorder) Fatal(a ...any)            { r.errs = append(r.errs, "fatal") }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Check(r, path, []byte("a\nb\n"))
	if len(r.errs) != 0 {
		t.Errorf("equal output failed: %v", r.errs)
	}
	Check(r, path, []byte("a\nc\n"))
	if len(r.errs) != 1 {
		t.Errorf("different output passed")
	}
	if d := diff([]byte("a\nb\n"), []byte("a\nc\n")); !strings.Contains(d, "line 2") || !strings.Contains(d, "- b") || !strings.Contains(d, "+ c") {
		t.Errorf("diff %q", d)
	}
	r = &recorder{TB: t}
	Check(r, filepath.Join(t.TempDir(), "missing.golden"), []byte("x"))
	if len(r.errs) == 0 || !strings.Contains(r.errs[0], "-update") {
		t.Errorf("missing golden file passed")
	}
	if Updating() {
		t.Log("running with -update")
	}
}
