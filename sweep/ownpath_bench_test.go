package sweep

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/workload"
)

// BenchmarkWorkerOwnPath: the worker's per-call path around the driver
// call (draw the call and its ops' arguments, time them, keep the op
// context, classify and record), with no server: the part of the hot
// path poolsweep owns, measured apart from the driver's, whose noise
// hides it in BenchmarkOverhead.
func BenchmarkWorkerOwnPath(b *testing.B) {
	wl := workload.DefaultWorkload()
	for _, mix := range []string{"read", "update", "scan", "rmw"} {
		b.Run(mix, func(b *testing.B) {
			wl.Mix = []workload.MixEntry{{Op: mix, Weight: 1}}
			rec := newRecorder(5*time.Second, 1)
			rec.openWindow()
			w := worker{rng: rand.New(rand.NewPCG(1, 2)), wl: &wl, keys: workload.NewKeySpace("zipfian", 10000, 10000), rec: rec,
				parent: context.Background(), timeout: 5 * time.Second}
			defer w.release()
			b.ReportAllocs()
			for b.Loop() {
				c := w.caller()
				n := c.Next()
				if n == 1 {
					typ := int(c.Prepare(0))
					start := rec.startOne(0, typ)
					w.opContext()
					kind, err := w.outcome(start, nil)
					rec.endOne(0, typ, start, kind, workload.LookupNone, err, true)
					continue
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
		})
	}
}
