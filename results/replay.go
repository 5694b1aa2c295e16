package results

import "strings"

// A replayed workload file (sweep --workload-file) records each shape's
// ops under an op type of its own, "shape:<command>:<id>", so that
// ops_by_type and histograms.ops carry per-shape counts, rates and
// latencies with no new field, and OpClassOf reads the shape's class off
// its command.

// shapeOpPrefix starts a shape's op type.
const shapeOpPrefix = "shape:"

// ShapeOpType is the op type of a replayed shape's ops.
func ShapeOpType(command, id string) string {
	return shapeOpPrefix + command + ":" + id
}

// ShapeOf splits a shape's op type into its command and id; ok is false
// for any other op type.
func ShapeOf(opType string) (command, id string, ok bool) {
	rest, ok := strings.CutPrefix(opType, shapeOpPrefix)
	if !ok {
		return "", "", false
	}
	command, id, ok = strings.Cut(rest, ":")
	return command, id, ok && command != "" && id != ""
}

// ReplayInfo is a replayed workload file as the header records it: the
// file, what it was derived from, where its copies were built, and each
// shape with its share.
type ReplayInfo struct {
	File     string   `json:"file"`
	Format   string   `json:"format,omitempty"` // mongod-log, profiler, querystats
	Complete bool     `json:"complete"`         // every operation was logged: the shares are the deployment's
	Caveats  []string `json:"caveats,omitempty"`
	// Database is poolsweep's database, where the writes' copies were
	// built; Sample the documents copied per collection.
	Database string        `json:"database"`
	Sample   int           `json:"sample"`
	Shapes   []ReplayShape `json:"shapes"`
}

// ReplayShape is one shape of a replayed file.
type ReplayShape struct {
	ID      string  `json:"id"`
	Name    string  `json:"name,omitempty"`
	OpType  string  `json:"op_type"` // its key in ops_by_type
	Command string  `json:"command"`
	Class   string  `json:"class"` // read, scan, aggregate, write
	Share   float64 `json:"share"` // of the file's calls
	// Namespace is the one the file names; RanOn the one the replay ran
	// it against (poolsweep's copy for a write).
	Namespace string `json:"namespace"`
	RanOn     string `json:"ran_on"`
}

// Shape is the shape recorded under opType, nil when none is.
func (r *ReplayInfo) Shape(opType string) *ReplayShape {
	if r == nil {
		return nil
	}
	for i := range r.Shapes {
		if r.Shapes[i].OpType == opType {
			return &r.Shapes[i]
		}
	}
	return nil
}
