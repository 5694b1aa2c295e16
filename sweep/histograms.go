package sweep

import (
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// encodeHDR is h in HdrHistogram's V2 compressed base64 encoding; "" only
// if encoding fails, which it does not for an in-memory histogram.
func encodeHDR(h *hdr.Histogram) string {
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

// DecodeHistogram decodes one histogram of a step record.
func DecodeHistogram(s string) (*hdr.Histogram, error) {
	if s == "" {
		return nil, fmt.Errorf("empty histogram")
	}
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}

// newStepHistograms encodes the window's merged call and op histograms;
// op types with no samples are left out, as they are from ops_by_type.
func newStepHistograms(call *hdr.Histogram, ops [4]*hdr.Histogram) *StepHistograms {
	sh := &StepHistograms{Call: encodeHDR(call), Ops: map[string]string{}}
	for j, h := range ops {
		if h.TotalCount() > 0 {
			sh.Ops[opTypes[j]] = encodeHDR(h)
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

// checkoutQuantiles summarises checkout waits as poolRecorder.summary does.
func checkoutQuantiles(h *hdr.Histogram) Quantiles {
	if h.TotalCount() == 0 {
		return Quantiles{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Quantiles{Mean: h.Mean() / 1000, P50: ms(h.ValueAtQuantile(50)), P99: ms(h.ValueAtQuantile(99)), Max: ms(h.Max())}
}

// mergeEncoded decodes and merges encoded histograms into one; a value
// that does not fit (it cannot, with poolsweep's own ranges) is an error
// rather than a silently smaller count.
func mergeEncoded(encoded []string) (*hdr.Histogram, error) {
	var hs []*hdr.Histogram
	var highest int64 = 1
	for _, e := range encoded {
		h, err := DecodeHistogram(e)
		if err != nil {
			return nil, err
		}
		hs = append(hs, h)
		highest = max(highest, h.HighestTrackableValue())
	}
	out := hdr.New(1, max(highest, 2), 3)
	for _, h := range hs {
		if dropped := out.Merge(h); dropped > 0 {
			return nil, fmt.Errorf("merge histograms: %d values out of range", dropped)
		}
	}
	return out, nil
}
