package results

import "strings"

// Op types poolsweep's recorder writes in ops_by_type (and in
// histograms.ops); a file from another tool may hold others.
const (
	TypeFind   = "find"
	TypeUpdate = "update"
	TypeInsert = "insert"
	TypeScan   = "scan"
)

// Operation classes of the op types in ops_by_type: what "read latency"
// and "write latency" (the seeds' RAL and WAL) average over, in the A/B
// comparison and in the figures alike.
const (
	OpClassRead  = "read"
	OpClassWrite = "write"
)

// OpClassOf is the class of a driver operation type as recorded in
// ops_by_type: OpClassRead, OpClassWrite, or "" for a type that is
// neither, which then never bends read or write latency.
//
// The recorder writes find, scan, update and insert; two copies of this
// rule (compare and plot) agreed on those. They differed on other names:
// plot counted only those four, compare also the rest of MongoDB's
// document-reading and -writing commands. compare's rule is the one kept:
// a results file from another tool or a later poolsweep that records, say,
// delete would otherwise have its writes left out of write latency and its
// workload called read-only. Matching is case-insensitive (getMore).
//
// A replayed shape's op type (ShapeOpType) has the class of its command.
func OpClassOf(opType string) string {
	if command, _, ok := ShapeOf(opType); ok {
		opType = command
	}
	switch strings.ToLower(opType) {
	case TypeFind, TypeScan, "aggregate", "count", "distinct", "getmore":
		return OpClassRead
	case TypeUpdate, TypeInsert, "delete", "replace", "upsert", "findandmodify":
		return OpClassWrite
	}
	return ""
}
