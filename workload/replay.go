package workload

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/internal/mongoname"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// The replay of a workload file (sweep --workload-file): each call runs
// one shape, picked by its share, with its placeholders drawn from its
// distributions. Reads run against the user's own collections, read-only;
// writes against poolsweep's own copy of each collection they name
// (replaycopy.go), so nothing the user owns is ever written.

// DefaultReplaySample is how many documents of a user's collection the
// replay copies for its writes, unless ReplayOptions.Sample says.
const DefaultReplaySample = 1000

// MaxReplaySample bounds the copy: it is built before the first step, and
// its documents are the insert shapes' payloads.
const MaxReplaySample = 100_000

// maxReplayDocs bounds the documents one find or aggregate call reads
// through its cursor: an application reads what it asked for, but a call
// of a shape without a limit over a large collection must still end.
const maxReplayDocs = 10_000

// ReplayOptions say where a replay runs.
type ReplayOptions struct {
	// Database is poolsweep's own database, where the copies for the
	// writes are built ("" : the default workload's, poolsweep).
	Database string
	// Sample is the documents copied per collection written (0:
	// DefaultReplaySample).
	Sample int
	// Remap sends the reads of a database, or of one database.collection,
	// elsewhere (the key as the shapes name it; the value a database, or a
	// database.collection for a collection's key).
	Remap map[string]string
}

// Replay is a workload file made runnable. It is shared by every worker
// of a run; what it keeps per call is in a ReplayConn.
type Replay struct {
	File     *shapes.File
	Path     string
	Database string // poolsweep's database: the copies
	Sample   int
	shapes   []replayShape
	pick     alias
	copies   []*replayCopy // one per user collection some write shape names
	// samples are the read namespaces' value samples (replayvalues.go).
	samples []*valueSample
}

// replayShape is one shape with where it runs.
type replayShape struct {
	shape  *shapes.Shape
	opType string // its op type in ops_by_type (results.ShapeOpType)
	db     string // the database it runs against
	coll   string // and the collection
	write  bool
	cursor bool                       // find and aggregate read through a cursor
	draw   func(path, typ string) any // Instantiate's fallback: sampled values, insert payloads
}

// NewReplay checks that every shape of f can be replayed safely and says
// where each runs: a read against its own namespace (or Remap's), a write
// against poolsweep's copy of it. A shape the replay must not send
// (shapes.File.CheckReplay: the server's own namespaces, a pipeline that
// writes at any depth) and two namespaces that would share one copy are
// refused, naming the file, line and field.
func NewReplay(f *shapes.File, path string, o ReplayOptions) (*Replay, error) {
	r := &Replay{File: f, Path: path, Database: o.Database, Sample: o.Sample}
	if r.Database == "" {
		r.Database = DefaultWorkload().Database
	}
	if r.Sample == 0 {
		r.Sample = DefaultReplaySample
	}
	if r.Sample < 1 || r.Sample > MaxReplaySample {
		return nil, fmt.Errorf("replay sample: %d documents is not between 1 and %d", r.Sample, MaxReplaySample)
	}
	if err := CheckDatabaseName(r.Database); err != nil {
		return nil, fmt.Errorf("--database: %w", err)
	}
	if err := f.CheckReplay(); err != nil {
		return nil, fileError(path, err)
	}
	// Keyed by database and collection apart: "a.b" + "c" and "a" + "b.c"
	// are two namespaces.
	type nsKey struct{ db, coll string }
	copies := map[nsKey]*replayCopy{}
	copyOf := map[string]int{} // a copy's name: the first write shape it copies for
	samples := map[nsKey]*valueSample{}
	weights := make([]float64, len(f.Shapes))
	for i := range f.Shapes {
		s := &f.Shapes[i]
		rs := replayShape{shape: s, opType: results.ShapeOpType(s.Command, s.ID), write: s.Class() == shapes.ClassWrite,
			cursor: s.Command == shapes.CmdFind || s.Command == shapes.CmdAggregate}
		if rs.write {
			ns := s.Database + "." + s.Collection
			c := copies[nsKey{s.Database, s.Collection}]
			if c == nil {
				c = &replayCopy{srcDB: s.Database, srcColl: s.Collection, db: r.Database, coll: copyName(r.Database, s.Database, s.Collection)}
				c.values.db, c.values.coll, c.values.filter = c.db, c.coll, copyOwnFilter()
				if err := CheckCollectionName(c.db, c.coll); err != nil {
					return nil, fmt.Errorf("%s: shape %s: the copy of %s: %w", path, s.ID, ns, err)
				}
				if j, dup := copyOf[c.coll]; dup {
					// Two namespaces in one copy: the second build would
					// drop the first's documents and measure neither.
					msg := fmt.Sprintf("its namespace and shapes[%d]'s, another, would share one copy for the writes, and one would replace the other", j)
					if strings.Contains(s.Database, ".") || strings.Contains(f.Shapes[j].Database, ".") {
						msg += " (a database name holds no dot)"
					}
					return nil, fileError(path, &shapes.FieldError{Field: fmt.Sprintf("shapes[%d]", i), Line: s.Line(), Msg: msg})
				}
				copyOf[c.coll] = i
				copies[nsKey{s.Database, s.Collection}] = c
				r.copies = append(r.copies, c)
			}
			rs.db, rs.coll = c.db, c.coll
			rs.draw = c.payload
		} else {
			rs.db, rs.coll = remap(o.Remap, s.Database, s.Collection)
			remapped := rs.db != s.Database || rs.coll != s.Collection
			if err := errors.Join(CheckDatabaseName(rs.db), CheckCollectionName(rs.db, rs.coll)); remapped && err != nil {
				return nil, fmt.Errorf("%s: shape %s: where its reads go: %w", path, s.ID, err)
			}
			v := samples[nsKey{rs.db, rs.coll}]
			if v == nil {
				v = &valueSample{db: rs.db, coll: rs.coll}
				samples[nsKey{rs.db, rs.coll}] = v
				r.samples = append(r.samples, v)
			}
			rs.draw = v.draw
		}
		r.shapes = append(r.shapes, rs)
		weights[i] = s.Share
	}
	for _, c := range r.copies {
		// A copy must never be a collection some read runs against: the
		// user's data stays read-only.
		for _, rs := range r.shapes {
			if !rs.write && rs.db == c.db && rs.coll == c.coll {
				return nil, fmt.Errorf("%s: the copy %s.%s for the writes is a collection the reads run against; pick another --database", path, c.db, c.coll)
			}
		}
	}
	r.pick = newAlias(weights)
	return r, nil
}

// copyName is the collection of poolsweep's database pdb that holds the
// copy of db.coll: replay.<db>.<coll>, the namespace itself behind a
// prefix, so that people can tell what it copies. A database name holds
// no dot, so the first dot after the prefix ends it and two namespaces
// never get one name (NewReplay refuses any two that do). A name longer
// than maxCopyName is cut and ends in "~" and 8 hex digits of a hash of
// the namespace, so that it stays a name of its own.
func copyName(pdb, db, coll string) string {
	name := copyPrefix + db + "." + coll
	limit := min(maxCopyName, mongoname.MaxNamespaceBytes-len(pdb)-1)
	if len(name) <= limit {
		return name
	}
	sum := sha256.Sum256([]byte(db + "\x00" + coll))
	tail := "~" + hex.EncodeToString(sum[:4])
	cut := limit - len(tail)
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + tail
}

// copyPrefix starts the name of every replay copy.
const copyPrefix = "replay."

// maxCopyName is the longest copy name: FerretDB takes collection names
// of at most 235 bytes, MongoDB namespaces of 255 (maxNamespaceBytes).
const maxCopyName = 235

// fileError is a workload file's error as the user reads it: the file,
// the line and the field.
func fileError(path string, err error) error {
	var fe *shapes.FieldError
	if errors.As(err, &fe) {
		return &shapes.ParseError{File: path, Line: fe.Line, Field: fe.Field, Msg: fe.Msg}
	}
	return fmt.Errorf("%s: %w", path, err)
}

// remap is where a read of db.coll runs.
func remap(m map[string]string, db, coll string) (string, string) {
	if to, ok := m[db+"."+coll]; ok {
		if d, c, ok := strings.Cut(to, "."); ok {
			return d, c
		}
		return to, coll
	}
	if to, ok := m[db]; ok {
		return to, coll
	}
	return db, coll
}

// MaxCommandBytes is about the largest command a call of the replay
// builds, from what the file declares.
func (r *Replay) MaxCommandBytes() int64 {
	var n int64
	for _, rs := range r.shapes {
		n = max(n, rs.shape.MaxCommandBytes())
	}
	return n
}

// OpTypes are the shapes' op types, in the file's order: what each shape's
// ops are recorded as in ops_by_type.
func (r *Replay) OpTypes() []string {
	out := make([]string, len(r.shapes))
	for i, s := range r.shapes {
		out[i] = s.opType
	}
	return out
}

// Pick draws the shape of the next call by the shares (the alias method:
// one uniform draw and one comparison, whatever the number of shapes).
func (r *Replay) Pick(rng *rand.Rand) int { return r.pick.draw(rng) }

// Info is the replay as the results header records it: the file, where
// each shape ran and its share, so that analyze can read the shapes back.
func (r *Replay) Info() *results.ReplayInfo {
	info := &results.ReplayInfo{File: r.Path, Format: r.File.Source.Format, Complete: r.File.Source.Complete,
		Caveats: r.File.Caveats, Database: r.Database, Sample: r.Sample}
	for _, rs := range r.shapes {
		s := rs.shape
		info.Shapes = append(info.Shapes, results.ReplayShape{ID: s.ID, Name: s.Name, OpType: rs.opType, Command: s.Command,
			Class: s.Class(), Share: s.Share, Namespace: s.Database + "." + s.Collection, RanOn: rs.db + "." + rs.coll})
	}
	return info
}

// ReplayConn runs a replay's calls for one worker on one client: it keeps
// the databases the shapes run against, so a call allocates no more than
// its command document and what the driver allocates.
type ReplayConn struct {
	r   *Replay
	dbs []*mongo.Database
}

// Conn is a worker's ReplayConn on client.
func (r *Replay) Conn(client *mongo.Client) *ReplayConn {
	c := &ReplayConn{r: r, dbs: make([]*mongo.Database, len(r.shapes))}
	byName := map[string]*mongo.Database{}
	for i, s := range r.shapes {
		if byName[s.db] == nil {
			byName[s.db] = client.Database(s.db)
		}
		c.dbs[i] = byName[s.db]
	}
	return c
}

// ErrWriteErrors is a write command that answered ok with write errors.
var ErrWriteErrors = errors.New("the server reported write errors")

// Exec runs one call of shape i: its command instantiated with values drawn
// by rng, against the shape's namespace. A find or an aggregate reads its
// cursor to the end (at most maxReplayDocs documents) and closes it.
func (c *ReplayConn) Exec(ctx context.Context, i int, rng *rand.Rand) error {
	s := &c.r.shapes[i]
	cmd, err := s.shape.Instantiate(rng, s.draw)
	if err != nil {
		return err
	}
	cmd[0].Value = s.coll
	if s.write {
		ownWrites(cmd)
	}
	db := c.dbs[i]
	if s.cursor {
		cur, err := db.RunCommandCursor(ctx, cmd)
		if err != nil {
			return err
		}
		for n := 0; n < maxReplayDocs && cur.Next(ctx); n++ {
		}
		err = cur.Err()
		if cerr := cur.Close(context.WithoutCancel(ctx)); err == nil {
			err = cerr
		}
		return err
	}
	raw, err := db.RunCommand(ctx, cmd).Raw()
	if err != nil {
		return err
	}
	if s.write {
		if _, werr := raw.LookupErr("writeErrors"); werr == nil {
			return ErrWriteErrors
		}
	}
	return nil
}

// alias is Vose's alias table: a draw picks a column uniformly and keeps
// it with its probability, else takes its alias.
type alias struct {
	prob  []float64
	alias []int
}

func newAlias(w []float64) alias {
	n := len(w)
	a := alias{prob: make([]float64, n), alias: make([]int, n)}
	sum := 0.0
	for _, x := range w {
		sum += max(x, 0)
	}
	scaled := make([]float64, n)
	var small, large []int
	for i, x := range w {
		scaled[i] = max(x, 0) / sum * float64(n)
		if scaled[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		a.prob[s], a.alias[s] = scaled[s], l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// What is left is 1 up to rounding.
	for _, i := range append(small, large...) {
		a.prob[i], a.alias[i] = 1, i
	}
	return a
}

func (a alias) draw(r *rand.Rand) int {
	i := r.IntN(len(a.prob))
	if r.Float64() < a.prob[i] {
		return i
	}
	return a.alias[i]
}
