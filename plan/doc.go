// Package plan is the steps of a sweep: the level lists and ranges of
// --concurrency and --pool, the Plan (its grid, timing and limits, closed
// or open loop) and the order of its steps, and the Planner that hands a
// session its steps one at a time (a fixed grid here; the adaptive search
// in package search). It is pure: it parses and lays out, and never runs
// a step or talks to a server.
package plan
