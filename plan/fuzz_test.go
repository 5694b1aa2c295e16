package plan

import "testing"

// FuzzParseLevels: the --concurrency/--pool parser never panics, and what
// it accepts is a sorted, de-duplicated list of values within bounds.
func FuzzParseLevels(f *testing.F) {
	for _, s := range []string{"64,128,256", "1..256x2", "100..1000+100", "1..10x1.5,500", "1..10x1e308", "0", "-5", "64..abc", "1..2x", ",", "9223372036854775807", "1..64xInf", "1..64x1.0000000001", "1..100000+1"} {
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
