// Package derive turns observed operations (querylog) into a workload
// file's shapes (workload/shapes): it groups operations by their shape as
// $queryStats does, counts their shares, fits the distributions of the
// values each placeholder took, and summarises what was observed of each
// shape. Its memory is bounded whatever the input's size.
package derive

import (
	"hash/fnv"
	"math"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/querylog"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// maxTrackedShapes is the most distinct shapes counted; operations of
// further shapes are counted together and said.
const maxTrackedShapes = 10 * shapes.MaxShapes

// maxPaths is the most placeholders of one shape whose values are kept.
const maxPaths = 256

// Builder accumulates operations; File derives the workload file once.
type Builder struct {
	shapes  map[string]*acc
	order   []string
	dropped int64 // operations of shapes beyond maxTrackedShapes
	budget  budget
}

// NewBuilder is an empty Builder.
func NewBuilder() *Builder {
	return &Builder{shapes: map[string]*acc{}, budget: budget{numbers: numberBudget, valueBytes: valueBudget, shapeBytes: shapeBudget}}
}

type acc struct {
	shape     shapes.Shape
	count     int64
	values    map[string]*valueAcc
	latency   metricAcc
	docs      metricAcc
	keys      metricAcc
	nreturned metricAcc
	docBytes  metricAcc
	insert    *reservoir
	plans     map[string]int64
	apps      map[string]int64
	maxLat    float64
}

// metricAcc is a weighted mean and a sample for percentiles.
type metricAcc struct {
	sum, weight float64
	sample      *reservoir
}

func (m *metricAcc) add(x float64, w int64, seed uint64, b *budget) {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.IsInf(m.sum+x*float64(w), 0) {
		return
	}
	if m.sample == nil {
		m.sample = newReservoir(seed, b)
	}
	m.sum += x * float64(w)
	m.weight += float64(w)
	m.sample.add(x, 4096)
}

func (m *metricAcc) summary() *shapes.Summary {
	if m.weight == 0 {
		return nil
	}
	mean := round6(m.sum / m.weight)
	xs := m.sample.xs
	if len(xs) == 0 { // the budget ran out before this shape's first sample
		return &shapes.Summary{Mean: mean, P50: mean, P99: mean, Max: mean, N: int64(m.weight)}
	}
	return &shapes.Summary{Mean: mean, P50: round6(stats.Percentile(xs, 50)),
		P99: round6(stats.Percentile(xs, 99)), Max: round6(maxOf(xs)), N: int64(m.weight)}
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

// Add counts one operation in its shape. An operation whose shape no
// workload file could hold (a name MongoDB refuses, nesting deeper than
// the format, text that is not UTF-8) is not counted: the error
// (*querylog.LeftOut) says why, and Read leaves it out with a warning.
func (b *Builder) Add(op *querylog.Op) error {
	s := shapes.Shape{Database: op.Database, Collection: op.Collection, Command: op.Command, Limit: op.Limit,
		Skip: op.Skip, Multi: op.Multi, Upsert: op.Upsert, Remove: op.Remove, Key: op.Key}
	filter := op.Filter
	if filter == nil && needsFilter(op.Command) {
		filter = bson.D{}
	}
	var lits []shapes.Literal
	docs := []struct {
		section string
		in      bson.D
		out     *bson.D
	}{{"filter", filter, &s.Filter}, {"projection", op.Projection, &s.Projection}, {"sort", op.Sort, &s.Sort},
		{"update", op.Update, &s.Update}}
	for _, d := range docs {
		switch {
		case d.in == nil:
		case op.Shaped: // $queryStats: a shape already
			*d.out = clean(d.in)
		default:
			var l []shapes.Literal
			*d.out, l = shapes.Abstract(d.section, d.in)
			lits = append(lits, l...)
		}
	}
	stages := []struct {
		section string
		in      []bson.D
		out     *[]bson.D
	}{{"pipeline", op.Pipeline, &s.Pipeline}, {"update_pipeline", op.UpdatePipeline, &s.UpdatePipeline}}
	for _, p := range stages {
		switch {
		case p.in == nil:
		case op.Shaped:
			*p.out = cleanStages(p.in)
		default:
			var l []shapes.Literal
			*p.out, l = shapes.AbstractStages(p.section, p.in)
			lits = append(lits, l...)
		}
	}
	for _, l := range lits {
		if why := shapes.CheckLiteral(l); why != "" {
			return &querylog.LeftOut{Reason: why}
		}
	}
	id := s.ShapeID()
	a, ok := b.shapes[id]
	if !ok {
		s.ID = id
		s.Name = s.DefaultName()
		if err := s.Check(); err != nil {
			return &querylog.LeftOut{Reason: err.Error()}
		}
		cost := shapeBytes(&s)
		if len(b.shapes) >= maxTrackedShapes || cost > b.budget.shapeBytes {
			b.dropped += op.Weight
			return nil
		}
		b.budget.shapeBytes -= cost
		a = &acc{shape: s, values: map[string]*valueAcc{}, plans: map[string]int64{}, apps: map[string]int64{},
			insert: newReservoir(seedOf(id), &b.budget), maxLat: math.NaN()}
		b.shapes[id] = a
		b.order = append(b.order, id)
	}
	a.count += op.Weight
	seed := seedOf(id)
	for _, l := range lits {
		va, ok := a.values[l.Path]
		if !ok && len(a.values) >= maxPaths {
			continue // the shape's placeholder keeps its type; its values go uncounted
		}
		if !ok {
			va = newValueAcc(seed+uint64(len(a.values)), &b.budget)
			a.values[l.Path] = va
		}
		va.add(l.Type, l.Values, l.Array)
	}
	m := op.Metrics
	a.latency.add(m.DurationMs, op.Weight, seed, &b.budget)
	a.docs.add(m.DocsExamined, op.Weight, seed, &b.budget)
	a.keys.add(m.KeysExamined, op.Weight, seed, &b.budget)
	a.nreturned.add(m.NReturned, op.Weight, seed, &b.budget)
	if m.NReturned > 0 && !math.IsNaN(m.ResLen) {
		a.docBytes.add(m.ResLen/m.NReturned, op.Weight, seed, &b.budget)
	}
	if !math.IsNaN(m.MaxDurationMs) && (math.IsNaN(a.maxLat) || m.MaxDurationMs > a.maxLat) {
		a.maxLat = m.MaxDurationMs
	}
	if op.InsertDocs > 0 {
		a.insert.add(float64(op.InsertDocs), 4096)
	}
	// A plan or an appName is a label: bytes that are not UTF-8 become
	// U+FFFD rather than cost the operation.
	if plan := strings.ToValidUTF8(m.Plan, "\uFFFD"); plan != "" && (len(a.plans) < 20 || a.plans[plan] > 0) {
		a.plans[plan] += op.Weight
	}
	if app := strings.ToValidUTF8(op.App, "\uFFFD"); app != "" && (len(a.apps) < 20 || a.apps[app] > 0) {
		a.apps[app] += op.Weight
	}
	return nil
}

// shapeBytes is about what a shape's documents take, charged to the
// budget of shapes when the shape is first seen.
func shapeBytes(s *shapes.Shape) int64 {
	n := int64(256)
	for _, d := range []bson.D{s.Filter, s.Projection, s.Sort, s.Update} {
		if b, err := bson.Marshal(d); err == nil && d != nil {
			n += int64(len(b))
		}
	}
	for _, p := range [][]bson.D{s.Pipeline, s.UpdatePipeline} {
		for _, st := range p {
			if b, err := bson.Marshal(st); err == nil {
				n += int64(len(b))
			}
		}
	}
	return n
}

func needsFilter(cmd string) bool {
	switch cmd {
	case shapes.CmdFind, shapes.CmdCount, shapes.CmdDistinct, shapes.CmdUpdate, shapes.CmdDelete, shapes.CmdFindAndModify:
		return true
	}
	return false
}

func seedOf(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// Shapes are the derived shapes, most operations first, at most
// shapes.MaxShapes, with their shares of the operations they hold; left is
// the operations of the shapes left out.
func (b *Builder) Shapes() (out []shapes.Shape, left int64) {
	accs := make([]*acc, 0, len(b.order))
	for _, id := range b.order {
		accs = append(accs, b.shapes[id])
	}
	sort.SliceStable(accs, func(i, j int) bool { return accs[i].count > accs[j].count })
	left = b.dropped
	if len(accs) > shapes.MaxShapes {
		for _, a := range accs[shapes.MaxShapes:] {
			left += a.count
		}
		accs = accs[:shapes.MaxShapes]
	}
	var total int64
	for _, a := range accs {
		s := a.finish()
		// Each operation's shape was checked when first seen; what its
		// values add (a length, a long value) is checked once here, so a
		// file from-log writes is always one the replay reads.
		if s.Check() != nil {
			left += a.count
			continue
		}
		total += a.count
		out = append(out, s)
	}
	for i := range out {
		out[i].Share = float64(out[i].Count) / float64(total)
	}
	return out, left
}

func (a *acc) finish() shapes.Shape {
	s := a.shape
	s.Count = a.count
	if s.Command == shapes.CmdInsert {
		s.InsertDocs = 1
		if xs := a.insert.xs; len(xs) > 0 {
			s.InsertDocs = max(int(math.Round(stats.Median(xs))), 1)
		}
	}
	for path, va := range a.values {
		if d, ok := va.distribution(); ok {
			if s.Values == nil {
				s.Values = map[string]shapes.Distribution{}
			}
			s.Values[path] = d
		}
	}
	s.DocBytes = a.docBytes.summary()
	s.Observed = shapes.Observed{LatencyMs: a.latency.summary(), DocsExamined: a.docs.summary(),
		KeysExamined: a.keys.summary(), NReturned: a.nreturned.summary(), Plan: top(a.plans, 1)}
	if l := s.Observed.LatencyMs; l != nil && !math.IsNaN(a.maxLat) {
		l.Max = a.maxLat
	}
	if apps := top(a.apps, 5); apps != "" {
		s.Observed.Apps = strings.Split(apps, "\x00")
	}
	return s
}

// top is the n most frequent keys, joined by NUL.
func top(m map[string]int64, n int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) > n {
		keys = keys[:n]
	}
	return strings.Join(keys, "\x00")
}
