package progress

import (
	"encoding/json"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/threshold"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// sweep --progress json: one JSON object per line on stderr, so that a
// wrapper or a CI log can follow a run without reading text. Every line
// of stderr is such an object: the events below, and every other line
// poolsweep would have printed there (a target detected, a note, the last
// "poolsweep: …" line) as a "message" event. docs/progress.md is the
// schema; TestProgressJSON parses every line of a sweep.

// The events, by the name each line gives in its "event" field.
const (
	EventPlan       = "plan"
	EventStepStart  = "step_start"
	EventProgress   = "progress"
	EventStepEnd    = "step_end"
	EventStepFailed = "step_failed"
	EventThresholds = "thresholds"
	EventEnd        = "end"
	EventMessage    = "message"
)

// progressEvery is the least time between two progress events of one
// phase of a step: the engine reports twice a second.
const progressEvery = time.Second

// JSON writes the events. Its methods may be called from the
// session's and the runner's goroutines; one lock orders the lines.
type JSON struct {
	mu       sync.Mutex
	w        io.Writer
	lines    *LineWriter // other lines, as message events
	n, of    int         // the running step's position
	phase    string      // the phase of the last progress event
	lastSent time.Time
}

// NewJSON writes the events on w, one JSON object a line.
func NewJSON(w io.Writer) *JSON {
	p := &JSON{w: w}
	p.lines = NewLineWriter(func(b []byte) {
		if line := strings.TrimRight(string(b), "\r"); strings.TrimSpace(line) != "" {
			p.emit(EventMessage, struct {
				Text string `json:"text"`
			}{topology.Redact(line)})
		}
	})
	return p
}

// emit writes one event: its name and time first, then fields.
func (p *JSON) emit(event string, fields any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.emitLocked(event, fields)
}

func (p *JSON) emitLocked(event string, fields any) {
	head, _ := json.Marshal(struct {
		Event string    `json:"event"`
		Time  time.Time `json:"time"`
	}{event, time.Now().UTC()})
	line := head
	if fields != nil {
		body, err := json.Marshal(fields)
		if err != nil {
			body, _ = json.Marshal(map[string]string{"error": err.Error()})
		}
		if len(body) > 2 { // not {}
			line = append(append(head[:len(head)-1:len(head)-1], ','), body[1:]...)
		}
	}
	_, _ = p.w.Write(append(line, '\n'))
}

// Write makes every other line of the run (and of the CLI, whose
// stderr this is) a message event.
func (p *JSON) Write(b []byte) (int, error) { return p.lines.Write(b) }

// Flush writes a last line that did not end in a newline.
func (p *JSON) Flush() { p.lines.Flush() }

// stepFields identify a step in every step event.
type stepFields struct {
	N           int    `json:"n"`
	Of          int    `json:"of"`
	Target      string `json:"target"`
	Workload    string `json:"workload"`
	Concurrency int    `json:"concurrency"`
	Pool        string `json:"pool"`
	MaxPoolSize int    `json:"max_pool_size"`
	Clients     int    `json:"clients"`
	Trial       int    `json:"trial"`
	Rate        int    `json:"rate,omitempty"`
}

func specFields(n, of int, s plan.StepSpec) stepFields {
	return stepFields{N: n, Of: of, Target: s.Target, Workload: s.Workload, Concurrency: s.Concurrency, Pool: s.PoolSetting,
		MaxPoolSize: s.MaxPoolSize, Clients: s.Clients, Trial: s.Trial, Rate: s.Rate}
}

// planEvent is the plan as the run starts.
type planEvent struct {
	RunID     string   `json:"run_id"`
	Results   string   `json:"results"`
	Steps     int      `json:"steps"` // to measure in this run (a search: its estimate)
	Planned   int      `json:"planned"`
	EstimateS float64  `json:"estimate_s"`
	WarmupS   float64  `json:"warmup_s"`
	WindowS   float64  `json:"window_s"`
	Targets   []string `json:"targets"`
	Workloads []string `json:"workloads"`
	Search    string   `json:"search,omitempty"`
	Resumed   int      `json:"resumed,omitempty"` // steps already measured by the run resumed
	// Mode is grid or search, and Why why; StepsMax is the
	// most steps the run may take; EstimateMaxS, with auto lengths, the
	// wall time of the steps at their longest (EstimateS: at their
	// shortest).
	Mode         string   `json:"mode"`
	Why          string   `json:"why"`
	StepsMax     int      `json:"steps_max"`
	EstimateMaxS *float64 `json:"estimate_max_s,omitempty"`
}

// Hooks are the session's reports as events.
func (p *JSON) Hooks() sweep.SessionHooks {
	return sweep.SessionHooks{
		Loaded: func(target string, lr workload.LoadResult) {
			p.Write([]byte("target " + target + ": " + lr.Note + "\n"))
		},
		Waiting: func(target, msg string) { p.Write([]byte("target " + target + ": " + msg + "\n")) },
		Server:  func(target, msg string) { p.Write([]byte("target " + target + ": " + msg + "\n")) },
		Begin: func(n, of int, spec plan.StepSpec) {
			p.mu.Lock()
			p.n, p.of, p.phase = n, of, ""
			p.emitLocked(EventStepStart, specFields(n, of, spec))
			p.mu.Unlock()
		},
		Progress: p.progress,
		Step:     func(n, of int, st results.StepResult) { p.emit(EventStepEnd, stepEnd(n, of, &st)) },
		Failed: func(n, of int, spec plan.StepSpec, err error) {
			p.emit(EventStepFailed, struct {
				stepFields
				Error string `json:"error"`
			}{specFields(n, of, spec), topology.Redact(err.Error())})
		},
		Stopping: func(reason string) { p.Write([]byte("stopping: " + reason + "\n")) },
	}
}

// progress is the live view of a step, at most one event a second per
// phase: the first half a second into it, then a second apart.
func (p *JSON) progress(pr sweep.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if pr.Phase == p.phase && now.Sub(p.lastSent) < progressEvery {
		return
	}
	p.phase, p.lastSent = pr.Phase, now
	s := pr.Step
	ev := struct {
		stepFields
		Phase       string   `json:"phase"`
		ElapsedS    float64  `json:"elapsed_s"`
		PhaseS      *float64 `json:"phase_s"`
		CallsPerS   *float64 `json:"calls_per_s"`
		Connections int      `json:"connections"`
	}{stepFields: specFields(p.n, p.of, s), Phase: pr.Phase, ElapsedS: round3(pr.Elapsed.Seconds()), Connections: pr.Open}
	if pr.Total > 0 {
		v := round3(pr.Total.Seconds())
		ev.PhaseS = &v
	}
	if pr.Phase != sweep.PhasePrewarm {
		v := round3(pr.CallsPerS)
		ev.CallsPerS = &v
	}
	p.emitLocked(EventProgress, ev)
}

// stepEndEvent is a step's record, its key figures.
type stepEndEvent struct {
	stepFields
	OpsPerS       float64 `json:"ops_per_s"`
	CallsPerS     float64 `json:"calls_per_s"`
	P50Ms         float64 `json:"p50_ms"`
	P99Ms         float64 `json:"p99_ms"`
	Errors        int64   `json:"errors"`
	Connections   int     `json:"connections"`
	PoolWaitP99Ms float64 `json:"pool_wait_p99_ms"`
	Bound         string  `json:"bound,omitempty"`
	TargetFailed  bool    `json:"target_failed,omitempty"`
	Interrupted   bool    `json:"interrupted,omitempty"`
}

func stepEnd(n, of int, st *results.StepResult) stepEndEvent {
	return stepEndEvent{
		stepFields: stepFields{N: n, Of: of, Target: st.Target, Workload: st.Workload, Concurrency: st.Concurrency, Pool: st.PoolSetting,
			MaxPoolSize: st.MaxPoolSize, Clients: st.Clients, Trial: st.Trial, Rate: st.Rate},
		OpsPerS: st.OpsPerS, CallsPerS: st.CallsPerS, P50Ms: st.Latency.P50, P99Ms: st.Latency.P99, Errors: st.Errors.Total(),
		Connections: st.Connections, PoolWaitP99Ms: st.Pool.CheckoutWait.P99, Bound: st.Bound,
		TargetFailed: st.TargetFailed != nil, Interrupted: st.Interrupted,
	}
}

// endEvent is how the run ended, as its end record says.
type endEvent struct {
	Status     string  `json:"status"`
	Reason     string  `json:"reason,omitempty"`
	Measured   int     `json:"measured"`
	Failed     int     `json:"failed"`
	Planned    int     `json:"planned"`
	Results    string  `json:"results"`
	WallS      float64 `json:"wall_s"`
	Thresholds *bool   `json:"thresholds_passed,omitempty"`
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// planOf is the plan event of a session about to measure what summary
// says.
func planOf(s *sweep.Session, summary Summary) planEvent {
	ev := planEvent{RunID: s.RunID, Results: s.ResultsPath, Steps: summary.steps, Planned: len(s.Steps()),
		EstimateS: round3(summary.lo.Seconds()), WarmupS: s.Plan.Warmup.Seconds(), WindowS: s.Plan.Duration.Seconds(),
		Targets: s.TargetNames(), Workloads: s.WorkloadLabels(), Mode: summary.mode, Why: summary.why, StepsMax: summary.stepsMax}
	if summary.auto {
		v := round3(summary.hi.Seconds())
		ev.EstimateMaxS = &v
	}
	if s.Planner != nil {
		ev.Planned = summary.steps
		if s.Previous != nil {
			ev.Planned += len(s.Previous.Steps)
		}
	}
	if s.Plan.Search != nil {
		ev.Search = s.Plan.Search.Mode
	}
	if s.Previous != nil {
		ev.Resumed = len(s.Previous.Steps)
	}
	return ev
}

// Finish writes the threshold outcomes (when there are any) and the end.
func (p *JSON) Finish(out sweep.Outcome, ts []results.ThresholdOutcome, path string) {
	end := endEvent{Status: out.Status, Reason: out.Reason, Measured: out.Measured, Failed: len(out.Failed), Planned: out.Planned,
		Results: path, WallS: round3(out.Time.Total.Seconds())}
	if len(ts) > 0 {
		p.emit(EventThresholds, struct {
			Thresholds []results.ThresholdOutcome `json:"thresholds"`
		}{ts})
		passed := threshold.Gate(ts) == nil
		end.Thresholds = &passed
	}
	p.emit(EventEnd, end)
}
