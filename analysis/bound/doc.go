// Package bound judges a finished step: what bound it (the client, the
// pool, the server, the network, or none) and why, in one line with the
// numbers, and whether Little's law holds for it. The rules read a step's
// numbers and the telemetry package telemetry sampled for its window, per
// server version as the captured replies of real servers show them; they
// are pure functions of results records and do no I/O.
//
// Classifier.Classify is the rules in their order of precedence; annotate
// and annotateOpen fill a step's judgement fields; a Judge does that for
// each step of a sweep in turn, keeping the previous step of each series
// for the growth rules, and is what the engine is handed to label its
// steps (sweep.StepJudge). ClientLimited says whether this machine, not
// the server, set a step's numbers.
package bound
