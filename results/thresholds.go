package results

// ThresholdOutcome is one --threshold as it was judged at the end of a
// run (or by analyze): the threshold as given, whether it held, and what
// was measured where it was checked.
type ThresholdOutcome struct {
	Threshold string `json:"threshold"`
	Pass      bool   `json:"pass"`
	// Unit is the unit of the checks' values: ops/s, calls/s, ms, %,
	// errors, connections or workers (the knee).
	Unit   string           `json:"unit"`
	Checks []ThresholdCheck `json:"checks"`
}

// ThresholdCheck is a threshold checked in one series: at a level, at the
// series' knee, or at its worst step. Value is nil when the threshold
// could not be evaluated there (no knee found, the level not measured),
// and Note says why: such a check fails.
type ThresholdCheck struct {
	Series      string   `json:"series"`
	Concurrency int      `json:"concurrency,omitempty"`
	Trial       int      `json:"trial,omitempty"`
	Rate        int      `json:"rate,omitempty"`
	Trials      int      `json:"trials,omitempty"`
	Value       *float64 `json:"value"`
	Pass        bool     `json:"pass"`
	Note        string   `json:"note,omitempty"`
}
