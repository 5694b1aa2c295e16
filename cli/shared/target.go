package shared

import (
	"fmt"

	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// CheckTarget checks one --target (sweep's, storm's) as it is parsed:
// name=URI, or name=sim:SPEC with a spec the simulator takes.
func CheckTarget(v string) error {
	t, err := topology.ParseTarget(v)
	if err != nil {
		return err
	}
	if t.SimSpec != "" {
		if _, err := sim.ParseSpec(t.SimSpec); err != nil {
			return fmt.Errorf("target %s: %w", t.Name, err)
		}
	}
	return nil
}
