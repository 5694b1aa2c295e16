package render

import (
	"fmt"
	"strconv"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// routerPoolDoc is one router's pools to one shard host in one step, as
// analyze --format json carries it ("router_pools"): null where the
// router did not report a number.
type routerPoolDoc struct {
	Target               string   `json:"target"`
	Workload             string   `json:"workload,omitempty"`
	Concurrency          int      `json:"concurrency"`
	MaxPoolSize          int      `json:"max_pool_size"`
	Clients              int      `json:"clients"`
	Trial                int      `json:"trial"`
	ConnectionsPerClient int      `json:"connections_per_client"`
	Router               string   `json:"router"`
	ShardHost            string   `json:"shard_host"`
	Pools                *int     `json:"pools"`
	InUse                *float64 `json:"in_use"`
	InUsePerPool         *float64 `json:"in_use_per_pool"`
	Idle                 *float64 `json:"idle"`
	Opening              *float64 `json:"opening"`
	Created              *float64 `json:"created"`
	NeverUsed            *float64 `json:"was_never_used"`
	MaxSize              *float64 `json:"max_size"`
	MaxSizeNote          string   `json:"max_size_note,omitempty"`
	MaxConnecting        *float64 `json:"max_connecting"`
	Bound                string   `json:"bound,omitempty"`
}

func routerPoolsJSON(rows []analysis.RouterPool) []routerPoolDoc {
	var out []routerPoolDoc
	for _, r := range rows {
		out = append(out, routerPoolDoc{Target: r.Target, Workload: r.Workload, Concurrency: r.Concurrency, MaxPoolSize: r.Pool,
			Clients: r.Clients, Trial: r.Trial, ConnectionsPerClient: r.PerClient, Router: r.Router, ShardHost: r.ShardHost,
			Pools: r.Pools, InUse: round3p(r.InUse), InUsePerPool: round3p(r.PerPoolInUse), Idle: round3p(r.Idle),
			Opening: round3p(r.Opening), Created: r.Created, NeverUsed: r.NeverUsed, MaxSize: r.MaxSize, MaxSizeNote: r.MaxSizeNote,
			MaxConnecting: r.MaxConnecting, Bound: r.Bound})
	}
	return out
}

func round3p(v *float64) *float64 {
	if v == nil {
		return nil
	}
	return new(float64(int64(*v*1000+0.5)) / 1000)
}

// routerPoolsText prints the routers' pools to the shard hosts per step:
// in use over all the task-executor pools, and per pool against
// ShardingTaskExecutorPoolMaxSize, which is what fills; "n/r" where the
// router did not report a number.
func routerPoolsText(ew *textfmt.ErrWriter, rows []analysis.RouterPool) {
	if len(rows) == 0 {
		return
	}
	ew.Printf("\nrouters' pools to the shards, per step (connPoolStats; max size and max connecting by getParameter):\n")
	tw := newTable(ew, false, "target\tC\tP\ttrial\tconns/client\trouter\tshard host\tpools\tin use\tper pool\tmax size\tidle\topening\tmax connecting\tcreated\tbound\t")
	num := func(v *float64, f string) string {
		if v == nil {
			return "n/r"
		}
		return fmt.Sprintf(f, *v)
	}
	for _, r := range rows {
		pools := "n/r"
		if r.Pools != nil {
			pools = strconv.Itoa(*r.Pools)
		}
		maxSize := r.MaxSizeNote
		if r.MaxSize != nil {
			maxSize = fmt.Sprintf("%.0f", *r.MaxSize)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			textfmt.Escape(r.Target), r.Concurrency, r.Pool, r.Trial, r.PerClient, textfmt.Escape(r.Router), textfmt.Escape(r.ShardHost),
			pools, num(r.InUse, "%.1f"), num(r.PerPoolInUse, "%.1f"), textfmt.Escape(maxSize), num(r.Idle, "%.1f"),
			num(r.Opening, "%.1f"), num(r.MaxConnecting, "%.0f"), num(r.Created, "%.0f"), textfmt.Escape(r.Bound))
	}
	_ = tw.Flush()
}
