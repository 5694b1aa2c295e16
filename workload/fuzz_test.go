package workload

import (
	"strings"
	"testing"
)

// FuzzParsePropertyFile: a YCSB property file never panics the parser,
// its error is one short line, and an accepted one gives a workload whose
// shares sum to 1.
func FuzzParsePropertyFile(f *testing.F) {
	f.Add("recordcount=1000\nreadproportion=0.5\nupdateproportion=0.5\nrequestdistribution=zipfian\n")
	f.Add("fieldcount=100\nfieldlength=1048576\nreadproportion=1\n")
	f.Add("readproportion=-1\n")
	f.Add("insertproportion=1e309\n")
	f.Add("scanproportion=1\nmaxscanlength=0\n")
	f.Add("a=b\\\n\\u0000=\n")
	f.Fuzz(func(t *testing.T, s string) {
		pf, err := ParsePropertyFile(strings.NewReader(s), "f", DefaultWorkload())
		if err != nil {
			// Our own words, whatever the file held: one
			// short line, none of it the file's.
			if m := err.Error(); strings.Contains(m, "\n") || len(m) > 300 {
				t.Fatalf("error %q", m)
			}
			return
		}
		sum := 0.0
		for _, m := range pf.Workload.Mix {
			if m.Weight < 0 {
				t.Fatalf("negative share %+v", m)
			}
			sum += m.Weight
		}
		if sum < 0.999 || sum > 1.001 {
			t.Fatalf("shares sum to %g", sum)
		}
	})
}
