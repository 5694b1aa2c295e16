// Package querylog reads what a deployment ran into observed operations:
// mongod's structured JSON log (4.4 and later; its "Slow query" lines,
// id 51803, and the threshold and sample rate they were logged at), the
// profiler's system.profile exported as JSON (mongoexport, relaxed or
// canonical extended JSON, a document a line or a JSON array), and
// $queryStats output (8.0: shapes and counts, no values).
//
// Every input is bounded: a file is read up to the size it had when it was
// opened (a live log keeps growing), lines longer than MaxLine are skipped
// without being held, and all files together may hold at most the total
// the caller allows. A line that cannot be read is a warning with its line
// number; nothing a file holds is ever quoted.
package querylog
