// Package sweep is the measuring engine: a Session runs a whole sweep
// (loading the data, every step of the plan against every target,
// resume, the stop rules, the end record) and its runner measures one step
// (its clients and pools, the workers, the recorder, pool events, the open
// loop). It returns data and never prints.
//
// What it measures it writes as the records of package results, the
// results.jsonl contract; everything after measuring (the knee, the
// figures, the comparison) reads those records and never this package.
// The session keeps the records it writes: Conclude and Results hand them
// to the caller as a reader of the file would give them, so the run that
// wrote the file concludes without reading it back.
// What bound a step is not decided here: a StepJudge that the caller wires
// in labels each step once its window's telemetry is in. Agent mode's
// lock step is a Coordinator the caller wires in (sweep/agents): the
// engine knows only that interface.
package sweep
