package analysis

import (
	"fmt"
	"slices"

	"github.com/poolsweep/poolsweep/results"
)

// StormResult is an event's reconnect storm (results.ReconnectStorm)
// under one setting over its trials: in each trial the storm on the host
// the clients opened the most connections to (the new primary after a
// step-down, the router they moved to after a router restart), each
// figure with its interval.
type StormResult struct {
	// Hosts are the storms' hosts, each once, in the order the trials
	// met them: a step-down's new primary may differ from trial to trial.
	Hosts []string `json:"hosts"`
	// Trials counts the trials that recorded a storm.
	Trials int `json:"trials"`
	// Clients is the most clients that opened connections in one trial's
	// storm, of ClientsInStep, the step's clients.
	Clients       int `json:"clients"`
	ClientsInStep int `json:"clients_in_step"`
	// Created is the connections each storm opened; RefillS from its
	// first connection created until the last became ready (over the
	// trials whose every connection did); SetupPerS their rate;
	// PeakCreatedPerS the most created in one interval, per second.
	Created         Figure `json:"connections_created"`
	RefillS         Figure `json:"refill_s"`
	SetupPerS       Figure `json:"setup_per_s"`
	PeakCreatedPerS Figure `json:"peak_created_per_s"`
	// NotReady is the storms' connections, over every trial, closed
	// before they became ready or not ready by the step's end.
	NotReady int64 `json:"not_ready,omitempty"`
	// Limited counts the trials whose storm host's connection-
	// establishment limiter queued or rejected connections during the
	// step; Queued and Rejected sum them. LimiterKnown counts the trials
	// whose host reported the limiter at all.
	Limited      int     `json:"limited,omitempty"`
	LimiterKnown int     `json:"limiter_known,omitempty"`
	Queued       float64 `json:"queued,omitempty"`
	Rejected     float64 `json:"rejected,omitempty"`
}

// addStorm takes one trial's storms (the busiest, which the step records
// first).
func (er *EventResult) addStorm(ev results.StepEvent, clients int) {
	if len(ev.Storms) == 0 {
		return
	}
	if er.Storm == nil {
		er.Storm = &StormResult{}
	}
	sr, s := er.Storm, ev.Storms[0]
	sr.Trials++
	if !slices.Contains(sr.Hosts, s.Host) {
		sr.Hosts = append(sr.Hosts, s.Host)
	}
	sr.Clients = max(sr.Clients, s.Clients)
	sr.ClientsInStep = max(sr.ClientsInStep, clients)
	sr.Created.add(ptr(float64(s.Created)))
	sr.RefillS.add(s.RefillS)
	sr.SetupPerS.add(s.SetupPerS)
	sr.PeakCreatedPerS.add(ptr(s.PeakCreatedPerS))
	sr.NotReady += s.NotReady
	if e := s.Establishment; e != nil {
		sr.LimiterKnown++
		if e.Limited() {
			sr.Limited++
		}
		if e.Queued != nil {
			sr.Queued += *e.Queued
		}
		if e.Rejected != nil {
			sr.Rejected += *e.Rejected
		}
	}
}

// finishStorm computes the storm's figures and says what is missing.
func (er *EventResult) finishStorm() {
	sr := er.Storm
	if sr == nil {
		return
	}
	for _, f := range []*Figure{&sr.Created, &sr.RefillS, &sr.SetupPerS, &sr.PeakCreatedPerS} {
		f.finish()
	}
	if n := sr.Trials - sr.RefillS.N; n > 0 {
		er.Notes = append(er.Notes, fmt.Sprintf("%d of %d trials' reconnect storms had a connection that never became ready: their refill time is left out", n, sr.Trials))
	}
}

// StormWords is the storm in words: "the reconnect storm on the new
// primary (h2): 250 connections from 50 of 50 clients, ready in 5.13 s
// [5.02, 5.24], set up at 48.7/s; the server's limiter queued 120";
// "" without a storm.
func (er *EventResult) StormWords() string {
	sr := er.Storm
	if sr == nil || sr.Created.Value == nil {
		return ""
	}
	who := "on " + joinHosts(sr.Hosts)
	if er.Action == results.EventStepDown && er.EventHost != "" && !slices.Contains(sr.Hosts, er.EventHost) {
		who = "on the new primary (" + joinHosts(sr.Hosts) + ")"
	}
	s := fmt.Sprintf("the reconnect storm %s: %.0f connections from %d of %d clients", who, *sr.Created.Value, sr.Clients, sr.ClientsInStep)
	if sr.RefillS.Value != nil {
		s += ", ready in " + figureWords(sr.RefillS, "s")
	}
	if v, ok := sr.SetupPerS.Get(); ok {
		s += fmt.Sprintf(", set up at %s/s", num(v))
	}
	switch {
	case sr.Limited > 0:
		s += fmt.Sprintf("; the server's connection-establishment limiter queued %.0f and rejected %.0f (%d of %d trials)", sr.Queued, sr.Rejected, sr.Limited, sr.LimiterKnown)
	case sr.LimiterKnown > 0:
		s += "; the server's connection-establishment limiter queued none"
	}
	return s
}

func joinHosts(hs []string) string {
	out := ""
	for i, h := range hs {
		if i > 0 {
			out += ", "
		}
		out += h
	}
	return out
}
