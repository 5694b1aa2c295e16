package workload

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

func TestParseMix(t *testing.T) {
	tests := []struct {
		in      string
		want    string // FormatMix of the result
		wantErr string
	}{
		{"read=70,update=30", "read=70,update=30", ""},                       // percentages
		{"read=0.95,update=0.05", "read=95,update=5", ""},                    // proportions
		{"update=30,read=70", "read=70,update=30", ""},                       // order does not matter: largest first
		{"read=50,scan=25,insert=25,rmw=0", "read=50,scan=25,insert=25", ""}, // zero shares are dropped
		{"READ=100", "read=100", ""},                                         // case-insensitive op names
		{"read=70,update=20", "", "sum to 90"},                               // doesn't sum to 100
		{"read=0.5,update=0.4", "", "sum to 0.9"},                            // doesn't sum to 1
		{"read=70,delete=30", "", `"delete" is not one of`},                  // unknown op
		{"read=70,read=30", "", "given twice"},                               // duplicate
		{"read=-10,update=110", "", "negative share"},                        // negative
		{"read=x", "", "not a number"},                                       // not a number
		{"read", "", "not op=share"},                                         // no value
		{"", "", "empty mix"},                                                // empty
	}
	for _, tt := range tests {
		got, err := ParseMix(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseMix(%q) error = %v, want containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || FormatMix(got) != tt.want {
			t.Errorf("ParseMix(%q) = %v, %v; want %s", tt.in, FormatMix(got), err, tt.want)
		}
	}
}

func TestParseMixes(t *testing.T) {
	ws, err := ParseMixes("100:0:0,0:0:100,50:50:0,0:50:50,30:70:0,0:70:30", DefaultWorkload())
	if err != nil {
		t.Fatal(err)
	}
	// the audit-log study's six mixes, each a series labelled by its mix
	if len(ws) != 6 || ws[0].Label != "mix 100:0:0" || FormatMix(ws[0].Mix) != "insert=100" || FormatMix(ws[4].Mix) != "read=70,insert=30" {
		t.Fatalf("got %+v", ws)
	}
	for _, bad := range []struct{ in, want string }{
		{"100:0", "not insert:read:update"},
		{"50:40:0", "sum to 90"},
		{"a:b:c", "not a non-negative number"},
		{"100:0:0,100:0:0", "given twice"},
		{"", "empty list"},
	} {
		if _, err := ParseMixes(bad.in, DefaultWorkload()); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParseMixes(%q) = %v, want %q", bad.in, err, bad.want)
		}
	}
}

func TestBuiltinWorkload(t *testing.T) {
	api, err := BuiltinWorkload("api", "")
	if err != nil || api.OpsPerCall() != 3 {
		t.Fatalf("api: %+v %v", api, err)
	}
	rmw, _ := BuiltinWorkload("mixed", "rmw=50,read=50")
	if math.Abs(rmw.OpsPerCall()-1.5) > 1e-9 {
		t.Errorf("rmw=50,read=50 has 1.5 ops per call, got %g", rmw.OpsPerCall())
	}
	if _, err := BuiltinWorkload("bogus", ""); err == nil || !strings.Contains(err.Error(), "--workload") {
		t.Errorf("bogus workload: %v", err)
	}
	if _, err := BuiltinWorkload("read", "read=100"); err == nil || !strings.Contains(err.Error(), "--mix") {
		t.Errorf("--mix with read: %v", err)
	}
	if _, err := BuiltinWorkload("mixed", "read=60"); err == nil || !strings.Contains(err.Error(), "--mix") {
		t.Errorf("bad mix: %v", err)
	}
}

func TestWorkloadValidate(t *testing.T) {
	for _, tt := range []struct {
		mutate func(*Workload)
		want   string
	}{
		{func(w *Workload) { w.Records, w.From.Records = 0, "--records" }, "--records"},
		{func(w *Workload) { w.Database = "admin" }, "system database"},
		{func(w *Workload) { w.Database = "a.b" }, "--database"},
		{func(w *Workload) { w.Distribution, w.From.Distribution = "hotspot", "--distribution" }, "--distribution"},
	} {
		w := DefaultWorkload()
		tt.mutate(&w)
		if err := w.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate() = %v, want %q", err, tt.want)
		}
	}
	if err := DefaultWorkload().Validate(); err != nil {
		t.Errorf("default workload invalid: %v", err)
	}
}

func TestParsePropertyFile(t *testing.T) {
	f, err := os.Open("../testdata/workloada")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := ParsePropertyFile(f, "workloada", DefaultWorkload())
	if err != nil {
		t.Fatal(err)
	}
	w := pf.Workload
	if w.Records != 1000 || FormatMix(w.Mix) != "read=50,update=50" || w.Distribution != "zipfian" || w.FieldCount != 10 || w.FieldLength != 100 {
		t.Errorf("workloada parsed as %+v", w)
	}
	if len(pf.Notes) != 4 || !strings.Contains(strings.Join(pf.Notes, "\n"), "operationcount ignored") {
		t.Errorf("notes: %q", pf.Notes)
	}
	if len(pf.Warnings) != 1 || !strings.Contains(pf.Warnings[0], "unknown key mongodb.url") {
		t.Errorf("warnings: %q", pf.Warnings)
	}

	for _, bad := range []struct{ body, want string }{
		{"readproportion=0.5\nupdateproportion=0.4\n", "sum to 0.9"},
		{"readproportion=abc\n", "not a proportion"},
		{"recordcount=many\nreadproportion=1\n", "recordcount"},
		{"readproportion=1\nrequestdistribution=hotspot\n", "w:2: requestdistribution: not one poolsweep supports"},
		{"recordcount=10\n", "no *proportion key"},
	} {
		if _, err := ParsePropertyFile(strings.NewReader(bad.body), "w", DefaultWorkload()); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: err = %v, want %q", bad.body, err, bad.want)
		}
	}
}

func TestKeySpace(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dist := range Distributions {
		k := NewKeySpace(dist, 1000, 1000)
		counts := map[int64]int{}
		for i := 0; i < 20000; i++ {
			n := k.Pick(r)
			if n < 0 || n >= k.next.Load() {
				t.Fatalf("%s: key %d outside [0, %d)", dist, n, k.next.Load())
			}
			counts[n]++
		}
		top := 0
		for _, c := range counts {
			top = max(top, c)
		}
		// uniform: no key much hotter than 20 draws; skewed: the hottest key takes a few percent
		if dist == "uniform" && top > 60 || dist != "uniform" && top < 400 {
			t.Errorf("%s: hottest key drawn %d of 20000 times", dist, top)
		}
	}
	k := NewKeySpace("uniform", 10, 10)
	if a, b := k.NextInsert(), k.NextInsert(); a != 10 || b != 11 || k.next.Load() != 12 {
		t.Errorf("inserts got %d, %d, inserted %d", a, b, k.next.Load())
	}
}
