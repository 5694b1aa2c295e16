package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// The cost of a connection: conn_mem=BYTES, the resident memory each open
// connection adds to a server, max_conns=N, the server's connection limit
// (net.maxIncomingConnections), and hello_cost=D, the CPU time of each
// hello (a monitor's heartbeat). They give a connection sweep a known
// answer: the memory per connection and the CPU per heartbeat it should
// measure, and the level at which the server refuses.

const (
	// maxConnMem bounds conn_mem: 1 GiB a connection is far above any
	// real server's and would only overflow mem.resident.
	maxConnMem = 1 << 30
	// maxMaxConns bounds max_conns as a real server bounds
	// net.maxIncomingConnections: at most 1,000,000 (its default, which
	// the simulator keeps when max_conns is left out).
	maxMaxConns = maxIncomingConnections
)

// byteSize is a spec value in bytes: a whole number, with an optional KiB
// or MiB suffix.
type byteSize int64

// parseByteSize reads "262144", "256KiB" or "1MiB" (binary units only, so
// that no one wonders whether KB means 1,000 or 1,024).
func parseByteSize(s string) (byteSize, error) {
	mult := int64(1)
	num := s
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = n, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n < 0 || n > maxConnMem/mult {
		return 0, fmt.Errorf("not a size between 0 and 1024MiB (bytes, or with KiB or MiB)")
	}
	return byteSize(n * mult), nil
}

// String writes the size in the largest unit that divides it.
func (b byteSize) String() string {
	switch {
	case b > 0 && b%(1<<20) == 0:
		return strconv.FormatInt(int64(b>>20), 10) + "MiB"
	case b > 0 && b%(1<<10) == 0:
		return strconv.FormatInt(int64(b>>10), 10) + "KiB"
	}
	return strconv.FormatInt(int64(b), 10)
}

// validateConnCost checks conn_mem and max_conns.
func (s Spec) validateConnCost() error {
	bad := func(key, val, what string) error { return fmt.Errorf("%w: %s=%s: %s", ErrSpec, key, val, what) }
	if s.ConnMem < 0 || s.ConnMem > maxConnMem {
		return bad("conn_mem", strconv.FormatInt(s.ConnMem, 10), "must be between 0 and 1024MiB")
	}
	if s.HelloCost < 0 || s.HelloCost > maxConnCost {
		return bad("hello_cost", fmtDuration(s.HelloCost), fmt.Sprintf("must be between 0s and %s", maxConnCost))
	}
	if s.MaxConns < 0 || s.MaxConns > maxMaxConns {
		return bad("max_conns", strconv.Itoa(s.MaxConns), fmt.Sprintf("must be between 1 and %d (leave it out for %d, a real server's default)", maxMaxConns, maxIncomingConnections))
	}
	return nil
}

// connCostString is conn_mem and max_conns for Spec.String, each only
// when set, so specs that leave them out print as before.
func (s Spec) connCostString() []string {
	var out []string
	if s.ConnMem > 0 {
		out = append(out, "conn_mem="+byteSize(s.ConnMem).String())
	}
	if s.MaxConns > 0 {
		out = append(out, "max_conns="+strconv.Itoa(s.MaxConns))
	}
	if s.HelloCost > 0 {
		out = append(out, "hello_cost="+fmtDuration(s.HelloCost))
	}
	return out
}

// connLimit is the connection limit of each listening server: max_conns,
// or a real server's default.
func (s Spec) connLimit() int {
	if s.MaxConns > 0 {
		return s.MaxConns
	}
	return maxIncomingConnections
}
