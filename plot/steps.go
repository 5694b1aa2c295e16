package plot

import "github.com/poolsweep/poolsweep/results"

type sweepStep = results.StepResult

// Op types that count as reads and writes in RAL/WAL, as in the seeds'
// tables (YCSB's read/scan vs update/insert).
var (
	readOps  = []string{"find", "scan"}
	writeOps = []string{"update", "insert"}
)

// sampleRW returns a server sample's read and write latency (µs), nil when
// not reported.
func sampleRW(t *results.ServerSample) (rd, wr *float64) {
	if t == nil {
		return nil, nil
	}
	return t.ReadLatencyUS, t.WriteLatencyUS
}

// readWriteCounts is how many read and write ops a step did.
func readWriteCounts(s *sweepStep) (reads, writes float64) {
	for _, k := range readOps {
		reads += float64(s.OpsByType[k].Count)
	}
	for _, k := range writeOps {
		writes += float64(s.OpsByType[k].Count)
	}
	return reads, writes
}

// avgLatencyUS is the count-weighted mean latency of the given op types in
// µs; ok is false when the step did none of them.
func avgLatencyUS(s *sweepStep, kinds []string) (float64, bool) {
	var n, sum float64
	for _, k := range kinds {
		t, ok := s.OpsByType[k]
		if !ok || t.Count == 0 {
			continue
		}
		n += float64(t.Count)
		sum += float64(t.Count) * t.Latency.Mean
	}
	if n == 0 {
		return 0, false
	}
	return sum / n * 1000, true
}
