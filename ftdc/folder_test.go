package ftdc

import "testing"

// TestIsMetricFile: the names a server gives its metric files, and the
// metrics.* names it does not write.
func TestIsMetricFile(t *testing.T) {
	for name, want := range map[string]bool{
		"metrics.interim":                        true,
		"metrics.2021-03-15T02-21-47Z-00000":     true,
		"metrics.2024-09-05T16-39-03Z-00012":     true,
		"metrics.2019-02-14T19-38-43Z":           true, // without the counter
		"metrics.interim.temp":                   false,
		"metrics.bson":                           false,
		"metrics.2021-03-15T02-21-47Z-00000.gz":  false,
		"metrics.2021-03-15T02-21-47Z-00000.bak": false,
		"metrics.2021":                           false,
		"metrics.00001":                          false,
		"metrics.":                               false,
		"xmetrics.interim":                       false,
		"metrics.2021-03-15T02-21-47+0100-00000": false,
	} {
		if got := IsMetricFile(name); got != want {
			t.Errorf("IsMetricFile(%q) = %v, want %v", name, got, want)
		}
	}
}
