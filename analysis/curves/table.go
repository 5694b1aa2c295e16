package curves

import (
	"cmp"
	"slices"
)

// Row is one row of the seeds' table: the connections each client used
// (× the clients), and each side's throughput there.
type Row struct {
	PerClient, Clients int
	Base, Cand         *Cell // nil: the side has no level there
}

// Cell is one side's throughput at a row's connections.
type Cell struct {
	Concurrency int
	OpsPerS     float64
	CallsPerS   float64 // 0 when unknown
}

// table lays both sides' levels out by connections per client × clients,
// as seed 003's table of connections against standalone and cluster QPS.
func table(base, cand Side) []Row {
	type key struct{ per, k int }
	by := map[key]*Row{}
	var keys []key
	put := func(lvs []Level, set func(*Row, *Cell)) {
		for _, lv := range lvs {
			k := key{lv.PerClient, lv.Clients}
			r, ok := by[k]
			if !ok {
				r = &Row{PerClient: k.per, Clients: k.k}
				by[k] = r
				keys = append(keys, k)
			}
			set(r, &Cell{Concurrency: lv.Concurrency, OpsPerS: lv.OpsPerS, CallsPerS: lv.CallsPerS})
		}
	}
	put(base.Levels, func(r *Row, c *Cell) {
		if r.Base == nil {
			r.Base = c
		}
	})
	put(cand.Levels, func(r *Row, c *Cell) {
		if r.Cand == nil {
			r.Cand = c
		}
	})
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.k, b.k), cmp.Compare(a.per, b.per)) })
	out := make([]Row, 0, len(keys))
	for _, k := range keys {
		out = append(out, *by[k])
	}
	return out
}
