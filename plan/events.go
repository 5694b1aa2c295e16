package plan

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Events under load (sweep --event T=ACTION): an action fired into every
// profile step T into its profile. What the action needs of the target
// (a replica set, the simulator, a fail point) is known only once the
// target answers: sweep.CheckEvents refuses those before any load.

// Bounds of --event.
const (
	// MaxEvents bounds the events of one step: each is measured against
	// the steady state before it, so a few fit in a profile.
	MaxEvents = results.MaxEvents
	// MaxEventSpec bounds one --event's text.
	MaxEventSpec = 128
	// MaxSlowFactor bounds slow's factor: a service time 1000 times
	// longer is an outage, which freeze says.
	MaxSlowFactor = 1000
)

// eventActions are the actions --event takes, in the help's order.
var eventActions = []string{results.EventStepDown, results.EventSlow, results.EventFreeze, results.EventReset, results.EventRouterRestart}

// ParseEvent reads one --event: T=ACTION, T a duration into the profile
// (e.g. 20s) and ACTION stepdown, slow=F:D (service time × F for D),
// freeze=D, reset or router-restart. The error says what is wrong with
// the value, without the flag's name.
func ParseEvent(s string) (results.EventSpec, error) {
	if len(s) > MaxEventSpec {
		return results.EventSpec{}, fmt.Errorf("%d bytes, more than the %d an event may have", len(s), MaxEventSpec)
	}
	at, action, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok || at == "" || action == "" {
		return results.EventSpec{}, fmt.Errorf("%s is not T=ACTION (e.g. 20s=stepdown, 20s=slow=10:5s)", textfmt.Token(s))
	}
	t, err := time.ParseDuration(at)
	if err != nil || t < 0 {
		return results.EventSpec{}, fmt.Errorf("its time %s is not a duration from 0 into the profile (say 20s)", textfmt.Token(at))
	}
	ev := results.EventSpec{Spec: strings.TrimSpace(s), AtS: t.Seconds()}
	name, arg, hasArg := strings.Cut(action, "=")
	ev.Action = name
	switch name {
	case results.EventStepDown, results.EventReset, results.EventRouterRestart:
		if hasArg {
			return results.EventSpec{}, fmt.Errorf("%s takes no value (give %s alone)", name, name)
		}
	case results.EventSlow:
		f, d, ok := strings.Cut(arg, ":")
		if !hasArg || !ok {
			return results.EventSpec{}, errors.New("slow needs slow=F:D, a factor and a length (e.g. slow=10:5s)")
		}
		factor, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(factor) || factor <= 1 || factor > MaxSlowFactor {
			return results.EventSpec{}, fmt.Errorf("slow's factor %s is not a number above 1 and at most %d", textfmt.Token(f), MaxSlowFactor)
		}
		if ev.DurationS, err = eventLength("slow", d); err != nil {
			return results.EventSpec{}, err
		}
		ev.Factor = factor
	case results.EventFreeze:
		if !hasArg {
			return results.EventSpec{}, errors.New("freeze needs freeze=D, a length (e.g. freeze=3s)")
		}
		if ev.DurationS, err = eventLength("freeze", arg); err != nil {
			return results.EventSpec{}, err
		}
	default:
		return results.EventSpec{}, fmt.Errorf("%s is not an action (%s)", textfmt.Token(name), strings.Join(eventActions, ", "))
	}
	return ev, nil
}

// eventLength reads an action's length: a whole number of milliseconds
// above 0, at most a profile's length.
func eventLength(action, s string) (float64, error) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s's length %s is not a duration (say 5s)", action, textfmt.Token(s))
	case d <= 0 || d > MaxProfileLength:
		return 0, fmt.Errorf("%s's length %s is not above 0 and at most %s", action, textfmt.Short(s), fmtDuration(MaxProfileLength))
	case d%time.Millisecond != 0:
		return 0, fmt.Errorf("%s's length %s is not a whole number of milliseconds", action, textfmt.Short(s))
	}
	return d.Seconds(), nil
}

// SortEvents puts events in time order, the order they fire in and the
// header records.
func SortEvents(evs []results.EventSpec) {
	slices.SortStableFunc(evs, func(a, b results.EventSpec) int {
		switch {
		case a.AtS < b.AtS:
			return -1
		case a.AtS > b.AtS:
			return 1
		}
		return 0
	})
}

// validateEvents checks the events against the profile: only with one,
// each within it (an action with a length ending by its end), and none
// while another's trigger lasts (the recovery measured would be both
// events'). Events are in time order (SortEvents).
func (p Plan) validateEvents() error {
	evs := p.Events
	if len(evs) == 0 {
		return nil
	}
	if p.Profile == nil {
		return errors.New("--event: only with --profile (events are fired into a profile step, T into its profile; a steady load is --profile rate:R:D)")
	}
	if len(evs) > MaxEvents {
		return fmt.Errorf("--event: %d events, more than the %d a step may have", len(evs), MaxEvents)
	}
	length := p.Profile.Duration().Seconds()
	for i, ev := range evs {
		switch {
		case ev.AtS >= length:
			return fmt.Errorf("--event %s: %s is not before the profile's end at %s", textfmt.Token(ev.Spec), seconds(ev.AtS), seconds(length))
		case ev.AtS+ev.DurationS > length:
			return fmt.Errorf("--event %s: it lasts until %s, past the profile's end at %s", textfmt.Token(ev.Spec), seconds(ev.AtS+ev.DurationS), seconds(length))
		}
		if i == 0 {
			continue
		}
		if prev := evs[i-1]; ev.AtS < prev.AtS+prev.DurationS || ev.AtS == prev.AtS {
			return fmt.Errorf("--event %s: it overlaps %s (one event at a time: each is measured against the load before it)", textfmt.Token(ev.Spec), textfmt.Token(prev.Spec))
		}
	}
	return nil
}

// seconds writes a time on the profile's clock.
func seconds(s float64) string {
	return (time.Duration(s * float64(time.Second))).String()
}
