package workload

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestZipfianKeysFollowTheirWeights: a zipfian key space draws its hottest
// ranks at exactly 1/(k+1)^θ over the sum of the weights, as a workload
// file's zipfian values do (one generator for both). Gray's
// approximation puts rank 2 of 1,000 records about 17% heavy.
func TestZipfianKeysFollowTheirWeights(t *testing.T) {
	const records, draws = 1000, 400_000
	k := NewKeySpace("zipfian", records, records)
	r := rand.New(rand.NewPCG(5, 6))
	counts := map[int64]int{}
	for range draws {
		counts[k.Pick(r)]++
	}
	z := 0.0
	for i := 1; i <= records; i++ {
		z += 1 / math.Pow(float64(i), zipfTheta)
	}
	for rank := range 4 {
		key := int64(fnv64(uint64(rank)) % records) // Pick scrambles ranks over the keys
		want := 1 / math.Pow(float64(rank+1), zipfTheta) / z
		got := float64(counts[key]) / draws
		// Four standard errors of a binomial share.
		if tol := 4 * math.Sqrt(want*(1-want)/draws); math.Abs(got-want) > tol {
			t.Errorf("rank %d (key %d) drawn %.4f of the time, want %.4f ± %.4f", rank, key, got, want, tol)
		}
	}
}
