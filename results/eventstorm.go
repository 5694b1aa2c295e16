package results

// ReconnectStorm is the connections the step's clients opened to one
// host after an event, in one burst: after a step-down the pools that
// refill on the new primary, after a router restart the pools that move
// to the other router (or return to the restarted one). K clients that
// each refill a pool of P make K·P connection attempts at once, which a
// server sets up at its own rate (its accept and handshake cost, and on
// 8.2 its connection-establishment rate limiter); the storm says how
// long that took.
//
// The storm starts with the first connection created to the host at or
// after the event fired and holds every connection created to it after
// that until a second passes with none (or the next event fires). Times
// are on the timeline's clock, from the driver's pool events
// (ConnectionCreated, ConnectionReady), exact rather than by interval.
type ReconnectStorm struct {
	Host string `json:"host"`
	// StartS is the storm's first ConnectionCreated on the host.
	StartS float64 `json:"start_s"`
	// LastCreatedS is its last ConnectionCreated.
	LastCreatedS float64 `json:"last_created_s"`
	// Created is the connections the storm opened; NotReady those of
	// them closed before they became ready or not ready by the step's
	// end (a refused or failed handshake).
	Created  int64 `json:"created"`
	NotReady int64 `json:"not_ready,omitempty"`
	// RefillS is from StartS until the last of the storm's connections
	// became ready (ConnectionReady): the time the clients' pools took
	// to refill on the host. Absent when one never became ready.
	RefillS *float64 `json:"refill_s,omitempty"`
	// SetupPerS is Created over RefillS: the rate at which the server
	// set up the storm's connections (a server that accepts one at a
	// time in a, at most 1/a). Absent with RefillS, or when RefillS is
	// 0.
	SetupPerS *float64 `json:"setup_per_s,omitempty"`
	// PeakCreatedPerS is the most connections created to the host in
	// one timeline interval of the storm, per second.
	PeakCreatedPerS float64 `json:"peak_created_per_s"`
	// Clients is how many of the step's clients opened a connection in
	// the storm (each client has its own pool), of the step's clients.
	Clients int `json:"clients"`
	// Establishment is what the host's connection-establishment rate
	// limiter (8.2) did over the step, which holds the storm: absent
	// where the server reports no limiter.
	Establishment *EstablishmentCounts `json:"establishment,omitempty"`
}
