package results

import (
	"bytes"
	"testing"
)

// FuzzReadResults: a results file never panics the reader; what it
// accepts has a header and only steps that pass validation.
func FuzzReadResults(f *testing.F) {
	header := `{"kind":"run","schema":1,"run_id":"x"}` + "\n"
	step := `{"kind":"step","target":"a","concurrency":1,"max_pool_size":1,"ops_per_s":1}` + "\n"
	f.Add([]byte(header + step + `{"kind":"end","status":"complete"}` + "\n"))
	f.Add([]byte(header + step + `{"kind":"step","tar`))
	f.Add([]byte(header + `{"kind":"step","target":"a","concurrency":0,"max_pool_size":1,"ops_per_s":-1}` + "\n"))
	f.Add([]byte(`{"kind":"run","schema":99}`))
	f.Add([]byte("\x00\xff\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := ReadResults(bytes.NewReader(b), "f")
		if err != nil {
			return
		}
		if res.Header.Kind != KindRun {
			t.Fatalf("accepted without a run header")
		}
		for _, s := range res.Steps {
			if s.Concurrency < 1 || s.MaxPoolSize < 1 || s.OpsPerS < 0 || s.Target == "" {
				t.Fatalf("accepted an impossible step %+v", s)
			}
		}
	})
}
