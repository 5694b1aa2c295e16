package fleet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Setup puts a storm run (poolsweep storm) beside a series' ops knee:
// where connection setup saturated the server, and what that means for
// the fleet at the recommended pool: the time a restart of every
// instance at once takes before the pools are full.
type Setup struct {
	// Storm names the storm run: its run ID and target.
	Storm  string `json:"storm"`
	Target string `json:"target"`
	// Pool is the storm's P: each client's maxPoolSize.
	Pool        int          `json:"pool"`
	Saturations []Saturation `json:"saturations"`
	Restarts    []Restart    `json:"restarts"`
	// Differences are how the storm's target differs from the results'
	// without being another deployment (its server version, its name).
	Differences []string `json:"differences,omitempty"`
}

// Restart is the fleet's restart at one maxConnecting: Connections (per
// host, the recommendation's N·(P + monitoring)) over the hosts the storm
// spread its pools on, set up at AcceptPerS (the storm's rate at K = N
// clients, over those hosts), take Seconds.
type Restart struct {
	MaxConnecting int     `json:"max_connecting"`
	Connections   int     `json:"connections_per_host"`
	Hosts         int     `json:"hosts"`
	AcceptPerS    float64 `json:"accept_per_s"`
	// RateFrom says which storms gave the rate; Bound is "" when the time
	// is an estimate, "lower" or "upper" when the storms bound it.
	RateFrom string  `json:"rate_from"`
	Seconds  float64 `json:"seconds"`
	Bound    string  `json:"bound,omitempty"`
}

// MismatchError says a storm run cannot be put beside the results: it
// measured another deployment, or holds no storm.
type MismatchError struct{ Reason string }

func (e *MismatchError) Error() string { return e.Reason }

// CheckStorm says whether run is a storm run fleet can use: one target,
// storms, and an accept rate (a *MismatchError when not).
func CheckStorm(run *results.Results) error {
	if _, err := stormOf(run); err != nil {
		return err
	}
	if len(SaturationOf(run.Storms)) == 0 {
		return &MismatchError{fmt.Sprintf("%s: no storm reported an accept rate (run storm without --no-telemetry)", runName(run))}
	}
	return nil
}

// stormOf checks a storm run: its header names one target and it holds
// storms.
func stormOf(run *results.Results) (results.TargetHeader, error) {
	if run.Header.Plan.Storm == nil || len(run.Storms) == 0 {
		what := "no storm records"
		if len(run.Steps) > 0 {
			what = "a sweep's steps, not storms (storm runs come from poolsweep storm)"
		}
		return results.TargetHeader{}, &MismatchError{fmt.Sprintf("%s holds %s", runName(run), what)}
	}
	if len(run.Header.Targets) != 1 {
		return results.TargetHeader{}, &MismatchError{fmt.Sprintf("%s names %d targets; a storm run has one", runName(run), len(run.Header.Targets))}
	}
	return run.Header.Targets[0], nil
}

func runName(r *results.Results) string {
	if r.Path != "" {
		return r.Path
	}
	return "the storm run " + r.Header.RunID
}

// sameDeployment says whether the storm's target s is the results' target
// t: the same simulator spec for simulators (their loopback ports change
// with every start), else the same topology and hosts. The differences
// that do not make it another deployment are returned to be said.
func sameDeployment(t, s results.TargetHeader) (bool, string, []string) {
	var diffs []string
	if t.ServerKind == "simulator" || s.ServerKind == "simulator" {
		if t.ServerKind != s.ServerKind {
			return false, fmt.Sprintf("one is a simulator (%s), the other %s", simOf(t, s), kindText(t, s)), nil
		}
		if specKey(t.SimSpec) != specKey(s.SimSpec) {
			return false, fmt.Sprintf("simulator %q against simulator %q", t.SimSpec, s.SimSpec), nil
		}
	} else {
		if t.Topology != s.Topology {
			return false, fmt.Sprintf("topology %s against %s", t.Topology, s.Topology), nil
		}
		if hostKey(t.Hosts) != hostKey(s.Hosts) {
			return false, fmt.Sprintf("hosts %s against %s", strings.Join(t.Hosts, ","), strings.Join(s.Hosts, ",")), nil
		}
	}
	if t.ServerVersion != s.ServerVersion {
		diffs = append(diffs, fmt.Sprintf("server version %s in the results, %s in the storm", orUnknown(t.ServerVersion), orUnknown(s.ServerVersion)))
	}
	if t.Name != s.Name {
		diffs = append(diffs, fmt.Sprintf("the target is named %s in the results, %s in the storm", t.Name, s.Name))
	}
	return true, "", diffs
}

func simOf(t, s results.TargetHeader) string {
	if t.ServerKind == "simulator" {
		return "the results' " + t.Name
	}
	return "the storm's " + s.Name
}

func kindText(t, s results.TargetHeader) string {
	k := t.ServerKind
	if t.ServerKind == "simulator" {
		k = s.ServerKind
	}
	return orUnknown(k)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// specKey is a simulator spec with its keys in order.
func specKey(spec string) string {
	parts := strings.Split(strings.ReplaceAll(spec, " ", ""), ",")
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

func hostKey(hosts []string) string {
	h := slices.Clone(hosts)
	for i := range h {
		h[i] = strings.ToLower(h[i])
	}
	slices.Sort(h)
	return strings.Join(h, ",")
}

// attachSetup puts the storm run beside every series and open plan of its
// target. A storm run that matches no target of the results is a
// *MismatchError.
func (p *Plan) attachSetup(run *results.Results, rs []*results.Results) error {
	if err := CheckStorm(run); err != nil {
		return err
	}
	st, sats := run.Header.Targets[0], SaturationOf(run.Storms)
	hosts := max(run.Storms[0].PoolsPerClient, 1)
	var why []string
	matched := false
	setup := func(target string, rec Recommendation) *Setup {
		t, ok := header(rs, target)
		if !ok {
			return nil
		}
		same, reason, diffs := sameDeployment(t, st)
		if !same {
			why = append(why, fmt.Sprintf("%s is not the storm's %s: %s", target, st.Name, reason))
			return nil
		}
		matched = true
		s := &Setup{Storm: fmt.Sprintf("%s (run %s)", runName(run), run.Header.RunID), Target: st.Name, Pool: run.Header.Plan.Storm.Pool, Saturations: sats, Differences: diffs}
		for _, sat := range sats {
			s.Restarts = append(s.Restarts, restart(run.Storms, sat, p.Instances, rec.ConnectionsPerHost, hosts))
		}
		return s
	}
	for i := range p.Series {
		p.Series[i].Setup = setup(p.Series[i].Target, p.Series[i].Recommended)
	}
	for i := range p.Open {
		p.Open[i].Setup = setup(p.Open[i].Target, p.Open[i].Recommended)
	}
	if !matched {
		return &MismatchError{fmt.Sprintf("%s measured another deployment: %s", runName(run), strings.Join(why, "; "))}
	}
	return nil
}

// restart is the fleet's restart time at the storms' rate for n clients:
// the best trial per K of sat's maxConnecting, linear between the K
// measured, the nearest K's rate outside them (then a bound: below the
// smallest K the rate is at most the smallest K's, so the time at least;
// past the largest K it is at least the largest K's while setup had not
// saturated, so the time at most).
func restart(storms []results.StormResult, sat Saturation, n, perHost, hosts int) Restart {
	best := map[int]float64{}
	for _, s := range storms {
		if s.MaxConnecting == sat.MaxConnecting && s.AcceptPerS != nil {
			best[s.Clients] = max(best[s.Clients], *s.AcceptPerS)
		}
	}
	ks := slices.Sorted(mapKeys(best))
	r := Restart{MaxConnecting: sat.MaxConnecting, Connections: perHost, Hosts: hosts}
	switch i, found := slices.BinarySearch(ks, n); {
	case found:
		r.AcceptPerS, r.RateFrom = best[n], fmt.Sprintf("the storm of K=%d", n)
	case i == 0:
		r.AcceptPerS, r.RateFrom, r.Bound = best[ks[0]], fmt.Sprintf("the storm of K=%d, the fewest clients stormed: fewer clients keep the server less busy", ks[0]), "lower"
	case i == len(ks):
		last := ks[len(ks)-1]
		r.AcceptPerS, r.RateFrom = best[last], fmt.Sprintf("the storm of K=%d, the most clients stormed", last)
		if !sat.Found || last < sat.Clients {
			r.Bound = "upper"
			r.RateFrom += ", and setup had not saturated there"
		} else {
			r.RateFrom += fmt.Sprintf(", saturated from K=%d", sat.Clients)
		}
	default:
		lo, hi := ks[i-1], ks[i]
		f := float64(n-lo) / float64(hi-lo)
		r.AcceptPerS = best[lo] + f*(best[hi]-best[lo])
		r.RateFrom = fmt.Sprintf("between the storms of K=%d and K=%d", lo, hi)
	}
	if r.AcceptPerS > 0 {
		r.Seconds = float64(perHost*hosts) / r.AcceptPerS
	}
	return r
}

// statement says the restart in a sentence.
func (r Restart) statement(n, pool, monitors int) string {
	bound := "about "
	switch r.Bound {
	case "lower":
		bound = "at least "
	case "upper":
		bound = "at most "
	}
	s := fmt.Sprintf("maxConnecting %d: %s × (maxPoolSize %d + %d monitoring) = %d connections per host", r.MaxConnecting, instancesText(n), pool, monitors, r.Connections)
	if r.Hosts > 1 {
		s += fmt.Sprintf(", %d over the %d hosts the storm filled pools on", r.Connections*r.Hosts, r.Hosts)
	}
	if r.AcceptPerS <= 0 {
		return s + ": the storm reported no accept rate"
	}
	return s + fmt.Sprintf(", set up at the measured %.0f connections/s (%s): a restart of the whole fleet takes %s%s before the pools are full",
		r.AcceptPerS, r.RateFrom, bound, secondsText(r.Seconds))
}

// Text says where connection setup saturated the server, in a sentence.
func (s Saturation) Text() string {
	limiter := ""
	if s.Limited {
		limiter = "; the server's connection-establishment rate limiter (ingressConnectionEstablishmentRatePerSec) queued or rejected connections, so this rate is its limit as much as the server's setup"
	}
	if s.Found {
		return fmt.Sprintf("connection setup, maxConnecting %d: the server's accept rate levels off at %.0f connections/s from K=%d clients (95 %% of the highest)%s", s.MaxConnecting, s.AcceptPerS, s.Clients, limiter)
	}
	return fmt.Sprintf("connection setup, maxConnecting %d: highest accept rate %.0f connections/s, still rising at the largest K (setup did not saturate within the K tried)%s", s.MaxConnecting, s.AcceptPerS, limiter)
}

func secondsText(s float64) string {
	switch {
	case s >= 100:
		return fmt.Sprintf("%.0f s", s)
	case s >= 1:
		return fmt.Sprintf("%.1f s", s)
	}
	return fmt.Sprintf("%.0f ms", s*1000)
}

// facts put the storm's saturation beside the knee: one line per
// maxConnecting (none without a storm run).
func (s *Setup) facts() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, sat := range s.Saturations {
		out = append(out, fmt.Sprintf("%s, each client filling pools of %d; storm run %s", sat.Text(), s.Pool, textfmt.Escape(s.Storm)))
	}
	return out
}

// lines are the restart's consequence for the fleet at pool, with the
// model they rest on and how the storm's target differs.
func (s *Setup) lines(n, pool, monitors int) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, r := range s.Restarts {
		out = append(out, "restart, "+r.statement(n, pool, monitors))
	}
	out = append(out, "restart model: time = connections per host × hosts / the accept rate the storms measured with as many clients as instances (K = N, the best trial of each K); the server sets connections up at that rate whatever each pool's maxConnecting, paced by the instances below the K where setup saturates and by the server past it; the monitoring connections count as the storm's did (totalCreated)")
	for _, d := range s.Differences {
		out = append(out, "note: the storm's target differs from the results' in "+textfmt.Escape(d))
	}
	return out
}
