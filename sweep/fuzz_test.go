package sweep

import (
	"strings"
	"testing"
)

// FuzzParseLevels: the --concurrency/--pool parser never panics, and what
// it accepts is a sorted, de-duplicated list of values within bounds.
func FuzzParseLevels(f *testing.F) {
	for _, s := range []string{"64,128,256", "1..256x2", "100..1000+100", "1..10x1.5,500", "1..10x1e308", "0", "-5", "64..abc", "1..2x", ",", "9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		levels, err := ParseLevels(s, MaxConcurrency)
		if err != nil {
			return
		}
		if len(levels) == 0 || len(levels) > MaxLevels {
			t.Fatalf("%q: %d levels", s, len(levels))
		}
		for i, v := range levels {
			if v < 1 || v > MaxConcurrency || (i > 0 && v <= levels[i-1]) {
				t.Fatalf("%q: levels %v are not sorted, unique and in bounds", s, levels)
			}
		}
	})
}

// FuzzParsePropertyFile: a YCSB property file never panics the parser,
// and an accepted one gives a workload whose shares sum to 1.
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
