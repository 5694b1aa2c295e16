package plot

import "github.com/poolsweep/poolsweep/results"

type sweepStep = results.StepResult

// sampleRW returns a server sample's read and write latency (µs), nil when
// not reported.
func sampleRW(t *results.ServerSample) (rd, wr *float64) {
	if t == nil {
		return nil, nil
	}
	return t.ReadLatencyUS, t.WriteLatencyUS
}

// readWriteCounts is how many read and write ops a step did, by
// results.OpClassOf as everywhere read and write latency are told apart.
func readWriteCounts(s *sweepStep) (reads, writes float64) {
	for typ, st := range s.OpsByType {
		switch results.OpClassOf(typ) {
		case results.OpClassRead:
			reads += float64(st.Count)
		case results.OpClassWrite:
			writes += float64(st.Count)
		}
	}
	return reads, writes
}
