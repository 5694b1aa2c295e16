package plot

import (
	"math"
)

// xMode is what the shared x axis of the connection figures measures.
type xMode int

const (
	// xConnections: open connections (clients × min(C, P) as measured).
	xConnections xMode = iota
	// xInFlight: in-flight calls, clients × concurrency. Used when a
	// fixed pool makes several levels share one connection count, which
	// would stack them on one x.
	xInFlight
)

func chooseXMode(curves []*curve) xMode {
	for _, c := range curves {
		for i := 1; i < len(c.levels); i++ {
			if c.levels[i].conns <= c.levels[i-1].conns {
				return xInFlight
			}
		}
	}
	return xConnections
}

func (m xMode) of(l *level) float64 {
	if m == xInFlight {
		return l.inFlight
	}
	return l.conns
}

// noun names the x axis in a title or caption.
func (m xMode) noun() string {
	if m == xInFlight {
		return "in-flight calls"
	}
	return "connections"
}

func (m xMode) label() string {
	if m == xInFlight {
		return "in-flight calls (clients × concurrency, log₂)"
	}
	return "connections (log₂)"
}

// xAtConcurrency maps a per-client concurrency (the unit of the knee
// analysis and of the USL fit) to the figure's x by log-linear
// interpolation between the curve's measured levels; ok is false outside
// the measured range. This keeps the USL curve and the knee marker on the
// measured points whatever the clients, hosts and pool did to the
// connection count.
func (c *curve) xAtConcurrency(m xMode, n float64) (float64, bool) {
	ls := c.levels
	if len(ls) == 0 || n <= 0 {
		return 0, false
	}
	for i := range ls {
		if float64(ls[i].concurrency) == n {
			return m.of(&ls[i]), true
		}
	}
	for i := 1; i < len(ls); i++ {
		c0, c1 := float64(ls[i-1].concurrency), float64(ls[i].concurrency)
		if n > c0 && n < c1 {
			x0, x1 := m.of(&ls[i-1]), m.of(&ls[i])
			if x0 <= 0 || x1 <= 0 {
				return 0, false
			}
			f := math.Log(n/c0) / math.Log(c1/c0)
			return math.Exp(math.Log(x0) + f*math.Log(x1/x0)), true
		}
	}
	return 0, false
}
