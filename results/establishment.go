package results

// checkEstablishment checks a sample's connection-establishment counts:
// growths of counters and a mean gauge, so never negative (a counter that
// went back, a restarted server, gives no growth rather than a negative one).
func checkEstablishment(c *check, field string, s *ServerSample) {
	if s == nil || s.Establishment == nil {
		return
	}
	e := s.Establishment
	field += ".establishment."
	c.optNonNeg(field+"queued_mean", e.QueuedMean)
	c.optNonNeg(field+"attempted", e.Attempted)
	c.optNonNeg(field+"admitted", e.Admitted)
	c.optNonNeg(field+"queued", e.Queued)
	c.optNonNeg(field+"rejected", e.Rejected)
	c.optNonNeg(field+"interrupted", e.Interrupted)
}
