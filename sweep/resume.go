package sweep

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/workload"
)

// ErrAlreadyComplete is returned when a run to resume has every planned
// step measured: there is nothing to do, and the file is left untouched.
var ErrAlreadyComplete = errors.New("the run is already complete")

// checkResume says whether a results header was produced by the same plan,
// workloads and target names, so that --resume appends comparable steps.
// Durations must match too: a step measured for 30 s and one for 5 s are
// not trials of one level. The error names the setting that differs.
func checkResume(h results.RunHeader, plan plan.Plan, workloads []workload.Workload, targets []string) error {
	p := NewPlanInfo(plan, 0)
	hp := h.Plan
	// A search's concurrency list is its grid: name the search setting
	// that changed it, not the list.
	if err := sameSearch(hp.Search, p.Search); err != nil {
		return err
	}
	switch {
	case !slices.Equal(hp.Concurrency, p.Concurrency) || !slices.EqualFunc(hp.TargetConcurrency, p.TargetConcurrency, sameTargetLevels):
		return fmt.Errorf("--concurrency was %s", describeLevels(hp))
	case hp.Pool != p.Pool:
		return fmt.Errorf("--pool was %s", hp.Pool)
	case hp.Clients != p.Clients || !slices.Equal(hp.ClientLevels, p.ClientLevels):
		if len(hp.ClientLevels) > 0 {
			return fmt.Errorf("--clients was %s", strings.Join(strings.Fields(strings.Trim(fmt.Sprint(hp.ClientLevels), "[]")), ","))
		}
		return fmt.Errorf("--clients was %d", hp.Clients)
	case hp.Trials != p.Trials:
		return fmt.Errorf("--trials was %d", hp.Trials)
	case hp.TrialsAtMost != p.TrialsAtMost:
		// The same flags, another version: one took every trial of every
		// level, the other takes them where they pay.
		return fmt.Errorf("--trials %d meant %s then", hp.Trials, map[bool]string{true: "at most that many, where neighbouring levels overlap", false: "that many at every level"}[hp.TrialsAtMost])
	case hp.WarmupS != p.WarmupS || hp.DurationS != p.DurationS:
		return fmt.Errorf("--warmup/--duration were %gs/%gs", hp.WarmupS, hp.DurationS)
	case (hp.Auto == nil) != (p.Auto == nil) || (hp.Auto != nil && *hp.Auto != *p.Auto):
		return fmt.Errorf("the auto warm-up and window settings were %s", describeAuto(hp.Auto))
	case hp.Order != p.Order:
		return fmt.Errorf("--order was %s", hp.Order)
	case !slices.Equal(hp.Rate, p.Rate) || hp.Arrivals != p.Arrivals || hp.MaxInFlight != p.MaxInFlight:
		return fmt.Errorf("--rate/--arrivals/--max-in-flight were %v/%s/%d", hp.Rate, hp.Arrivals, hp.MaxInFlight)
	case hp.Profile != p.Profile:
		return fmt.Errorf("--profile was %s", orNotGiven(textfmt.Token(hp.Profile), hp.Profile == ""))
	case hp.Cold != p.Cold:
		return fmt.Errorf("--cold was %s", map[bool]string{true: "given", false: "not given"}[hp.Cold])
	case !slices.Equal(hp.MinPool, p.MinPool):
		return fmt.Errorf("--min-pool was %s", orNotGiven(fmt.Sprint(hp.MinPool), len(hp.MinPool) == 0))
	case !slices.Equal(hp.MaxConnecting, p.MaxConnecting):
		return fmt.Errorf("--max-connecting was %s", orNotGiven(fmt.Sprint(hp.MaxConnecting), len(hp.MaxConnecting) == 0))
	case !slices.Equal(hp.MaxIdleMS, p.MaxIdleMS):
		return fmt.Errorf("--max-idle was %s", orNotGiven(fmt.Sprint(hp.MaxIdleMS)+" ms", len(hp.MaxIdleMS) == 0))
	case !slices.Equal(hp.TimeoutMS, p.TimeoutMS):
		return fmt.Errorf("--timeout was %s", orNotGiven(fmt.Sprint(hp.TimeoutMS)+" ms", len(hp.TimeoutMS) == 0))
	case !slices.Equal(hp.Retry, p.Retry):
		return fmt.Errorf("--retry was %s", orNotGiven(strings.Join(hp.Retry, ","), len(hp.Retry) == 0))
	case !slices.Equal(hp.ServerSelectionTimeoutMS, p.ServerSelectionTimeoutMS):
		return fmt.Errorf("--server-selection-timeout was %s", orNotGiven(fmt.Sprint(hp.ServerSelectionTimeoutMS)+" ms", len(hp.ServerSelectionTimeoutMS) == 0))
	case !slices.Equal(hp.HeartbeatMS, p.HeartbeatMS):
		return fmt.Errorf("--heartbeat was %s", orNotGiven(fmt.Sprint(hp.HeartbeatMS)+" ms", len(hp.HeartbeatMS) == 0))
	case !slices.EqualFunc(hp.Events, p.Events, sameEvent):
		return fmt.Errorf("--event was %s", describeEvents(hp.Events))
	}
	wi := NewWorkloadInfo(workloads)
	if h.Workload.Name != wi.Name || fmt.Sprint(h.Workload.Mix) != fmt.Sprint(wi.Mix) || !slices.Equal(h.Workload.Mixes, wi.Mixes) ||
		!slices.Equal(h.Workload.ReadPreferences, wi.ReadPreferences) || !slices.Equal(h.Workload.WriteConcerns, wi.WriteConcerns) ||
		h.Workload.Records != wi.Records || h.Workload.Distribution != wi.Distribution {
		return fmt.Errorf("the workload was %s (%d records, %s)", h.Workload.Name, h.Workload.Records, h.Workload.Distribution)
	}
	if !sameReplay(h.Workload.Replay, wi.Replay) {
		return fmt.Errorf("the workload file's shapes or shares were others (%s)", replayFile(h.Workload.Replay))
	}
	var names []string
	for _, t := range h.Targets {
		names = append(names, t.Name)
	}
	if !slices.Equal(names, targets) {
		return fmt.Errorf("the targets were %v", names)
	}
	return nil
}

// pendingSteps is what is left of steps after the measured ones of prev.
// A step cut short by an interruption, or during which the target failed,
// is measured again. When nothing is left and prev ended complete, it
// returns ErrAlreadyComplete.
func pendingSteps(prev *results.Results, steps []plan.StepSpec) ([]plan.StepSpec, error) {
	done := map[string]bool{}
	for _, st := range prev.Steps {
		if st.Measured() {
			done[st.Key()] = true
		}
	}
	var left []plan.StepSpec
	for _, sp := range steps {
		if !done[sp.Key()] {
			left = append(left, sp)
		}
	}
	if len(left) == 0 && prev.End != nil && prev.End.Status == results.StatusComplete {
		return nil, ErrAlreadyComplete
	}
	return left, nil
}

// describeAuto says a header's auto settings in the flags' words.
func describeAuto(a *results.AutoPlan) string {
	if a == nil {
		return "off (a fixed --warmup and --duration)"
	}
	var parts []string
	if a.Warmup {
		parts = append(parts, fmt.Sprintf("--warmup auto --min-warmup %gs --max-warmup %gs", a.MinWarmupS, a.MaxWarmupS))
	}
	if a.Window {
		parts = append(parts, fmt.Sprintf("--duration auto --min-duration %gs --max-duration %gs --precision %g%% --min-calls %d", a.MinDurationS, a.MaxDurationS, a.PrecisionPct, a.MinCalls))
	}
	return strings.Join(parts, " ")
}

// sameReplay says two replays ran the same shapes in the same shares
// against the same namespaces (or neither is a replay).
func sameReplay(a, b *results.ReplayInfo) bool {
	if a == nil || b == nil {
		return a == b
	}
	return slices.Equal(a.Shapes, b.Shapes)
}

// replayFile names a replay's file, or says there was none.
func replayFile(r *results.ReplayInfo) string {
	if r == nil {
		return "none was replayed"
	}
	return "replayed from " + textfmt.Escape(r.File)
}

func sameTargetLevels(a, b results.TargetLevels) bool {
	return a.Target == b.Target && slices.Equal(a.Concurrency, b.Concurrency)
}

// describeLevels writes a header's levels as --concurrency would take
// them: the list, or each target's own ("a=1,2 b=4").
func describeLevels(p results.PlanInfo) string {
	if len(p.TargetConcurrency) == 0 {
		return fmt.Sprint(p.Concurrency)
	}
	var parts []string
	for _, tl := range p.TargetConcurrency {
		parts = append(parts, textfmt.Escape(tl.Target)+"="+strings.Join(strings.Fields(strings.Trim(fmt.Sprint(tl.Concurrency), "[]")), ","))
	}
	return strings.Join(parts, " ")
}

// orNotGiven is s, or "not given" when the header's value was empty.
func orNotGiven(s string, empty bool) string {
	if empty {
		return "not given"
	}
	return s
}

// describeEvents names a header's events as they were given.
func describeEvents(evs []results.EventSpec) string {
	if len(evs) == 0 {
		return "not given"
	}
	var specs []string
	for _, ev := range evs {
		specs = append(specs, ev.Spec)
	}
	return textfmt.Token(strings.Join(specs, " "))
}

// sameEvent: the same action at the same time, however it was written
// (20s and 20000ms are one time).
func sameEvent(a, b results.EventSpec) bool {
	a.Spec, b.Spec = "", ""
	return a == b
}
