package main

import "github.com/poolsweep/poolsweep/runner/progress"

// The event names of --progress json, as the tests read them.
const (
	evPlan       = progress.EventPlan
	evStepStart  = progress.EventStepStart
	evProgress   = progress.EventProgress
	evStepEnd    = progress.EventStepEnd
	evStepFailed = progress.EventStepFailed
	evThresholds = progress.EventThresholds
	evEnd        = progress.EventEnd
	evMessage    = progress.EventMessage
)
