package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/analysis/timeline"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/infile"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/procgroup"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/runner/progress"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// logTailBytes is how much of the end of an agent's log is read to say
// why it ended.
const logTailBytes = 4 << 10

// spawnedAgent is one agent process of --spawn.
type spawnedAgent struct {
	index int
	cmd   *exec.Cmd
	log   string
	done  chan struct{}
	code  int
}

// runSpawn is --spawn N: it starts the servers this sweep owns (the
// embedded server, sim: targets) once, runs N agent processes of this
// program against them in lock step (OUT/agent-I, logs in
// OUT/agent-I.log, agent 0's progress on Messages), and merges their
// results into OUT/results.jsonl. Ctrl-C goes to the leader alone, which
// stops the others at their next barrier, as it would across hosts.
func (o *Options) runSpawn(ctx context.Context) Result {
	s := o.Spawn
	runID := NewRunID(o.RunID)
	dir := o.Out
	if dir == "" {
		dir = DefaultOutDir(runID, nil)
	}
	if err := o.checkOutDir(dir); err != nil {
		return Result{Err: errext.Usagef("--out: %w", err)}
	}
	for _, p := range append([]string{"results.jsonl"}, agentFiles(s.Count)...) {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			return Result{Err: errext.Usagef("--out: %s already holds %s; choose another directory", dir, p)}
		}
	}
	if err := checkArtifacts(o.NoPlot, "--out", dir); err != nil {
		return Result{Err: err}
	}
	// Once the paths are checked, as a run of one process; agent 0
	// serves it.
	metricsFile, err := metricsSocket(o.Metrics, o.Messages)
	if err != nil {
		return Result{Err: err}
	}
	if metricsFile != nil {
		defer metricsFile.Close()
	}
	exe, err := os.Executable()
	if err != nil {
		return Result{Err: fmt.Errorf("--spawn: find this program: %w", err)}
	}

	targets, stopTargets, err := StartTargets(ctx, o.Messages, o.Targets)
	defer stopTargets()
	if err != nil {
		return Result{Err: err}
	}
	if err := checkTargetFiles(o.Plan, targets, s.Count); err != nil {
		return Result{Err: err}
	}
	if err := checkSpawnData(ctx, targets, o.Workloads[0], o.DropForeign); err != nil {
		return Result{Err: err}
	}
	if err := o.makeOutDir(dir); err != nil {
		return Result{Err: fmt.Errorf("create the output directory: %w", err)}
	}
	handed, err := json.Marshal(s.handedTargets(targets))
	if err != nil {
		return Result{Err: err}
	}
	agents := make([]*spawnedAgent, 0, s.Count)
	defer func() {
		// Whatever happened, no agent outlives the launcher.
		for _, a := range agents {
			select {
			case <-a.done:
			default:
				_ = procgroup.Kill(a.cmd)
				<-a.done
			}
		}
	}()
	for i := range s.Count {
		var serve *os.File
		if i == 0 {
			serve = metricsFile
		}
		a, err := startAgent(exe, s.Args, handed, serve, dir, runID, i, s.Count, o.Messages)
		if err != nil {
			return Result{Err: err}
		}
		agents = append(agents, a)
	}
	fmt.Fprintf(o.Messages, "spawned %d agents of run %s; their results and logs go to %s/agent-*\n", s.Count, runID, dir)
	waitAgents(ctx, o.Messages, agents, s.AgentTimeout+o.Plan.LongestStep()+o.PrewarmTimeout+time.Minute)

	var paths []string
	for _, a := range agents {
		p := filepath.Join(dir, fmt.Sprintf("agent-%d", a.index), "results.jsonl")
		if _, err := os.Stat(p); err != nil {
			fmt.Fprintf(o.Messages, "agent %d: exit status %d and no results; its log: %s: %s\n", a.index, a.code, a.log, textfmt.Line(lastLine(a.log)))
			continue
		}
		if a.code != 0 {
			fmt.Fprintf(o.Messages, "agent %d: exit status %d (log: %s)\n", a.index, a.code, a.log)
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		if ctx.Err() != nil {
			return Result{Err: errext.InterruptedBy(ctx)}
		}
		return Result{Err: fmt.Errorf("no agent wrote results; see %s", agents[0].log)}
	}
	// The agents' files are read even after Ctrl-C: what they measured is
	// kept, and the files are the agents' own, bounded by infile.
	res, err := mergeAgents(context.WithoutCancel(ctx), paths)
	if err != nil {
		return Result{Err: fmt.Errorf("merge the agents' results: %w", err)}
	}
	merged := filepath.Join(dir, "results.jsonl")
	if err := outfile.Write(merged, func(w io.Writer) error { return results.WriteResults(w, res) }); err != nil {
		return Result{Err: err}
	}
	r := Result{Results: res, ResultsPath: merged, Merged: true}
	o.end(&r, dir)
	switch {
	case ctx.Err() != nil:
		r.Err = errext.InterruptedBy(ctx)
	case res.End.Status == results.StatusComplete:
	case res.End.Status == results.StatusPartial:
		r.Err = agentsPartial(res.End.Reason)
	case res.End.Status == results.StatusInterrupted:
		r.Err = errext.InterruptedError{Signal: "the leader"}
	default:
		r.Err = errors.New("the run failed: " + res.End.Reason)
	}
	return r
}

// mergeAgents reads the agents' results and merges them, each merged
// step's profile summaries computed again from its merged timeline and
// the step labelled by the sweep's own bound rules (results.MergeAgents).
func mergeAgents(ctx context.Context, paths []string) (*results.Results, error) {
	var files []*results.Results
	for _, p := range paths {
		r, err := results.ReadFileWith(ctx, p, results.ReadOptions{})
		if err != nil {
			return nil, err
		}
		files = append(files, r)
	}
	return results.MergeAgents(files, timeline.LabelMerged(bound.NewJudge(bound.JudgeConfig{}).Judge))
}

// agentFiles are the names --spawn makes in the output directory for n
// agents: a directory and a log each.
func agentFiles(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("agent-%d", i), fmt.Sprintf("agent-%d.log", i))
	}
	return out
}

// checkSpawnData refuses, before any agent starts, a target whose
// collection holds data poolsweep did not create, or documents it did
// not write without --drop-foreign (bad input: another --database is the
// fix), so that nothing is started, created or left behind for a run
// that could not load.
func checkSpawnData(ctx context.Context, targets []*Target, w workload.Workload, dropForeign bool) error {
	for _, t := range targets {
		uri := t.URI
		err := workload.CheckData(ctx, func() *options.ClientOptions { return topology.ClientOptions(uri) }, w, dropForeign)
		switch {
		case errors.Is(err, workload.ErrNotOurs):
			return errext.Usagef("--database: target %s: %w", t.Name, err)
		case err != nil && ctx.Err() != nil:
			return errext.InterruptedBy(ctx)
		case err != nil:
			return fmt.Errorf("target %s: %w", t.Name, err)
		}
	}
	return nil
}

// HandedTargets is how --spawn gives its agents the targets: through a
// pipe each agent inherits (--targets-fd), never on their command lines,
// where any user of the machine could read a URI's password (ps,
// /proc/PID/cmdline). They are the targets as this process resolved them:
// the servers it started, by their URIs.
type HandedTargets struct {
	URI     string   `json:"uri,omitempty"`
	Targets []string `json:"targets,omitempty"`
}

// handedTargets are the targets --spawn hands its agents.
func (s *SpawnOptions) handedTargets(targets []*Target) HandedTargets {
	if s.URI != "" {
		return HandedTargets{URI: s.URI}
	}
	var h HandedTargets
	for _, t := range targets {
		h.Targets = append(h.Targets, t.Name+"="+t.URI)
	}
	return h
}

// startAgent starts agent i in its own process group (so that Ctrl-C on
// the terminal reaches the launcher alone) and bound to the launcher's
// life, and hands it the targets through a pipe it inherits as fd 3.
func startAgent(exe string, args []string, targets []byte, metrics *os.File, dir, runID string, i, count int, stderr io.Writer) (*spawnedAgent, error) {
	a := &spawnedAgent{index: i, log: filepath.Join(dir, fmt.Sprintf("agent-%d.log", i)), done: make(chan struct{})}
	logf, err := outfile.CreateExclusive(a.log)
	if err != nil {
		return nil, fmt.Errorf("--spawn: agent %d log: %w", i, err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		logf.Close()
		return nil, fmt.Errorf("--spawn: agent %d: %w", i, err)
	}
	all := append(append([]string(nil), args...), "--targets-fd", "3", "--agents", strconv.Itoa(count), "--agent-index", strconv.Itoa(i),
		"--run-id", runID, "--out", filepath.Join(dir, fmt.Sprintf("agent-%d", i)))
	if metrics != nil {
		all = append(all, "--metrics-fd", "4")
	}
	a.cmd = exec.Command(exe, all...)
	a.cmd.Stdout = logf
	a.cmd.Stderr = logf
	a.cmd.ExtraFiles = []*os.File{pr} // fd 3
	if metrics != nil {
		a.cmd.ExtraFiles = append(a.cmd.ExtraFiles, metrics) // fd 4
	}
	if i == 0 {
		a.cmd.Stderr = io.MultiWriter(logf, progress.PrefixWriter(stderr, "agent 0: "))
	}
	procgroup.Own(a.cmd)
	err = a.cmd.Start()
	pr.Close()
	if err != nil {
		pw.Close()
		logf.Close()
		return nil, fmt.Errorf("--spawn: start agent %d: %w", i, err)
	}
	// An agent that dies before reading makes this write fail; its exit
	// status and log say why.
	go func() {
		_, _ = pw.Write(targets)
		pw.Close()
	}()
	go func() {
		err := a.cmd.Wait()
		logf.Close()
		a.code = 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			a.code = ee.ExitCode()
		} else if err != nil {
			a.code = -1
		}
		close(a.done)
	}()
	return a, nil
}

// waitAgents waits for every agent. Ctrl-C (ctx) is passed to the leader
// alone; once the leader has ended, the others get grace to leave at
// their next barrier, and are then killed.
func waitAgents(ctx context.Context, messages io.Writer, agents []*spawnedAgent, grace time.Duration) {
	all := make(chan struct{})
	go func() {
		for _, a := range agents {
			<-a.done
		}
		close(all)
	}()
	var (
		interrupt = ctx.Done()
		leader    = agents[0].done
		kill      <-chan time.Time
	)
	for {
		select {
		case <-all:
			return
		case <-interrupt:
			interrupt = nil
			fmt.Fprintln(messages, "stopping: the leader (agent 0) ends its step and the others stop at their next barrier")
			_ = agents[0].cmd.Process.Signal(syscall.SIGINT)
		case <-leader:
			leader = nil
			kill = time.After(grace)
		case <-kill:
			for _, a := range agents {
				select {
				case <-a.done:
				default:
					fmt.Fprintf(messages, "agent %d is still running %s after the leader ended; stopping it\n", a.index, grace)
					_ = procgroup.Kill(a.cmd)
				}
			}
			<-all
			return
		}
	}
}

// lastLine is the last non-empty line of a log, for a short report: a
// read of a few KiB, done after Ctrl-C too.
func lastLine(path string) string {
	b, err := infile.Tail(context.Background(), path, logTailBytes)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}
