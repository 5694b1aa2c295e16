//go:build unix

package fdlimit

import (
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestEnsureRaisesSoftLimit: with the soft limit lowered below what is
// needed and the hard limit above it, Ensure raises the soft limit (to
// the hard one) instead of refusing.
func TestEnsureRaisesSoftLimit(t *testing.T) {
	var orig syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &orig); err != nil {
		t.Fatal(err)
	}
	if orig.Max < 1024 {
		t.Fatalf("hard limit %d: this test needs at least 1024 to lower the soft one under", orig.Max)
	}
	t.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &orig) })
	low := orig
	low.Cur = 128
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	if err := Ensure(1000); err != nil {
		t.Fatalf("Ensure(1000) under soft 128, hard %d: %v", orig.Max, err)
	}
	now, ok := Current()
	if !ok || now.Soft != uint64(orig.Max) || now.Hard != uint64(orig.Max) {
		t.Errorf("after Ensure: %+v, want the soft limit raised to the hard %d", now, orig.Max)
	}
}

// TestEnsurePastHardLimit: what even the hard limit cannot hold is a
// *ShortError saying both limits and the ulimit to give.
func TestEnsurePastHardLimit(t *testing.T) {
	lim, ok := Current()
	if !ok {
		t.Fatal("no limit on a unix platform")
	}
	if err := Ensure(lim.Soft); err != nil {
		t.Errorf("Ensure(the soft limit %d): %v", lim.Soft, err)
	}
	need := lim.Hard + 1
	if need == 0 {
		t.Fatal("an unlimited hard limit: nothing lies past it (Linux bounds it by fs.nr_open)")
	}
	err := Ensure(need)
	var short *ShortError
	if !errors.As(err, &short) {
		t.Fatalf("Ensure(%d) past the hard limit %d = %v, want a *ShortError", need, lim.Hard, err)
	}
	if short.Need != need || short.Hard != lim.Hard {
		t.Errorf("%+v, want need %d and hard %d", short, need, lim.Hard)
	}
	msg := err.Error()
	for _, part := range []string{"need " + strconv.FormatUint(need, 10) + " file descriptors", "hard limit " + strconv.FormatUint(lim.Hard, 10), "ulimit -n " + strconv.FormatUint(need, 10)} {
		if !strings.Contains(msg, part) {
			t.Errorf("%q lacks %q", msg, part)
		}
	}
}
