package results

import (
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// EncodeHistogram is h in HdrHistogram's V2 compressed base64 encoding,
// as StepHistograms holds it; "" only if encoding fails, which it does
// not for an in-memory histogram.
func EncodeHistogram(h *hdr.Histogram) string {
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

// NewLatencySummary summarises a histogram of microseconds as the
// milliseconds of latency_ms; the zero summary when h is empty.
func NewLatencySummary(h *hdr.Histogram) LatencySummary {
	if h.TotalCount() == 0 {
		return LatencySummary{}
	}
	return LatencySummary{
		Mean: h.Mean() / 1000,
		P50:  usToMS(h.ValueAtQuantile(50)),
		P90:  usToMS(h.ValueAtQuantile(90)),
		P99:  usToMS(h.ValueAtQuantile(99)),
		P999: usToMS(h.ValueAtQuantile(99.9)),
		Max:  usToMS(h.Max()),
	}
}

// NewQuantiles summarises a histogram of microseconds as the
// milliseconds of a short summary (pool checkout wait); the zero value
// when h is empty.
func NewQuantiles(h *hdr.Histogram) Quantiles {
	if h.TotalCount() == 0 {
		return Quantiles{}
	}
	return Quantiles{Mean: h.Mean() / 1000, P50: usToMS(h.ValueAtQuantile(50)), P99: usToMS(h.ValueAtQuantile(99)), Max: usToMS(h.Max())}
}

func usToMS(us int64) float64 { return float64(us) / 1000 }

// sourced is one encoded histogram and where it came from (the file and
// step), so that an error names the record at fault.
type sourced struct {
	where, encoded string
}

// mergeEncoded decodes and merges encoded histograms into one; a value
// that does not fit (it cannot, with poolsweep's own ranges) is an error
// rather than a silently smaller count. An error names the histogram's
// source.
func mergeEncoded(encoded []sourced) (*hdr.Histogram, error) {
	var hs []*hdr.Histogram
	var highest int64 = 1
	for _, e := range encoded {
		h, err := DecodeHistogram(e.encoded)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.where, err)
		}
		hs = append(hs, h)
		highest = max(highest, h.HighestTrackableValue())
	}
	out := hdr.New(1, max(highest, 2), 3)
	for i, h := range hs {
		if dropped := out.Merge(h); dropped > 0 {
			return nil, fmt.Errorf("%s: merge histograms: %d values out of range", encoded[i].where, dropped)
		}
	}
	return out, nil
}
