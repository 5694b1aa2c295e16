package sim

import (
	"cmp"
	"context"
	"sort"
	"time"
)

// Shape classes: what a data op costs by the shape of its command, so that
// a replayed workload (finds with sorts, aggregations, updates with
// operators) has a known capacity as find-by-_id has. A handler says its
// op's class and how many documents it examines through the context
// (withCost); onShard reads it when it books the slot.
//
//	point     find or count by _id equality, no sort, limit 0 or 1   service
//	scan      any other find, count or distinct                      scan_service
//	aggregate aggregate                                              agg_service
//	write     insert, update, delete, findAndModify                  write_service
//
// A class's time left out is service, so the existing specs cost as they
// did. examined_cost=D adds D per document the op examines on that
// server, counted as a server without secondary indexes would (the
// simulator keeps an index's spec, not the index): an _id equality
// examines 1 document, an _id range the documents in the range, an empty
// filter with a limit skip+limit documents, and any other filter every
// document of the collection on that server. getMore and the router's
// step are not shape-costed.

// costClass is the shape class of a data op.
type costClass int

const (
	classPoint costClass = iota // the zero value: ops no handler classed cost service
	classScan
	classAggregate
	classWrite
)

// opCost is a data op's class and the documents it examines on one
// server's store (nil: none counted).
type opCost struct {
	class   costClass
	examine func(st *store) int
}

type costKey struct{}

// withCost tags ctx with the cost of the data ops run under it.
func withCost(ctx context.Context, c opCost) context.Context {
	return context.WithValue(ctx, costKey{}, c)
}

// costOf is the cost ctx carries; a point read's when none.
func costOf(ctx context.Context) opCost {
	c, _ := ctx.Value(costKey{}).(opCost)
	return c
}

// classService is the base service time of a class.
func (s Spec) classService(c costClass) time.Duration {
	switch c {
	case classScan:
		return cmp.Or(s.ScanService, s.Service)
	case classAggregate:
		return cmp.Or(s.AggService, s.Service)
	case classWrite:
		return cmp.Or(s.WriteService, s.Service)
	}
	return s.Service
}

// classKeys are the shape classes' spec keys and fields, in String's order.
func (s *Spec) classKeys() []struct {
	key string
	d   *time.Duration
} {
	return []struct {
		key string
		d   *time.Duration
	}{{"scan_service", &s.ScanService}, {"agg_service", &s.AggService}, {"write_service", &s.WriteService}, {"examined_cost", &s.ExaminedCost}}
}

// baseService is the time a data op under ctx holds a slot on sh before
// conn_cost and jitter: its class's time plus examined_cost per document it
// examines there.
func (f *frontend) baseService(ctx context.Context, sh *shard) time.Duration {
	spec := f.d.spec
	c := costOf(ctx)
	d := spec.classService(c.class)
	if spec.ExaminedCost > 0 && c.examine != nil {
		d += spec.ExaminedCost * time.Duration(c.examine(sh.store))
	}
	return d
}

// readClass is the class of a find, count or distinct: a point read only
// for an _id equality the simulator evaluates, without a sort and with a
// limit of at most one.
func readClass(flt filter, sorted bool, limit int64) costClass {
	if flt.idEq != nil && !flt.opaque && !sorted && limit <= 1 && limit >= -1 {
		return classPoint
	}
	return classScan
}

// examiner counts the documents a query on db.coll with flt examines on
// one store, as the package documentation above says; limit (0: none)
// and skip bound an empty filter's walk.
func examiner(db, coll string, flt filter, skip, limit int) func(st *store) int {
	return func(st *store) int { return st.examined(db, coll, flt, skip, limit) }
}

// examined is examiner's count on this store.
func (s *store) examined(db, name string, f filter, skip, limit int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.coll(db, name, false)
	switch {
	case c == nil:
		return 0
	case f.idEq != nil:
		return 1
	case f.opaque || len(f.fields) > 0:
		return len(c.docs)
	case f.class != 0:
		keys := c.keys()
		lo := sort.Search(len(keys), func(i int) bool { return !f.belowRange(keys[i]) })
		hi := lo + sort.Search(len(keys)-lo, func(i int) bool { return !f.matchKey(keys[lo+i]) })
		return hi - lo
	case limit > 0:
		return min(len(c.docs), skip+limit)
	}
	return len(c.docs)
}

// belowRange reports whether k sorts before every key f's _id range
// matches.
func (f *filter) belowRange(k idKey) bool {
	if k[0] != f.class {
		return k[0] < f.class
	}
	return f.lo != nil && (k < f.lo.key || (k == f.lo.key && !f.lo.inclusive))
}
