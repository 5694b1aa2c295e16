package curves

// GoldenComparisons gives the external tests (render_test.go) the
// synthetic comparisons of the golden files.
var GoldenComparisons = goldenComparisons
