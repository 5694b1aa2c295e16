package fleet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// AtlasReserved is the connections Atlas keeps on every node for its own
// services, out of the tier's limit.
const AtlasReserved = 10

// atlasTiers are the Atlas cluster tiers' connection limits per node
// (per mongos for a sharded cluster), general class, as MongoDB's "Atlas
// Service Limits" page gives them (mongodb.com/docs/atlas/reference/
// atlas-limits, read December 2026). M0, M2 and M5 are from the page's
// earlier edition, which listed the free and shared tiers at 500.
var atlasTiers = map[string]int{
	"M0": 500, "M2": 500, "M5": 500,
	"M10": 1_500, "M20": 3_000, "M30": 3_000, "M40": 6_000, "M50": 16_000,
	"M60": 32_000, "M80": 96_000, "M140": 96_000, "M200": 128_000, "M300": 128_000,
}

// LimitSpec is a connection limit named by --limit: its connections per
// host for the fleet (the tier's less the reserved) and where it comes from.
type LimitSpec struct {
	PerHost int
	Source  string
}

// ParseLimit reads --limit's value: atlas:TIER, the tier's limit per node
// less the connections Atlas reserves.
func ParseLimit(s string) (LimitSpec, error) {
	kind, tier, ok := strings.Cut(s, ":")
	if !ok || !strings.EqualFold(kind, "atlas") {
		return LimitSpec{}, fmt.Errorf("want atlas:TIER, for example atlas:M30")
	}
	tier = strings.ToUpper(strings.TrimSpace(tier))
	lim, ok := atlasTiers[tier]
	if !ok {
		return LimitSpec{}, fmt.Errorf("atlas tier %s is not one of %s", textfmt.Token(tier), strings.Join(AtlasTiers(), ", "))
	}
	return LimitSpec{PerHost: lim - AtlasReserved,
		Source: fmt.Sprintf("Atlas %s: %d connections per node less the %d Atlas reserves", tier, lim, AtlasReserved)}, nil
}

// AtlasTiers are the tiers ParseLimit knows, smallest first.
func AtlasTiers() []string {
	out := make([]string, 0, len(atlasTiers))
	for t := range atlasTiers {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := len(a) - len(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}
