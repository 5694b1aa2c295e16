package plan

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// Each --event value is read into its action and numbers, or refused
// with a reason that names what is wrong.
func TestParseEvent(t *testing.T) {
	for _, c := range []struct {
		in   string
		want results.EventSpec
		err  string // part of the error; "" when it parses
	}{
		// Each action, with and without its numbers.
		{in: "20s=stepdown", want: results.EventSpec{Spec: "20s=stepdown", AtS: 20, Action: "stepdown"}},
		{in: "1.5s=slow=10:5s", want: results.EventSpec{Spec: "1.5s=slow=10:5s", AtS: 1.5, Action: "slow", Factor: 10, DurationS: 5}},
		{in: "0s=freeze=250ms", want: results.EventSpec{Spec: "0s=freeze=250ms", AtS: 0, Action: "freeze", DurationS: 0.25}},
		{in: "3s=reset", want: results.EventSpec{Spec: "3s=reset", AtS: 3, Action: "reset"}},
		{in: "3s=router-restart", want: results.EventSpec{Spec: "3s=router-restart", AtS: 3, Action: "router-restart"}},
		// The shape: T=ACTION.
		{in: "stepdown", err: "is not T=ACTION"},
		{in: "=stepdown", err: "is not T=ACTION"},
		{in: "20s=", err: "is not T=ACTION"},
		{in: "soon=stepdown", err: "is not a duration"},
		{in: "-1s=stepdown", err: "is not a duration"},
		{in: "1s=explode", err: "is not an action"},
		{in: "1s=stepdown=3", err: "takes no value"},
		// slow's factor and length, freeze's length.
		{in: "1s=slow", err: "slow=F:D"},
		{in: "1s=slow=10", err: "slow=F:D"},
		{in: "1s=slow=1:5s", err: "not a number above 1"},
		{in: "1s=slow=NaN:5s", err: "not a number above 1"},
		{in: "1s=slow=5000:5s", err: "at most 1000"},
		{in: "1s=slow=10:0s", err: "not above 0"},
		{in: "1s=slow=10:1.5ms:", err: "not a duration"},
		{in: "1s=freeze", err: "freeze=D"},
		{in: "1s=freeze=1500us", err: "whole number of milliseconds"},
		{in: "1s=freeze=100h", err: "at most 4h"},
		{in: strings.Repeat("1", 200), err: "more than the 128"},
	} {
		got, err := ParseEvent(c.in)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.in, err)
		case c.err == "" && got != c.want:
			t.Errorf("%q: %+v, want %+v", c.in, got, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want one with %q", c.in, err, c.err)
		}
	}
}

// The events must fit the profile, one at a time.
func TestValidateEvents(t *testing.T) {
	for _, c := range []struct {
		profile string // "" none
		events  []string
		err     string
	}{
		// Within a 10 s profile, in order, apart.
		{profile: "rate:100:10s", events: []string{"2s=stepdown", "4s=slow=3:2s", "6s=freeze=1s", "9.9s=reset"}},
		// An event ending at the profile's end is within it.
		{profile: "rate:100:10s", events: []string{"5s=slow=2:5s"}},
		// Without a profile.
		{events: []string{"2s=stepdown"}, err: "only with --profile"},
		// At or past the end, or lasting past it.
		{profile: "rate:100:10s", events: []string{"10s=stepdown"}, err: "not before the profile's end"},
		{profile: "rate:100:10s", events: []string{"30s=reset"}, err: "not before the profile's end"},
		{profile: "rate:100:10s", events: []string{"8s=freeze=3s"}, err: "past the profile's end"},
		// Overlapping: inside another's length, or at the same moment.
		{profile: "rate:100:10s", events: []string{"2s=slow=3:4s", "5s=stepdown"}, err: "overlaps"},
		{profile: "rate:100:10s", events: []string{"3s=reset", "3s=stepdown"}, err: "overlaps"},
		// Given out of order, they are sorted first and still found.
		{profile: "rate:100:10s", events: []string{"5s=stepdown", "2s=slow=3:4s"}, err: `5s=stepdown": it overlaps`},
	} {
		p := Plan{Concurrency: []int{10}, Pool: PoolPlan{Sizes: []int{10}}, Clients: 1, Trials: 1, Duration: MinWindow, OpTimeout: MinOpTimeout}
		if c.profile != "" {
			p = profilePlan(t, c.profile)
		}
		for _, e := range c.events {
			ev, err := ParseEvent(e)
			if err != nil {
				t.Fatal(err)
			}
			p.Events = append(p.Events, ev)
		}
		SortEvents(p.Events)
		err := p.Validate()
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%v: %v", c.events, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "--event")):
			t.Errorf("%v: error %v, want one naming --event with %q", c.events, err, c.err)
		}
	}
}
