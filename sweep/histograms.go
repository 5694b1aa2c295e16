package sweep

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/poolsweep/poolsweep/results"
)

// newStepHistograms encodes the window's merged call and op histograms;
// op types with no samples are left out, as they are from ops_by_type.
func newStepHistograms(call *hdr.Histogram, ops [4]*hdr.Histogram) *results.StepHistograms {
	sh := &results.StepHistograms{Call: results.EncodeHistogram(call), Ops: map[string]string{}}
	for j, h := range ops {
		if h.TotalCount() > 0 {
			sh.Ops[opTypes[j]] = results.EncodeHistogram(h)
		}
	}
	return sh
}

// histogram is the window's checkout waits, merged over the stripes.
func (p *poolRecorder) histogram() *hdr.Histogram {
	h := hdr.New(1, 600_000_000, 3)
	for i := range p.s {
		p.s[i].mu.Lock()
		h.Merge(p.s[i].h)
		p.s[i].mu.Unlock()
	}
	return h
}
