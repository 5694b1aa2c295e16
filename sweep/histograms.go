package sweep

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/poolsweep/poolsweep/results"
)

// newStepHistograms encodes the window's merged call and op histograms;
// op types with no samples are left out, as they are from ops_by_type.
func newStepHistograms(call *hdr.Histogram, ops []*hdr.Histogram, types []string) *results.StepHistograms {
	sh := &results.StepHistograms{Call: results.EncodeHistogram(call), Ops: map[string]string{}}
	for j, h := range ops {
		if h.TotalCount() > 0 {
			sh.Ops[types[j]] = results.EncodeHistogram(h)
		}
	}
	return sh
}

// histogram is the window's checkout waits, merged over the servers
// (hostPools records each checkout once, by the server it went to).
func (p *poolRecorder) histogram() *hdr.Histogram { return p.hosts.histogram() }
