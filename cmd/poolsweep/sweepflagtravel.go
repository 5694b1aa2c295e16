package main

import "github.com/spf13/pflag"

// Whether a sweep flag travels to the agents --spawn starts: every sweep
// flag says so where it is defined (an annotation on the flag), and
// spawnArgs derives the agents' command line from them, so a new flag
// cannot be forgotten: TestSweepFlagsTravel fails for a flag without a
// decision.

// travelAnnotation is the pflag annotation that holds the decision.
const travelAnnotation = "poolsweep/travel"

// The decisions.
const (
	// travelAsGiven: an agent gets the flag as it was given, when it was.
	travelAsGiven = "as-given"
	// travelResolved: an agent gets the value the plan resolved
	// (resolvedArgs), whether or not it was given.
	travelResolved = "resolved"
	// travelNever: --spawn decides it for each agent (its index, output
	// directory, run id, targets), or it is the launcher's alone (the
	// fleet section of the report the launcher writes).
	travelNever = "never"
)

// travel records how each of the flags named travels. A name that is not
// a flag of f is a mistake in the program, found by every test that
// builds the command.
func travel(f *pflag.FlagSet, how string, names ...string) {
	for _, n := range names {
		if err := f.SetAnnotation(n, travelAnnotation, []string{how}); err != nil {
			panic(err)
		}
	}
}

// flagTravel is f's decision; "" when it has none.
func flagTravel(f *pflag.Flag) string {
	if v := f.Annotations[travelAnnotation]; len(v) == 1 {
		return v[0]
	}
	return ""
}
