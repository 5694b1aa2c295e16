package fleet

import (
	"slices"

	"github.com/poolsweep/poolsweep/results"
)

// saturatedShare is the share of the highest accept rate at which
// connection setup counts as saturated.
const saturatedShare = 0.95

// Saturation is where connection setup saturated the server over a run's
// storms of one maxConnecting: the highest accept rate seen, and the
// smallest K whose storm reached 95 % of it. Found is false when fewer
// than two storms of different K reported an accept rate, or when the
// rate was still rising at the largest K (setup did not saturate).
type Saturation struct {
	MaxConnecting int     `json:"max_connecting"`
	AcceptPerS    float64 `json:"accept_per_s"`
	Clients       int     `json:"clients"`
	Found         bool    `json:"found"`
	// Limited: the server's connection-establishment rate limiter (8.2)
	// queued or rejected connections in some of these storms, so the
	// accept rate is the limiter's as much as the server's setup.
	Limited bool `json:"limited,omitempty"`
}

// SaturationOf finds, for each maxConnecting, where the accept rate
// stopped rising with K (medians over trials would need more storms than
// a storm run usually has: the best trial of each K is taken, since the
// host's delays only lower it).
func SaturationOf(storms []results.StormResult) []Saturation {
	byM := map[int]map[int]float64{}
	limited := map[int]bool{}
	for _, s := range storms {
		if s.AcceptPerS == nil {
			continue
		}
		if s.ServerTotal != nil && s.ServerTotal.Establishment.Limited() {
			limited[s.MaxConnecting] = true
		}
		if byM[s.MaxConnecting] == nil {
			byM[s.MaxConnecting] = map[int]float64{}
		}
		byM[s.MaxConnecting][s.Clients] = max(byM[s.MaxConnecting][s.Clients], *s.AcceptPerS)
	}
	var out []Saturation
	for _, m := range slices.Sorted(mapKeys(byM)) {
		rates := byM[m]
		ks := slices.Sorted(mapKeys(rates))
		sat := Saturation{MaxConnecting: m, Limited: limited[m]}
		for _, k := range ks {
			sat.AcceptPerS = max(sat.AcceptPerS, rates[k])
		}
		for _, k := range ks {
			if rates[k] >= saturatedShare*sat.AcceptPerS {
				sat.Clients = k
				break
			}
		}
		sat.Found = len(ks) >= 2 && sat.Clients < ks[len(ks)-1]
		out = append(out, sat)
	}
	return out
}

func mapKeys[V any](m map[int]V) func(func(int) bool) {
	return func(yield func(int) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
