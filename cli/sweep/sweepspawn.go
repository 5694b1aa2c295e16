package sweep

import (
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/cli/shared"
	"github.com/poolsweep/poolsweep/internal/errext"
	runlib "github.com/poolsweep/poolsweep/runner"
	"github.com/poolsweep/poolsweep/topology"
)

// The agents' side of --spawn (the launcher's is runlib.Run): the
// flags every agent gets, and the targets it reads from the pipe the
// launcher hands it.

// handedTargets are the targets --spawn hands its agents.
type handedTargets = runlib.HandedTargets

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
func (o *Options) readHandedTargets() error {
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
		if err := shared.CheckTarget(v); err != nil {
			return errext.Usagef("--targets-fd: %w", err)
		}
	}
	o.uri, o.targets = h.URI, h.Targets
	return nil
}

// spawnArgs are the sweep flags every agent of --spawn gets, derived from
// the flags' own travel decisions (sweepflagtravel.go): those that travel
// as given, when given, and those the plan resolved, as resolved, since
// an agent sees only URIs and would otherwise pick other defaults. The
// targets go through a pipe (runlib.HandedTargets).
func (o *Options) spawnArgs(cfg *sweepConfig) []string {
	args := []string{"sweep"}
	o.flagSet.Visit(func(f *pflag.Flag) {
		if flagTravel(f) == travelAsGiven {
			args = append(args, givenArgs(f)...)
		}
	})
	return append(args, resolvedArgs(cfg)...)
}

// givenArgs are a given flag's arguments: one per value of a list.
func givenArgs(f *pflag.Flag) []string {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		var args []string
		for _, v := range sv.GetSlice() {
			args = append(args, "--"+f.Name+"="+v)
		}
		return args
	}
	return []string{"--" + f.Name + "=" + f.Value.String()}
}

// resolvedArgs are the flags that travel resolved (travelResolved): the
// plan's levels, trials and lengths, the records loaded, and no figures
// (the leader draws the merged run's).
func resolvedArgs(cfg *sweepConfig) []string {
	var args []string
	if cfg.plan.IsProfile() {
		// A profile step has no levels or lengths of its own (its calls
		// in flight are --max-in-flight's, which travels as given, and it
		// lasts its profile): an agent refuses them with --profile.
		return append(args, "--trials", strconv.Itoa(cfg.plan.Trials), "--records", strconv.Itoa(cfg.workloads[0].Records), "--no-plot")
	}
	if own := cfg.plan.TargetConcurrency; len(own) > 0 {
		// Every target has its own list then; the agents get the same
		// targets, by the same names, through the pipe.
		for _, t := range slices.Sorted(maps.Keys(own)) {
			args = append(args, "--concurrency", t+"="+intList(own[t]))
		}
	} else {
		args = append(args, "--concurrency", intList(cfg.plan.Concurrency))
	}
	args = append(args, "--trials", strconv.Itoa(cfg.plan.Trials))
	args = append(args, lengthArgs(cfg.plan)...)
	return append(args, "--records", strconv.Itoa(cfg.workloads[0].Records), "--no-plot")
}
