package curves

import (
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// All compares the series of rs (reports are their knee analysis,
// knee.AnalyzeAll of knee.FromResults) that differ in one thing only:
// their target, at the same workload, pool setting and clients, or,
// within one target, their read preference or their write concern. Each
// series is compared with the first before it that differs from it in
// that one thing: with targets a, b and c, b and c against a. Nil when
// there is nothing to compare.
func All(rs []*results.Results, reports []knee.Report, alpha float64) []*Comparison {
	var sides []Side
	for _, r := range reports {
		if s := sideOf(rs, r, r.Target); len(s.Levels) > 0 {
			sides = append(sides, s)
		}
	}
	var out []*Comparison
	for j := range sides {
		for _, d := range []dim{dimTarget, dimReadPref, dimWriteConcern} {
			for i := range j {
				if onlyDiffer(sides[i], sides[j], d) {
					b, c := named(sides[i], d), named(sides[j], d)
					out = append(out, compare(b, c, alpha))
					break
				}
			}
		}
	}
	return out
}

// Pick says which series of some results files make one side of compare:
// those of a target, or those run with a value on a series axis; Name is
// what the side is called.
type Pick struct {
	Target string // "" with Axis
	Axis   results.Axis
	Value  string
	Name   string
}

func (p Pick) takes(s Side) bool {
	switch {
	case p.Axis == results.AxisReadPreference:
		return s.readPref == p.Value
	case p.Axis == results.AxisWriteConcern:
		return s.writeConcern == p.Value
	}
	return s.Report.Target == p.Target
}

// Between compares the baseline's series picked by bp with the
// candidate's picked by cp (which may be the same files), pairing those
// of the same workload (without the axis), pool setting and clients. The
// knees are knee.AnalyzeAll's with o.
func Between(base, cand []*results.Results, sameFiles bool, bp, cp Pick, o knee.Options, alpha, runNoisePct float64) []*Comparison {
	bs := picked(base, bp, o)
	src := cand
	if sameFiles {
		src = base
	}
	cs := picked(src, cp, o)
	var out []*Comparison
	for _, b := range bs {
		for _, c := range cs {
			if b.label == c.label && b.Report.Pool == c.Report.Pool && b.Report.Clients == c.Report.Clients &&
				(bp.Axis == "" || b.Report.Target == c.Report.Target) {
				b.Name, c.Name = bp.Name, cp.Name
				out = append(out, compareAcross(b, c, alpha, runNoisePct))
			}
		}
	}
	return out
}

func picked(rs []*results.Results, p Pick, o knee.Options) []Side {
	var out []Side
	for _, r := range knee.AnalyzeAll(knee.FromResults(rs), o) {
		if s := sideOf(rs, r, r.Target); len(s.Levels) > 0 && p.takes(s) {
			out = append(out, s)
		}
	}
	return out
}

// dim is what two series may differ in.
type dim int

const (
	dimTarget dim = iota
	dimReadPref
	dimWriteConcern
)

// onlyDiffer says a and b are the same workload, pool setting and
// clients and differ in d alone.
func onlyDiffer(a, b Side, d dim) bool {
	if a.label != b.label || a.Report.Pool != b.Report.Pool || a.Report.Clients != b.Report.Clients {
		return false
	}
	same := [3]bool{a.Report.Target == b.Report.Target, a.readPref == b.readPref, a.writeConcern == b.writeConcern}
	for k, eq := range same {
		if dim(k) == d && eq || dim(k) != d && !eq {
			return false
		}
	}
	return true
}

// named names a side by what tells it from the other: its target, or
// its value on the axis.
func named(s Side, d dim) Side {
	switch d {
	case dimReadPref:
		s.Name = s.readPref
	case dimWriteConcern:
		s.Name = "w:" + s.writeConcern
	}
	return s
}
