package bound

import (
	"strconv"

	"github.com/poolsweep/poolsweep/results"
)

// JudgeConfig says how a Judge labels the steps of a sweep.
type JudgeConfig struct {
	// Classifier holds the thresholds; nil means DefaultClassifier. Its
	// ServerCores and LocalServerHost are set from this config.
	Classifier *Classifier
	// ServerCores overrides every host's core count (--server-cores N);
	// 0 means each host's hostInfo answer.
	ServerCores int
	// LocalServerHost is the host:port of the server poolsweep started on
	// this machine (the embedded server, a simulator child), "" if none:
	// its CPU is the system under test, not a neighbour's load.
	LocalServerHost string
	// Sharded says the target is a sharded cluster: when its telemetry
	// says nothing of its shards (the sampler never saw a router answer),
	// a "none" verdict must say that the shards were not looked at.
	Sharded bool
}

// Judge labels each finished step of a sweep: Little's law, its warning,
// and what bound the step (annotate, then annotateOpen for an open-loop
// step), judged against the previous step of the same series for the
// growth rules. It is the engine's StepJudge (sweep.StepJudge), called
// once the step's telemetry is in; it does no I/O. One Judge serves a
// whole sweep, from one goroutine.
type Judge struct {
	classifier Classifier
	sharded    bool
	prev       map[string]*results.StepResult // last step of each series
}

// NewJudge returns a Judge with cfg's thresholds.
func NewJudge(cfg JudgeConfig) *Judge {
	c := DefaultClassifier()
	if cfg.Classifier != nil {
		c = *cfg.Classifier
	}
	if cfg.ServerCores > 0 {
		c.ServerCores = cfg.ServerCores
	}
	if cfg.LocalServerHost != "" {
		c.LocalServerHost = cfg.LocalServerHost
	}
	return &Judge{classifier: c, sharded: cfg.Sharded, prev: map[string]*results.StepResult{}}
}

// Judge fills step's judgement fields (littlesLaw, a warning when the
// check fails, Bound and BoundReason). The series is the step's target,
// workload, pool setting and clients; a step whose concurrency is not
// above the last one's starts it over (a new trial).
func (j *Judge) Judge(step *results.StepResult) {
	if step == nil || step.Mode == results.ModeProfile {
		// A profile step is a timeline of load that changes: no steady
		// window to bound, and no point of a series to judge the next by.
		return
	}
	key := step.Target + "|" + step.Workload + "|" + step.PoolSetting + "|" + strconv.Itoa(step.Clients)
	prev := j.prev[key]
	if prev != nil && prev.Concurrency >= step.Concurrency {
		prev = nil // a new trial starts the series over
	}
	warned := len(step.Warnings)
	annotate(step, prev, j.classifier)
	annotateOpen(step, warned) // open-loop steps: their own Little's law
	if f := step.TargetFailed; f != nil {
		// Its numbers are a deployment that was there for part of the
		// window: no limit of it is read from them, and the next step of
		// the series is not judged against them.
		step.Bound, step.BoundReason = results.BoundFailed, "target failed during the window: "+f.Reason
		return
	}
	if j.sharded && step.Bound == BoundNone && (step.Server == nil || step.Server.ShardsSampled == nil) {
		// Nothing behind the routers was sampled, nor said why (the
		// classifier says it when the telemetry does): a saturated shard
		// shows only as latency growth, so "none" must not read as
		// "nothing saturated".
		step.BoundReason += "; shards are not sampled (only the mongos routers), so a saturated shard may not show here"
	}
	cp := *step
	j.prev[key] = &cp
}
