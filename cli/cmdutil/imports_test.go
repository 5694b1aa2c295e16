package cmdutil

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestImportsNothingOfTheProduct: cmdutil is every command's streams,
// flag wording and input/output rules; what several commands share of
// the product (results, analysis, plots, thresholds, the simulator)
// belongs in cli/shared. Of poolsweep it may import only these.
func TestImportsNothingOfTheProduct(t *testing.T) {
	allowed := map[string]bool{
		"internal/decimal": true, // every number typed
		"internal/errext":  true, // usage errors
		"internal/infile":  true, // bounded reads
		"internal/outfile": true, // output rules
		"internal/textfmt": true, // one line
		"topology":         true, // redaction of URIs, and the files a URI names
	}
	const module = "github.com/poolsweep/poolsweep/"
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if own, ok := strings.CutPrefix(path, module); ok && !allowed[own] {
				t.Errorf("%s imports %s: what several commands share of the product goes to cli/shared", name, own)
			}
		}
	}
}
