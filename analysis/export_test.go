package analysis

// The test builders of missing_test.go, for the external test that draws
// the missing steps through analysis/render (which imports this package).
var (
	Planned = planned
	Grid    = grid
)
