package knee

import "encoding/json"

// JSON encoding: a value the analysis could not give is null, never a 0
// that reads as a measurement. The Go fields keep their zero values (and
// their meaning "unknown") so existing callers are unchanged; these
// marshallers say it in the JSON. Key order is the struct's.

func intOrNull(v int, known bool) *int {
	if !known {
		return nil
	}
	return &v
}

func floatOrNull(v float64, known bool) *float64 {
	if !known {
		return nil
	}
	return &v
}

// MarshalJSON writes concurrency, low, high and qps as null when no knee
// was found.
func (k Knee) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Found           bool     `json:"found"`
		Concurrency     *int     `json:"concurrency"`
		Low             *int     `json:"low"`
		High            *int     `json:"high"`
		QPS             *float64 `json:"qps"`
		Confidence      string   `json:"confidence"`
		Statement       string   `json:"statement"`
		Stability       *float64 `json:"stability,omitempty"`
		Resamples       int      `json:"resamples,omitempty"`
		LoadHostLimited []int    `json:"load_host_limited,omitempty"`
	}{
		Found: k.Found, Concurrency: intOrNull(k.Concurrency, k.Found), Low: intOrNull(k.Low, k.Found),
		High: intOrNull(k.High, k.Found), QPS: floatOrNull(k.QPS, k.Found), Confidence: k.Confidence,
		Statement: k.Statement, Stability: k.Stability, Resamples: k.Resamples, LoadHostLimited: k.LoadHostLimited,
	})
}

// MarshalJSON writes null for a peak that does not exist (no usable
// measurements).
func (p Peak) MarshalJSON() ([]byte, error) {
	known := p.Concurrency > 0
	return json.Marshal(struct {
		Concurrency *int     `json:"concurrency"`
		QPS         *float64 `json:"qps"`
	}{intOrNull(p.Concurrency, known), floatOrNull(p.QPS, known)})
}

// MarshalJSON writes connections as null when no step recorded them.
func (l Level) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Concurrency    int      `json:"concurrency"`
		Connections    *int     `json:"connections"`
		Trials         int      `json:"trials"`
		QPS            float64  `json:"qps"`
		QPSLow         float64  `json:"qps_low"`
		QPSHigh        float64  `json:"qps_high"`
		QPSMean        float64  `json:"qps_mean"`
		P99Ms          *float64 `json:"p99_ms"`
		ServerInFlight *float64 `json:"server_in_flight"`
		Bound          string   `json:"bound,omitempty"`
		PoolWaitP99Ms  float64  `json:"pool_wait_p99_ms,omitempty"`
		MeanLatencyMs  float64  `json:"mean_latency_ms,omitempty"`
		MaxPoolSize    int      `json:"max_pool_size,omitempty"`
	}{
		Concurrency: l.Concurrency, Connections: intOrNull(l.Connections, l.Connections > 0), Trials: l.Trials,
		QPS: l.QPS, QPSLow: l.QPSLow, QPSHigh: l.QPSHigh, QPSMean: l.QPSMean, P99Ms: l.P99Ms, ServerInFlight: l.ServerInFlight,
		Bound:         l.Bound,
		PoolWaitP99Ms: l.PoolWaitP99Ms, MeanLatencyMs: l.MeanLatencyMs, MaxPoolSize: l.MaxPoolSize,
	})
}

// MarshalJSON writes the parameters as null when nothing was fitted, and
// peak_qps as null when the fit has no finite peak (κ = 0) or was rejected;
// a fit that levels off (σ > 0, κ = 0) gives its asymptote instead. A
// rejected fit keeps its parameters and R², with bound null.
func (u USL) MarshalJSON() ([]byte, error) {
	var bound *string
	if u.Accepted() {
		bound = &u.Bound
	}
	return json.Marshal(struct {
		Fitted       bool     `json:"fitted"`
		Skipped      string   `json:"skipped,omitempty"`
		Rejected     string   `json:"rejected,omitempty"`
		Lambda       *float64 `json:"lambda"`
		Sigma        *float64 `json:"sigma"`
		Kappa        *float64 `json:"kappa"`
		NStar        *float64 `json:"n_star"`
		PeakQPS      *float64 `json:"peak_qps"`
		AsymptoteQPS *float64 `json:"asymptote_qps,omitempty"`
		R2           *float64 `json:"r2"`
		Bound        *string  `json:"bound"`
		Points       int      `json:"points,omitempty"`
	}{
		Fitted: u.Fitted, Skipped: u.Skipped, Rejected: u.Rejected,
		Lambda: floatOrNull(u.Lambda, u.Fitted), Sigma: floatOrNull(u.Sigma, u.Fitted), Kappa: floatOrNull(u.Kappa, u.Fitted),
		NStar: u.NStar, PeakQPS: floatOrNull(u.PeakQPS, u.Accepted() && u.NStar != nil),
		AsymptoteQPS: floatOrNull(u.PeakQPS, u.Accepted() && u.NStar == nil && u.Sigma > 0),
		R2:           floatOrNull(u.R2, u.Fitted), Bound: bound, Points: u.Points,
	})
}

// MarshalJSON writes null settings when there was nothing to recommend.
func (r Recommendation) MarshalJSON() ([]byte, error) {
	known := r.Concurrency > 0
	return json.Marshal(struct {
		Concurrency *int   `json:"concurrency"`
		MaxPoolSize *int   `json:"max_pool_size"`
		Why         string `json:"why"`
		PoolBound   bool   `json:"pool_bound"`
	}{intOrNull(r.Concurrency, known), intOrNull(r.MaxPoolSize, known), r.Why, r.PoolBound})
}
