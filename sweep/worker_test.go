package sweep

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/workload"
)

// TestWorkerOwnPathAllocatesNothing: everything a worker does per op
// around the driver call (draw the op and its arguments, time it, keep
// its op context, classify and record the outcome) allocates nothing, so
// that the client's allocations are the driver's alone. Inserts make a
// new document by nature and are left out.
func TestWorkerOwnPathAllocatesNothing(t *testing.T) {
	wl := workload.DefaultWorkload()
	for _, mix := range []string{"read", "update", "scan", "rmw", "api"} {
		wl.Name, wl.Mix = "mixed", []workload.MixEntry{{Op: mix, Weight: 1}}
		if mix == "api" {
			wl.Name = mix // its calls are 2 finds and 1 update whatever the mix
		}
		rec := newRecorder(5*time.Second, 1)
		rec.openWindow()
		w := worker{rng: rand.New(rand.NewPCG(1, 2)), wl: &wl, keys: workload.NewKeySpace("zipfian", 10000, 10000), rec: rec,
			parent: context.Background(), timeout: 5 * time.Second}
		defer w.release()
		one := func() {
			c := w.caller()
			n := c.Next()
			if n == 1 {
				typ := int(c.Prepare(0))
				start := rec.startOne(0, typ)
				w.opContext()
				kind, err := w.outcome(start, nil)
				rec.endOne(0, typ, start, kind, workload.LookupNone, err, true)
				return
			}
			start := rec.callStart(0)
			for i := range n {
				typ := int(c.Prepare(i))
				s := rec.opStart(0, typ)
				w.opContext()
				kind, err := w.outcome(s, nil)
				rec.opEnd(0, typ, s, kind, workload.LookupNone, err, true)
			}
			rec.callEnd(0, start, true)
		}
		one() // the first op makes the worker's caller and op context
		if n := testing.AllocsPerRun(1000, one); n != 0 {
			t.Errorf("%s: %.1f allocations per op in the worker's own path, want 0", mix, n)
		}
	}
}
