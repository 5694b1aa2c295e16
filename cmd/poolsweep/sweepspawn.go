package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/infile"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

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
// OUT/agent-I.log, agent 0's progress on stderr), and merges their
// results into OUT/results.jsonl. Ctrl-C goes to the leader alone, which
// stops the others at their next barrier, as it would across hosts.
func (o *sweepOptions) runSpawn(ctx context.Context, e *env, cfg *sweepConfig) error {
	runID := o.newRunID()
	dir := o.out
	if dir == "" {
		dir = filepath.Join("poolsweep-out", runID)
	}
	if err := o.checkOutDir(dir); err != nil {
		return errext.Usagef("--out: %w", err)
	}
	for _, p := range append([]string{"results.jsonl"}, agentFiles(o.spawn)...) {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			return errext.Usagef("--out: %s already holds %s; choose another directory", dir, p)
		}
	}
	if err := o.checkArtifacts("--out", dir); err != nil {
		return err
	}
	metrics, err := o.startMetrics(e.stderr) // once the paths are checked, as a run of one process
	if err != nil {
		return err
	}
	defer metrics.stop()
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("--spawn: find this program: %w", err)
	}

	targets, stopTargets, err := startTargets(ctx, e, cfg.targets)
	defer stopTargets()
	if err != nil {
		return err
	}
	if err := checkTargetFiles(cfg.plan, targets, o.spawn); err != nil {
		return err
	}
	if err := checkSpawnData(ctx, targets, cfg.workloads[0], o.dropForeign); err != nil {
		return err
	}
	if err := o.makeOutDir(dir); err != nil {
		return fmt.Errorf("create the output directory: %w", err)
	}
	args := o.spawnArgs(cfg)
	handed, err := json.Marshal(o.handedTargets(targets))
	if err != nil {
		return err
	}
	agents := make([]*spawnedAgent, 0, o.spawn)
	defer func() {
		// Whatever happened, no agent outlives the launcher.
		for _, a := range agents {
			select {
			case <-a.done:
			default:
				_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
				<-a.done
			}
		}
	}()
	for i := range o.spawn {
		a, err := startAgent(exe, args, handed, dir, runID, i, o, e.stderr)
		if err != nil {
			return err
		}
		agents = append(agents, a)
	}
	fmt.Fprintf(e.stderr, "spawned %d agents of run %s; their results and logs go to %s/agent-*\n", o.spawn, runID, dir)
	waitAgents(ctx, e, agents, o.agentTimeout+cfg.plan.Warmup+cfg.plan.Duration+o.prewarm+time.Minute)

	var paths []string
	for _, a := range agents {
		p := filepath.Join(dir, fmt.Sprintf("agent-%d", a.index), "results.jsonl")
		if _, err := os.Stat(p); err != nil {
			fmt.Fprintf(e.stderr, "agent %d: exit status %d and no results; its log: %s: %s\n", a.index, a.code, a.log, safeLine(lastLine(a.log)))
			continue
		}
		if a.code != 0 {
			fmt.Fprintf(e.stderr, "agent %d: exit status %d (log: %s)\n", a.index, a.code, a.log)
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		if ctx.Err() != nil {
			return errext.InterruptedBy(ctx)
		}
		return fmt.Errorf("no agent wrote results; see %s", agents[0].log)
	}
	// The agents' files are read even after Ctrl-C: what they measured is
	// kept, and the files are the agents' own, bounded by infile.
	res, err := mergeFiles(context.WithoutCancel(ctx), paths, readOptions{}, e.stderr)
	if err != nil {
		return fmt.Errorf("merge the agents' results: %w", err)
	}
	merged := filepath.Join(dir, "results.jsonl")
	if err := writeMerged(merged, res); err != nil {
		return err
	}
	a := analysis.Of([]*results.Results{res}, knee.DefaultOptions())
	printMerged(e.stdout, merged, res, a)
	if !o.noPlot {
		if err := writeArtifacts(dir, res, a, o.fleetPlan(ctx, e, res, a)); err != nil {
			fmt.Fprintf(e.stderr, "poolsweep: figures: %s\n", safeLine(topology.Redact(err.Error())))
		}
	}
	switch {
	case ctx.Err() != nil:
		return errext.InterruptedBy(ctx)
	case res.End.Status == results.StatusComplete:
		return nil
	case res.End.Status == results.StatusPartial:
		return agentsPartial(res.End.Reason)
	case res.End.Status == results.StatusInterrupted:
		return errext.InterruptedError{Signal: "the leader"}
	}
	return errors.New("the run failed: " + res.End.Reason)
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
func checkSpawnData(ctx context.Context, targets []*sweepTarget, w workload.Workload, dropForeign bool) error {
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

// handedTargets is how --spawn gives its agents the targets: through a
// pipe each agent inherits (--targets-fd), never on their command lines,
// where any user of the machine could read a URI's password (ps,
// /proc/PID/cmdline). They are the targets as this process resolved them:
// the servers it started, by their URIs.
type handedTargets struct {
	URI     string   `json:"uri,omitempty"`
	Targets []string `json:"targets,omitempty"`
}

func (o *sweepOptions) handedTargets(targets []*sweepTarget) handedTargets {
	if o.uri != "" {
		return handedTargets{URI: o.uri}
	}
	var h handedTargets
	for _, t := range targets {
		h.Targets = append(h.Targets, t.Name+"="+t.URI)
	}
	return h
}

// maxHandedTargets bounds what an agent reads from --targets-fd, and
// handedTargetsWait how long it waits for them: --spawn writes them and
// closes the pipe before the agent starts, so a writer that holds it open
// is not --spawn, and the agent must not wait for ever.
const (
	maxHandedTargets  = 1 << 20
	handedTargetsWait = 10 * time.Second
)

// errReadTimeout is readWithin's error when the reader did not end in time.
var errReadTimeout = errors.New("read timed out")

// readWithin reads r to its end, at most limit bytes, within wait. An
// inherited descriptor is blocking, so a deadline cannot interrupt its
// read: the read goes on in a goroutine the caller abandons, and the
// agent then exits with status 2.
func readWithin(r io.Reader, limit int64, wait time.Duration) ([]byte, error) {
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, limit))
		done <- read{b, err}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case got := <-done:
		return got.b, got.err
	case <-timer.C:
		return nil, errReadTimeout
	}
}

// readHandedTargets is an agent's side of handedTargets: with --targets-fd
// it reads the targets from that inherited descriptor into --uri or
// --target, as if they had been given.
func (o *sweepOptions) readHandedTargets() error {
	if o.targetsFD == 0 {
		return nil
	}
	switch { // its range (an inherited descriptor, 3 or above) is the flag's
	case !o.changed("agents"):
		return errext.Usagef("--targets-fd: only for the agents --spawn starts (with --agents)")
	case o.uri != "" || len(o.targets) > 0:
		return errext.Usagef("--targets-fd: the targets come from the descriptor; drop --uri and --target")
	}
	f := os.NewFile(uintptr(o.targetsFD), "targets")
	if f == nil {
		return errext.Usagef("--targets-fd: %d is not open", o.targetsFD)
	}
	defer f.Close()
	b, err := readWithin(f, maxHandedTargets+1, handedTargetsWait)
	var h handedTargets
	switch {
	case errors.Is(err, errReadTimeout):
		return errext.Usagef("--targets-fd: nothing arrived within %s (the descriptor's writer never closed it)", handedTargetsWait)
	case err != nil:
		return errext.Usagef("--targets-fd: read: %w", err)
	case len(b) > maxHandedTargets:
		return errext.Usagef("--targets-fd: more than %d bytes", maxHandedTargets)
	case json.Unmarshal(b, &h) != nil || (h.URI == "") == (len(h.Targets) == 0):
		return errext.Usagef("--targets-fd: not the targets --spawn hands its agents")
	}
	// Checked as --uri and --target are: a launcher of another version, or
	// another writer, may hand over what this agent's driver refuses.
	if h.URI != "" {
		if err := topology.ValidateURI(h.URI); err != nil {
			return errext.Usagef("--targets-fd: %w", err)
		}
	}
	for _, v := range h.Targets {
		if err := checkTarget(v); err != nil {
			return errext.Usagef("--targets-fd: %w", err)
		}
	}
	o.uri, o.targets = h.URI, h.Targets
	return nil
}

// spawnArgs are the sweep flags every agent gets: the ones given (but
// those --spawn decides) and the plan as resolved, since an agent sees
// only URIs and would otherwise pick other defaults. The targets go
// through a pipe (handedTargets).
func (o *sweepOptions) spawnArgs(cfg *sweepConfig) []string {
	decided := map[string]bool{"spawn": true, "out": true, "target": true, "uri": true, "run-id": true, "agents": true, "agent-index": true,
		"resume": true, "no-plot": true, "concurrency": true, "trials": true, "warmup": true, "duration": true, "records": true, "targets-fd": true}
	args := []string{"sweep"}
	for _, name := range append(fleetFlagNames, autoFlagNames...) {
		decided[name] = true // the leader writes the report; the lengths are the plan's
	}
	o.flagSet.Visit(func(f *pflag.Flag) {
		if decided[f.Name] {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+f.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+f.Name+"="+f.Value.String())
	})
	levels := make([]string, len(cfg.plan.Concurrency))
	for i, c := range cfg.plan.Concurrency {
		levels[i] = strconv.Itoa(c)
	}
	args = append(args, "--concurrency", strings.Join(levels, ","), "--trials", strconv.Itoa(cfg.plan.Trials))
	args = append(args, lengthArgs(cfg.plan)...)
	return append(args, "--records", strconv.Itoa(cfg.workloads[0].Records), "--no-plot")
}

// startAgent starts agent i in its own process group (so that Ctrl-C on
// the terminal reaches the launcher alone) and bound to the launcher's
// life, and hands it the targets through a pipe it inherits as fd 3.
func startAgent(exe string, args []string, targets []byte, dir, runID string, i int, o *sweepOptions, stderr io.Writer) (*spawnedAgent, error) {
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
	all := append(append([]string(nil), args...), "--targets-fd", "3", "--agents", strconv.Itoa(o.spawn), "--agent-index", strconv.Itoa(i),
		"--run-id", runID, "--out", filepath.Join(dir, fmt.Sprintf("agent-%d", i)))
	a.cmd = exec.Command(exe, all...)
	a.cmd.Stdout = logf
	a.cmd.Stderr = logf
	a.cmd.ExtraFiles = []*os.File{pr} // fd 3
	if i == 0 {
		a.cmd.Stderr = io.MultiWriter(logf, prefixWriter(stderr, "agent 0: "))
	}
	a.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
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
func waitAgents(ctx context.Context, e *env, agents []*spawnedAgent, grace time.Duration) {
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
			fmt.Fprintln(e.stderr, "stopping: the leader (agent 0) ends its step and the others stop at their next barrier")
			_ = agents[0].cmd.Process.Signal(syscall.SIGINT)
		case <-leader:
			leader = nil
			kill = time.After(grace)
		case <-kill:
			for _, a := range agents {
				select {
				case <-a.done:
				default:
					fmt.Fprintf(e.stderr, "agent %d is still running %s after the leader ended; stopping it\n", a.index, grace)
					_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
				}
			}
			<-all
			return
		}
	}
}

// lineWriter hands every whole line written to it, without its newline,
// to line, one at a time.
type lineWriter struct {
	mu   sync.Mutex
	buf  []byte
	line func([]byte)
}

func (l *lineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		l.line(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
}

// prefixWriter writes whole lines to w, each after prefix.
func prefixWriter(w io.Writer, prefix string) *lineWriter {
	return &lineWriter{line: func(b []byte) { fmt.Fprintf(w, "%s%s\n", prefix, b) }}
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
