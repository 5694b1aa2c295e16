package sweep

import "github.com/poolsweep/poolsweep/internal/errext"

// validateGates refuses thresholds that this run cannot judge.
func (o *Options) validateGates() error {
	if o.gates.Given() && (o.changed("spawn") || o.changed("agents")) {
		return errext.Usagef("--threshold: several agents' steps are judged once merged; run poolsweep analyze --threshold on the merged results.jsonl")
	}
	return nil
}
