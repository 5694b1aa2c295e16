package sim

import (
	"fmt"
	"math"
	"strconv"
)

// The ingress_* keys: 8.2's connection-establishment rate limiter, under
// the server's parameter names and defaults (mongodb/mongo
// src/mongo/db/admission/README.md, "Session Establishment Rate Limiter").

// Defaults of the limiter's parameters on a real 8.2 server, taken by the
// keys a spec with any ingress_* key leaves out.
const (
	// defaultIngressRate is ingressConnectionEstablishmentRatePerSec's
	// default, INT32_MAX.
	defaultIngressRate = math.MaxInt32
	// defaultIngressQueue is ingressConnectionEstablishmentMaxQueueDepth's
	// default: a connection that would wait is rejected.
	defaultIngressQueue = 0
	// maxIngressQueue bounds ingress_queue (int32 on the server; a
	// simulated queue that long would only hold goroutines).
	maxIngressQueue = 1_000_000
)

// defaultIngressBurst is ingressConnectionEstablishmentBurstCapacitySecs'
// default (DBL_MAX on the server): an unbounded bucket.
var defaultIngressBurst = math.Inf(1)

// ingressDefaults turns the limiter on when a spec names any of its keys,
// and gives the others their defaults.
func (s *Spec) ingressDefaults(seen map[string]bool) {
	if !seen["ingress_rate"] && !seen["ingress_burst"] && !seen["ingress_queue"] {
		return
	}
	s.IngressLimiter = true
	if !seen["ingress_rate"] {
		s.IngressRate = defaultIngressRate
	}
	if !seen["ingress_burst"] {
		s.IngressBurst = defaultIngressBurst
	}
	if !seen["ingress_queue"] {
		s.IngressQueue = defaultIngressQueue
	}
}

// validateIngress checks the limiter's keys: only with a version that has
// the limiter's counters (8.2), and in range.
func (s Spec) validateIngress() error {
	bad := func(key, val, what string) error { return fmt.Errorf("%w: %s=%s: %s", ErrSpec, key, val, what) }
	if !s.IngressLimiter {
		if s.IngressRate != 0 || s.IngressBurst != 0 || s.IngressQueue != 0 {
			return fmt.Errorf("%w: ingress_rate, ingress_burst and ingress_queue are set but the limiter is off (set IngressLimiter)", ErrSpec)
		}
		return nil
	}
	if v, _ := versionOf(s.Version); !v.ingress {
		return fmt.Errorf("%w: ingress_rate, ingress_burst and ingress_queue need version=8.2 (the connection-establishment rate limiter's counters are 8.2's; version is %s)", ErrSpec, v.name)
	}
	switch {
	case s.IngressRate < 1 || s.IngressRate > math.MaxInt32:
		return bad("ingress_rate", strconv.Itoa(s.IngressRate), fmt.Sprintf("must be between 1 and %d (connections a second)", math.MaxInt32))
	case math.IsNaN(s.IngressBurst) || s.IngressBurst < 0:
		return bad("ingress_burst", strconv.FormatFloat(s.IngressBurst, 'g', -1, 64), "must be 0 or more (seconds of rate the bucket holds)")
	case s.IngressQueue < 0 || s.IngressQueue > maxIngressQueue:
		return bad("ingress_queue", strconv.Itoa(s.IngressQueue), fmt.Sprintf("must be between 0 and %d (connections waiting)", maxIngressQueue))
	}
	return nil
}

// ingressString is the limiter's keys for Spec.String, all three when it
// is on.
func (s Spec) ingressString() []string {
	if !s.IngressLimiter {
		return nil
	}
	return []string{
		"ingress_rate=" + strconv.Itoa(s.IngressRate),
		"ingress_burst=" + strconv.FormatFloat(s.IngressBurst, 'g', -1, 64),
		"ingress_queue=" + strconv.Itoa(s.IngressQueue),
	}
}
