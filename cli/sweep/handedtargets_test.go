package sweep

import (
	"errors"
	"os"
	"testing"
	"time"
)

// TestReadWithinPipeHeldOpen: an agent's --targets-fd whose writer never
// closes it ends in errReadTimeout, not a hang; one closed after writing
// gives what was written.
func TestReadWithinPipeHeldOpen(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := w.WriteString(`{"uri":"mongodb://h"}`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := readWithin(r, maxHandedTargets+1, 200*time.Millisecond); !errors.Is(err, errReadTimeout) {
		t.Fatalf("writer held open: err = %v, want errReadTimeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timeout of 200ms took %s", d)
	}

	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if _, err := w2.WriteString("targets"); err != nil {
		t.Fatal(err)
	}
	w2.Close()
	b, err := readWithin(r2, 4, time.Minute)
	if err != nil || string(b) != "targ" {
		t.Fatalf("closed writer: got %q, %v; want the first 4 bytes", b, err)
	}
}
