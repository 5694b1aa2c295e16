package results

import "fmt"

// What a run's writer keeps in memory of what it wrote, so that the run
// concludes from the records themselves and never reads back the file it
// has just written (sweep.Session.Results).

// LatestSteps is steps as a reader of the file that holds them in this
// order gives them: the last record of each step, in the order of those
// records (a resumed run that measured a step again replaces the earlier
// record).
func LatestSteps(steps []StepResult) []StepResult { return latestRecords(steps) }

// NoEndWarning is the warning a reader gives about the file name, holding
// steps steps, that has no end record.
func NoEndWarning(name string, steps int) string {
	return fmt.Sprintf("%s: no end record: the run stopped without closing the file (killed?); its %d step(s) are used", name, steps)
}

// SkipWarnings are the warnings of the records a lenient reader skipped:
// the first Skipped of Warnings, since each skip adds one as it is read
// and the reader's other warnings (a cut-off last line, no end record)
// are about the file's end, added last. A writer that continues the file
// cuts the last line and ends it, so only these stay true of it.
func (res *Results) SkipWarnings() []string {
	if res.Skipped > len(res.Warnings) {
		return res.Warnings
	}
	return res.Warnings[:res.Skipped]
}
