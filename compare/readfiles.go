package compare

import (
	"fmt"

	"github.com/poolsweep/poolsweep/sweep"
)

// ReadFiles decodes results files in order. A decoding problem keeps the
// *sweep.LineError (file:line) in the chain.
//
// Deprecated: nothing in poolsweep needs it but plot's tests (loadAB in
// plot/abfigures_test.go); read files with sweep.ReadResultsFile. It goes
// once those tests do.
func ReadFiles(paths ...string) ([]*sweep.Results, error) {
	out := make([]*sweep.Results, 0, len(paths))
	for _, p := range paths {
		r, err := sweep.ReadResultsFile(p)
		if err != nil {
			return nil, fmt.Errorf("read results: %w", err)
		}
		out = append(out, r)
	}
	return out, nil
}
