package shapes

import (
	"context"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/infile"
)

// Kind and Version are what a workload file's first two keys must say.
const (
	Kind    = "poolsweep-workload"
	Version = 1
)

// Bounds on what a workload file may hold, so that no file can exhaust
// memory: Read refuses a larger file, Validate a larger count.
const (
	MaxFileBytes = 32 << 20
	MaxShapes    = 1000
	// MaxValues is the most distinct values one distribution keeps; the
	// reader keeps the most frequent and says how many it dropped.
	MaxValues = 1000
	// MaxDepth is the deepest a filter, update or pipeline may nest.
	MaxDepth = 32
)

// Commands a shape may have, as the first key of the command it stands for.
const (
	CmdFind          = "find"
	CmdAggregate     = "aggregate"
	CmdCount         = "count"
	CmdDistinct      = "distinct"
	CmdUpdate        = "update"
	CmdDelete        = "delete"
	CmdInsert        = "insert"
	CmdFindAndModify = "findAndModify"
)

// Commands is every command a shape may have, in the order documents list them.
var Commands = []string{CmdFind, CmdAggregate, CmdCount, CmdDistinct, CmdUpdate, CmdDelete, CmdInsert, CmdFindAndModify}

// Formats of the input a file was derived from (Source.Format).
const (
	FormatMongodLog  = "mongod-log"
	FormatProfiler   = "profiler"
	FormatQueryStats = "querystats"
)

// Distribution kinds (Distribution.Dist).
const (
	DistEmpirical = "empirical"
	DistUniform   = "uniform"
	DistZipfian   = "zipfian"
)

// File is one workload file: where it came from, what it cannot know, and
// its shapes with their shares.
type File struct {
	Kind    string   `yaml:"kind" json:"kind"`
	Version int      `yaml:"version" json:"version"`
	Source  Source   `yaml:"source" json:"source"`
	Caveats []string `yaml:"caveats,omitempty" json:"caveats,omitempty"`
	Shapes  []Shape  `yaml:"shapes" json:"shapes"`
}

// Source says what the shapes were derived from and how completely.
type Source struct {
	Format string `yaml:"format" json:"format"`
	Files  int    `yaml:"files" json:"files"`
	// Lines read in all files, and Operations among them kept as shapes'
	// operations (for $queryStats, the sum of execCount).
	Lines      int64 `yaml:"lines" json:"lines"`
	Operations int64 `yaml:"operations" json:"operations"`
	// SlowMs and SampleRate are the threshold and sampling rate the
	// operations were logged at, where the input said them.
	SlowMs     *float64 `yaml:"slowms,omitempty" json:"slowms,omitempty"`
	SampleRate *float64 `yaml:"sample_rate,omitempty" json:"sample_rate,omitempty"`
	// Complete is true when every operation was logged (slowms 0 and
	// sample rate 1, or the profiler at level 2): only then are the shares
	// the deployment's own.
	Complete bool   `yaml:"complete" json:"complete"`
	App      string `yaml:"app,omitempty" json:"app,omitempty"`
	// LeftOut counts the operations read but left out of the shapes, by
	// kind (server-thread, internal-namespace, tool, statistics,
	// truncated, getmore, …; docs/workload-file.md lists them).
	LeftOut map[string]int64 `yaml:"left_out,omitempty" json:"left_out,omitempty"`
}

// Shape is one query shape: a command whose literal values are
// placeholders ("?string", "?number", …), its share of the operations,
// and the distributions its placeholders' values followed.
type Shape struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Database   string `json:"database"`
	Collection string `json:"collection"`
	Command    string `json:"command"`
	// Share is of the file's operations; the shares of a file sum to 1.
	Share float64 `json:"share"`
	Count int64   `json:"count"`

	Filter     bson.D   `json:"filter,omitempty"`
	Projection bson.D   `json:"projection,omitempty"`
	Sort       bson.D   `json:"sort,omitempty"`
	Limit      *int64   `json:"limit,omitempty"`
	Skip       *int64   `json:"skip,omitempty"`
	Pipeline   []bson.D `json:"pipeline,omitempty"`
	Update     bson.D   `json:"update,omitempty"`
	// UpdatePipeline is an update given as an aggregation pipeline.
	UpdatePipeline []bson.D `json:"update_pipeline,omitempty"`
	Multi          bool     `json:"multi,omitempty"`
	Upsert         bool     `json:"upsert,omitempty"`
	// Remove is a findAndModify that deletes the document it finds.
	Remove bool `json:"remove,omitempty"`
	// Key is a distinct command's field.
	Key string `json:"key,omitempty"`
	// InsertDocs is the documents per insert command. Their contents are
	// not in any log: the replay takes them from its sample.
	InsertDocs int `json:"insert_docs,omitempty"`

	// Values are the distributions of the placeholders' values, by the
	// placeholder's path ("filter.age.$gte", "pipeline.0.$match.status").
	Values   map[string]Distribution `json:"values,omitempty"`
	DocBytes *Summary                `json:"doc_bytes,omitempty"`
	Observed Observed                `json:"observed"`

	line int // where Parse found the shape, for Validate's errors
}

// Distribution is what one placeholder's values were: the values seen
// with their weights (empirical), or a fitted uniform or zipfian.
type Distribution struct {
	Dist string `yaml:"dist" json:"dist"`
	// Type is the placeholder's type without its "?" ("string", "number").
	Type string `yaml:"type" json:"type"`
	// Values are the distinct values, most frequent first; Weights their
	// shares (empirical). A zipfian over Values draws rank k with weight
	// 1/k^Theta; a uniform over Values draws each alike.
	Values  []any     `yaml:"values,omitempty" json:"values,omitempty"`
	Weights []float64 `yaml:"weights,omitempty" json:"weights,omitempty"`
	// Min and Max bound a numeric uniform (or a zipfian over the integers
	// Min..Max when Values is empty); dates are milliseconds since 1970.
	Min float64 `yaml:"min,omitempty" json:"min,omitempty"`
	Max float64 `yaml:"max,omitempty" json:"max,omitempty"`
	// Integer: the numbers seen were all whole, so draws are too.
	Integer bool    `yaml:"integer,omitempty" json:"integer,omitempty"`
	Theta   float64 `yaml:"theta,omitempty" json:"theta,omitempty"`
	// N is the number of values the distribution was built from.
	N int64 `yaml:"n" json:"n"`
	// Distinct is how many distinct values were seen, when more than
	// Values kept.
	Distinct int64 `yaml:"distinct,omitempty" json:"distinct,omitempty"`
	// Length is the elements per array, for an "?array<…>" placeholder
	// whose Values are its elements'.
	Length *Summary `yaml:"length,omitempty" json:"length,omitempty"`
	// Fit says how well a uniform or zipfian fits the values seen.
	Fit string `yaml:"fit,omitempty" json:"fit,omitempty"`
}

// Summary is a mean and percentiles of one quantity.
type Summary struct {
	Mean float64 `yaml:"mean" json:"mean"`
	P50  float64 `yaml:"p50" json:"p50"`
	P99  float64 `yaml:"p99" json:"p99"`
	Max  float64 `yaml:"max,omitempty" json:"max,omitempty"`
	N    int64   `yaml:"n,omitempty" json:"n,omitempty"`
}

// Observed is what the input said of a shape's executions: a sanity check
// for the replay, not something it reproduces.
type Observed struct {
	LatencyMs    *Summary `yaml:"latency_ms,omitempty" json:"latency_ms,omitempty"`
	DocsExamined *Summary `yaml:"docs_examined,omitempty" json:"docs_examined,omitempty"`
	KeysExamined *Summary `yaml:"keys_examined,omitempty" json:"keys_examined,omitempty"`
	NReturned    *Summary `yaml:"nreturned,omitempty" json:"nreturned,omitempty"`
	Plan         string   `yaml:"plan,omitempty" json:"plan,omitempty"`
	// Apps are the appNames that ran the shape, most frequent first.
	Apps []string `yaml:"apps,omitempty" json:"apps,omitempty"`
}

// Read reads and validates the workload file at path (at most MaxFileBytes).
func Read(path string) (*File, error) {
	return ReadContext(context.Background(), path)
}

// ReadContext is Read, stopping when ctx ends.
func ReadContext(ctx context.Context, path string) (*File, error) {
	data, err := infile.ReadAll(ctx, path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}
