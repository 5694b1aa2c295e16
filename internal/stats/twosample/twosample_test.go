package twosample

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestUDistribution(t *testing.T) {
	for _, n := range [][2]int{{1, 1}, {3, 3}, {4, 6}, {5, 5}, {8, 3}} {
		d := uDistribution(n[0], n[1])
		sum := 0.0
		for i, p := range d {
			sum += p
			// The null distribution of U is symmetric about n1·n2/2.
			if !near(p, d[len(d)-1-i], 1e-12) {
				t.Errorf("%v: P(U=%d)=%g but P(U=%d)=%g", n, i, p, len(d)-1-i, d[len(d)-1-i])
			}
		}
		if !near(sum, 1, 1e-12) || len(d) != n[0]*n[1]+1 {
			t.Errorf("%v: %d values summing to %g", n, len(d), sum)
		}
	}
	// 3 vs 3: 20 arrangements, one with U=0 and one with U=1.
	d := uDistribution(3, 3)
	if !near(d[0], 1.0/20, 1e-12) || !near(d[1], 1.0/20, 1e-12) || !near(d[2], 2.0/20, 1e-12) {
		t.Errorf("3v3 head = %v", d[:3])
	}
}

func TestMannWhitneyP(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []float64
		want float64
	}{
		// Fully separated 3 vs 3: the smallest p a 3v3 rank test can give, 2/20.
		{"3v3 separated", []float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},
		// Fully separated 4 vs 4: 2/C(8,4) = 2/70, the first size below 0.05.
		{"4v4 separated", []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 2.0 / 70},
		// Fully separated 5 vs 5: 2/252.
		{"5v5 separated", []float64{10, 11, 12, 13, 14}, []float64{1, 2, 3, 4, 5}, 2.0 / 252},
		// Interleaved 5 vs 5: U=10, P(U<=10)=87/252 (R's wilcox.test gives 0.6905).
		{"5v5 interleaved", []float64{1, 3, 5, 7, 9}, []float64{2, 4, 6, 8, 10}, 174.0 / 252},
		// With a tie, exact enumeration of midranks {1,2.5,2.5,4}: 4 of 6 splits as extreme (by hand).
		{"tie enumeration", []float64{1, 2}, []float64{2, 3}, 4.0 / 6},
		// All values equal: no evidence at all.
		{"all tied", []float64{0, 0, 0, 0}, []float64{0, 0, 0, 0}, 1},
		// Constant but different sides (errors 0 vs 5): ties within sides, still fully separated: 2/70.
		{"constant sides", []float64{0, 0, 0, 0}, []float64{5, 5, 5, 5}, 2.0 / 70},
	} {
		if got := mannWhitneyP(tc.x, tc.y); !near(got, tc.want, 1e-9) {
			t.Errorf("%s: p = %.6f, want %.6f", tc.name, got, tc.want)
		}
	}
}

// The three p-value paths (U distribution, enumeration with ties, normal
// approximation) must agree where they overlap.
func TestMannWhitneyPathsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 30 {
		x, y := make([]float64, 6), make([]float64, 7)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		for i := range y {
			y[i] = r.NormFloat64() + 0.8
		}
		ranks, _ := midranks(x, y)
		r1 := 0.0
		for _, v := range ranks[:len(x)] {
			r1 += v
		}
		dev := math.Abs(r1 - float64(len(x)*(len(x)+1))/2 - float64(len(x)*len(y))/2)
		exact := mannWhitneyP(x, y)
		if enum := enumerateP(ranks, len(x), dev); !near(exact, enum, 1e-9) {
			t.Fatalf("exact %g != enumeration %g", exact, enum)
		}
	}
	// Large samples: the normal approximation (used beyond the exact
	// limits) is within 0.01 of the exact distribution.
	for range 20 {
		x, y := make([]float64, 40), make([]float64, 40)
		for i := range x {
			x[i] = r.NormFloat64()
			y[i] = r.NormFloat64() + 0.3
		}
		exact := mannWhitneyP(x, y)
		ranks, _ := midranks(x, y)
		r1 := 0.0
		for _, v := range ranks[:len(x)] {
			r1 += v
		}
		dev := math.Abs(r1 - float64(len(x)*(len(x)+1))/2 - float64(len(x)*len(y))/2)
		if approx := normalP(ranks, len(x), len(y), dev); !near(exact, approx, 0.005) {
			t.Errorf("exact %g vs normal approximation %g", exact, approx)
		}
	}
}

func TestHodgesLehmannCI(t *testing.T) {
	x := []float64{0, 0, 0, 0, 0}
	y := []float64{1, 2, 3, 4, 5}
	// 5 vs 5 at alpha 0.05: P(U<=2)=4/252 so k=3, confidence 1-8/252; the
	// 25 differences are 1..5 five times each, the 3rd smallest 1 and the
	// 3rd largest 5.
	lo, hi, conf, ok := hodgesLehmannCI(x, y, 0.05)
	if !ok || lo != 1 || hi != 5 || !near(conf, 1-8.0/252, 1e-12) {
		t.Errorf("got [%g, %g] conf %g ok %v", lo, hi, conf, ok)
	}
	// 3 vs 3 cannot reach 95%.
	if _, _, _, ok := hodgesLehmannCI(x[:3], y[:3], 0.05); ok {
		t.Error("3v3 gave a 95% interval")
	}
}

func TestWelch(t *testing.T) {
	// R: t.test(c(4,5,6), c(1,2,3)): t = 3.6742, df = 4, p = 0.02131,
	// 95% CI 0.7330 .. 5.2670.
	r := welch([]float64{1, 2, 3}, []float64{4, 5, 6}, 0.05)
	if !near(r.P, 0.02131, 5e-5) || !near(r.Lo, 0.7330, 5e-4) || !near(r.Hi, 5.2670, 5e-4) {
		t.Errorf("welch = p %g [%g, %g]", r.P, r.Lo, r.Hi)
	}
	// Constant, equal sides: no difference; constant, different: certain.
	if r := welch([]float64{2, 2, 2}, []float64{2, 2, 2}, 0.05); r.P != 1 {
		t.Errorf("equal constants: p = %g", r.P)
	}
	if r := welch([]float64{2, 2, 2}, []float64{3, 3, 3}, 0.05); r.P != 0 || r.Lo != 1 || r.Hi != 1 {
		t.Errorf("different constants: p = %g [%g, %g]", r.P, r.Lo, r.Hi)
	}
}
