package sweep

import (
	"fmt"
	"regexp"
	"time"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
	runlib "github.com/poolsweep/poolsweep/runner"
	"github.com/poolsweep/poolsweep/sweep/agents"
)

// agentOptions are the flags of agent mode: several processes, on one
// host or many, measuring one plan in lock step.
type agentOptions struct {
	agents       int
	agentIndex   int
	runID        string
	agentTimeout time.Duration
	agentSilence time.Duration
	spawn        int
	targetsFD    int // an agent of --spawn reads its targets from this inherited descriptor
	metricsFD    int // agent 0 of --spawn serves --metrics-listen on this inherited listening socket

	flagSet *pflag.FlagSet // the parsed flags, for --spawn to pass on
}

// DefaultAgentTimeout bounds waiting for another agent at each barrier.
const defaultAgentTimeout = time.Minute

// maxAgents bounds --agents and --spawn: far more load than any
// deployment needs, and a typo (--agents 30000) is refused.
const (
	maxAgents = results.MaxAgents
	maxSpawn  = 64
)

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$`)

func addAgentFlags(f *pflag.FlagSet, o *agentOptions) {
	cmdutil.IntVar(f, &o.agents, "agents", 0, 1, maxAgents, "agent mode: this many processes (on any hosts) measure the plan in lock step; give every agent the same flags and its own --agent-index")
	cmdutil.IntVar(f, &o.agentIndex, "agent-index", 0, 0, maxAgents-1, "agent mode: this agent's index, 0 to --agents-1; index 0 leads")
	cmdutil.TextVar(f, &o.runID, "run-id", "", "a name of letters, digits, . _ -", checkRunID, "the run's name (letters, digits, . _ -); agent mode: the same on every agent (default: the start time and a random suffix)")
	cmdutil.DurationVar(f, &o.agentTimeout, "agent-timeout", defaultAgentTimeout, time.Second, 24*time.Hour, "agent mode: how long to wait for an agent to join or be ready for a step, 1s to 24h; a step then runs without it and is marked partial")
	cmdutil.DurationVar(f, &o.agentSilence, "agent-silence", agents.DefaultSilence, agents.MinSilence, time.Hour, "agent mode: how long an agent's heartbeat (once a second) may stand still, outside the measured windows, before the others take it for stopped and go on without it, 3s to 1h")
	cmdutil.IntVar(f, &o.spawn, "spawn", 0, 1, maxSpawn, "start this many agent processes on this machine, run the plan in lock step and merge their results (for large hosts and tests)")
	// An inherited descriptor: 0 to 2 are the standard streams.
	cmdutil.IntVar(f, &o.targetsFD, "targets-fd", 0, 3, maxTargetsFD, "internal: the agents --spawn starts read their targets from this inherited descriptor, so that no password is on a command line")
	_ = f.MarkHidden("targets-fd")
	cmdutil.IntVar(f, &o.metricsFD, "metrics-fd", 0, 3, maxTargetsFD, "internal: agent 0 of --spawn serves the launcher's --metrics-listen on this inherited listening socket")
	_ = f.MarkHidden("metrics-fd")
	travel(f, travelAsGiven, "agent-timeout", "agent-silence")
	travel(f, travelNever, "agents", "agent-index", "run-id", "spawn", "targets-fd", "metrics-fd") // --spawn sets them for each agent
}

// maxTargetsFD bounds --targets-fd: --spawn hands its agents descriptor 3.
const maxTargetsFD = 1024

// checkRunID refuses a run id that is not a plain name (it names a
// directory and the agents' documents).
func checkRunID(id string) error {
	if !runIDPattern.MatchString(id) {
		return fmt.Errorf("%s is not a name of up to 64 letters, digits, '.', '_' or '-'", textfmt.Token(id))
	}
	return nil
}

// validateAgents checks the agent-mode flags against each other and the
// targets, before anything connects.
func (o *Options) validateAgents(cfg *sweepConfig) error {
	a := &o.agentOptions
	if (o.changed("spawn") || o.changed("agents")) && o.changed("search") {
		// Each agent would search on its own numbers and the agents would
		// soon disagree on the next step.
		return errext.Usagef("--search: an adaptive search runs in one process (use --clients); several agents take a grid")
	}
	if (o.changed("spawn") || o.changed("agents")) && o.changed("rate") {
		// Each agent would offer the whole rate, and merge does not yet
		// add up open-loop arrivals: refuse rather than report N × rate.
		return errext.Usagef("--rate: open-loop arrivals are measured by one process (use --clients); several agents are not supported yet")
	}
	if (o.changed("spawn") || o.changed("agents")) && len(cfg.plan.ClientLevels) > 0 {
		// Merging adds the agents' clients step by step; a step's client
		// count would then be an agent's level times the agents, and a
		// connection sweep's levels would not be what was asked.
		return errext.Usagef("--clients: a list of client counts runs in one process; several agents take one count each")
	}
	if n := max(a.agents, a.spawn); n > 1 && cfg.plan.Profile != nil {
		// The agents' clients share the profile's arrivals: each needs a
		// call a second of it, as one process's clients do.
		if peak, clients := cfg.plan.ProfileRate(), n*max(cfg.plan.Clients, 1); peak < clients {
			return errext.Usagef("--profile: its peak: %d calls/s over %d clients of %d agents is less than one call a second each", peak, clients, n)
		}
	}
	if o.changed("spawn") {
		switch {
		case o.changed("agents") || o.changed("agent-index"):
			return errext.Usagef("--spawn: it starts its own agents; drop --agents and --agent-index")
		case o.resume != "":
			return errext.Usagef("--spawn: a run of several agents cannot be resumed; drop --resume")
		}
		return nil
	}
	if o.changed("metrics-fd") && (!o.changed("agents") || o.targetsFD == 0 || o.metricsListen != "") {
		return errext.Usagef("--metrics-fd: only for agent 0 of those --spawn starts")
	}
	if !o.changed("agents") {
		for _, f := range []string{"agent-index", "agent-timeout", "agent-silence"} {
			if o.changed(f) {
				return errext.Usagef("--%s: only with --agents (or --spawn)", f)
			}
		}
		return nil
	}
	switch {
	case !o.changed("agent-index"):
		return errext.Usagef("--agent-index: required with --agents (0 to %d; 0 leads)", a.agents-1)
	case a.agentIndex < 0 || a.agentIndex >= a.agents:
		return errext.Usagef("--agent-index: %d is not between 0 and %d", a.agentIndex, a.agents-1)
	case !o.changed("run-id"):
		return errext.Usagef("--run-id: required with --agents: the same name on every agent")
	case o.resume != "":
		return errext.Usagef("--resume: a run of several agents cannot be resumed; start a new --run-id")
	}
	for _, t := range cfg.targets {
		if t.Embedded || t.SimSpec != "" {
			return errext.Usagef("--agents: every agent must measure the same deployment: give --uri, or --target name=mongodb://…; the embedded server and sim: targets start a server per process (--spawn starts one for all its agents)")
		}
	}
	return nil
}

// agentMode says whether this process is one agent of several.
func (o *Options) agentMode() bool { return o.agents > 0 }

// agentsOption is agent mode for the run, nil when this process is alone.
func (o *Options) agentsOption() *runlib.AgentOptions {
	if !o.agentMode() {
		return nil
	}
	return &runlib.AgentOptions{Count: o.agents, Index: o.agentIndex, Timeout: o.agentTimeout, Silence: o.agentSilence}
}
