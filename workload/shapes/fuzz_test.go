package shapes

import (
	"math/rand/v2"
	"testing"
)

// FuzzParse: any bytes either parse into a file that validates, writes
// and instantiates, or give an error; never a panic.
func FuzzParse(f *testing.F) {
	good, err := sample().Marshal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte("kind: poolsweep-workload\nversion: 1\nshapes: [{id: a, database: d, collection: c, command: find, share: 1, filter: {x: {$in: '?array<?number>'}}}]\n"))
	f.Add([]byte("kind: [\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data, "w.yaml")
		if err != nil {
			return
		}
		if _, err := file.Marshal(); err != nil {
			t.Fatalf("a parsed file does not write: %v", err)
		}
		r := rand.New(rand.NewPCG(1, 1))
		for i := range file.Shapes {
			if _, err := file.Shapes[i].Instantiate(r, nil); err != nil {
				t.Fatalf("a parsed shape does not instantiate: %v", err)
			}
		}
	})
}
