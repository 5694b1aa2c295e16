package analysis

import (
	"slices"
	"sort"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/results"
)

// Replay is the analysis of one replayed series (sweep --workload-file):
// its knee, each shape's numbers at every level, which shape saturates
// first, and the find-by-_id series' knee of the same target beside it
// when the results hold one.
type Replay struct {
	Target   string `json:"target"`
	Workload string `json:"workload"`
	Pool     string `json:"pool"`
	Clients  int    `json:"clients"`
	File     string `json:"file"`
	// Knee and Peak are the series' own (its knee report's).
	Knee   knee.Knee     `json:"knee"`
	Peak   knee.Peak     `json:"peak"`
	Shapes []ShapeLevels `json:"shapes"`
	// Saturates says which shape saturates first; nil when no shape's
	// latency rose within the levels measured.
	Saturates *Saturation `json:"saturates_first"`
	// FindByID is the knee of the same target's find-by-_id series
	// (workload read) in the same results, nil when there is none.
	FindByID *Baseline `json:"find_by_id,omitempty"`
}

// ShapeLevels is one shape of the file and its numbers at every level.
type ShapeLevels struct {
	ID      string       `json:"id"`
	Name    string       `json:"name,omitempty"`
	Command string       `json:"command"`
	Class   string       `json:"class"`
	Share   float64      `json:"share"` // the file's
	Levels  []ShapeLevel `json:"levels"`
}

// ShapeLevel is one shape at one concurrency: medians over the trials.
type ShapeLevel struct {
	Concurrency int     `json:"concurrency"`
	OpsPerS     float64 `json:"ops_per_s"`
	P50Ms       float64 `json:"p50_ms"`
	P99Ms       float64 `json:"p99_ms"`
	// TimeShare is the shape's share of the time the series' ops took
	// (its count × mean latency over the sum of all shapes'): at a level
	// below saturation, the share of the server's capacity it uses.
	TimeShare float64 `json:"time_share"`
}

// Saturation is the answer to "which shape saturates first": the lowest
// level at which some shape's median latency has at least doubled from
// the lowest level (Concurrency); the shapes whose added latency there is
// at least half the largest wait in the same queue (Queued, the shapes
// that saturated together); and among them the one taking the largest
// share of the ops' time at the lowest level (Shape), whose work fills
// what saturated.
type Saturation struct {
	Shape       string   `json:"shape"`
	Concurrency int      `json:"concurrency"`
	Queued      []string `json:"queued"`
	// AddedMs is Shape's median latency at Concurrency less its median at
	// the lowest level; TimeShare its share of the ops' time there.
	AddedMs   float64 `json:"added_ms"`
	TimeShare float64 `json:"time_share"`
	From      int     `json:"from"` // the lowest level
}

// Baseline is another series' knee set beside a replay's.
type Baseline struct {
	Workload string    `json:"workload"`
	Pool     string    `json:"pool"`
	Knee     knee.Knee `json:"knee"`
	Peak     knee.Peak `json:"peak"`
}

// findByIDWorkload is the label of the built-in find-by-_id series.
const findByIDWorkload = "read"

// minShapeOps is the fewest ops of a shape at a level for its latency to
// count toward saturation.
const minShapeOps = 20

// replaysOf analyses the replayed series of rs, with the knee reports of
// all series (series) for their knees and the find-by-_id baseline.
func replaysOf(rs []*results.Results, series []knee.Report) []Replay {
	type key struct {
		target, workload, pool string
		clients                int
	}
	var order []key
	steps := map[key][]results.StepResult{}
	infos := map[key]*results.ReplayInfo{}
	for _, r := range rs {
		info := r.Header.Workload.Replay
		if info == nil {
			continue
		}
		for _, st := range r.Steps {
			if !st.Measured() || st.Mode == results.ModeOpen || st.Mode == results.ModeProfile {
				continue
			}
			k := key{st.Target, st.Workload, st.PoolSetting, max(st.Clients, 1)}
			if _, ok := steps[k]; !ok {
				order = append(order, k)
				infos[k] = info
			}
			steps[k] = append(steps[k], st)
		}
	}
	var out []Replay
	for _, k := range order {
		rp := Replay{Target: k.target, Workload: k.workload, Pool: k.pool, Clients: k.clients, File: infos[k].File}
		for _, s := range series {
			switch {
			case s.Target == k.target && s.Workload == k.workload && s.Pool == k.pool && s.Clients == k.clients:
				rp.Knee, rp.Peak = s.Knee, s.Peak
			case s.Target == k.target && s.Workload == findByIDWorkload && (rp.FindByID == nil || s.Pool == k.pool):
				rp.FindByID = &Baseline{Workload: s.Workload, Pool: s.Pool, Knee: s.Knee, Peak: s.Peak}
			}
		}
		rp.Shapes = shapeLevels(infos[k], steps[k])
		rp.Saturates = saturation(rp.Shapes)
		out = append(out, rp)
	}
	return out
}

// At is the shape's numbers at concurrency c; false when it ran too few
// ops there.
func (s ShapeLevels) At(c int) (ShapeLevel, bool) {
	for _, l := range s.Levels {
		if l.Concurrency == c {
			return l, true
		}
	}
	return ShapeLevel{}, false
}

// shapeLevels is every shape's numbers per level, medians over trials.
func shapeLevels(info *results.ReplayInfo, steps []results.StepResult) []ShapeLevels {
	byLevel := map[int][]results.StepResult{}
	for _, st := range steps {
		byLevel[st.Concurrency] = append(byLevel[st.Concurrency], st)
	}
	levels := make([]int, 0, len(byLevel))
	for c := range byLevel {
		levels = append(levels, c)
	}
	sort.Ints(levels)
	out := make([]ShapeLevels, len(info.Shapes))
	for i, s := range info.Shapes {
		out[i] = ShapeLevels{ID: s.ID, Name: s.Name, Command: s.Command, Class: s.Class, Share: s.Share}
	}
	for _, c := range levels {
		var rate, p50, p99, share [][]float64
		rate, p50, p99, share = make([][]float64, len(info.Shapes)), make([][]float64, len(info.Shapes)), make([][]float64, len(info.Shapes)), make([][]float64, len(info.Shapes))
		for _, st := range byLevel[c] {
			total := 0.0
			for _, s := range info.Shapes {
				o := st.OpsByType[s.OpType]
				total += float64(o.Count) * o.Latency.Mean
			}
			for i, s := range info.Shapes {
				o, ok := st.OpsByType[s.OpType]
				if !ok || o.Count < minShapeOps {
					continue
				}
				rate[i] = append(rate[i], o.PerS)
				p50[i] = append(p50[i], o.Latency.P50)
				p99[i] = append(p99[i], o.Latency.P99)
				if total > 0 {
					share[i] = append(share[i], float64(o.Count)*o.Latency.Mean/total)
				}
			}
		}
		for i := range out {
			if len(rate[i]) == 0 {
				continue
			}
			out[i].Levels = append(out[i].Levels, ShapeLevel{Concurrency: c, OpsPerS: stats.Median(rate[i]),
				P50Ms: stats.Median(p50[i]), P99Ms: stats.Median(p99[i]), TimeShare: medianOr0(share[i])})
		}
	}
	return out
}

func medianOr0(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return stats.Median(xs)
}

// saturation finds the shape that saturates first (Saturation says how);
// nil when no shape's median latency doubled. Each shape is measured from
// the lowest level at which it ran enough ops (a rare shape may lack the
// lowest level's).
func saturation(shapes []ShapeLevels) *Saturation {
	var levels []int
	for _, s := range shapes {
		for _, l := range s.Levels {
			if !slices.Contains(levels, l.Concurrency) {
				levels = append(levels, l.Concurrency)
			}
		}
	}
	sort.Ints(levels)
	if len(levels) < 2 {
		return nil
	}
	for _, c := range levels[1:] {
		added := make([]float64, len(shapes))
		most, rose := 0.0, false
		for i, s := range shapes {
			now, ok := s.At(c)
			if !ok || s.Levels[0].Concurrency >= c {
				added[i] = -1
				continue
			}
			base := s.Levels[0]
			added[i] = now.P50Ms - base.P50Ms
			most = max(most, added[i])
			rose = rose || added[i] >= base.P50Ms
		}
		if !rose {
			continue
		}
		sat := &Saturation{Concurrency: c, From: levels[0]}
		best := -1.0
		for i, s := range shapes {
			if added[i] < 0 || added[i] < 0.5*most {
				continue
			}
			sat.Queued = append(sat.Queued, s.ID)
			if base := s.Levels[0]; base.TimeShare > best {
				best, sat.Shape, sat.AddedMs, sat.TimeShare, sat.From = base.TimeShare, s.ID, added[i], base.TimeShare, base.Concurrency
			}
		}
		return sat
	}
	return nil
}
