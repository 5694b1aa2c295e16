package sweep

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	runlib "github.com/poolsweep/poolsweep/runner"
	sweeplib "github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// config is the validated, connection-free part of a sweep.
type sweepConfig struct {
	plan      plan.Plan
	workloads []workload.Workload
	targets   []topology.Target
	defaults  planDefaults
	choice    planChoice // grid or search, and why (sweepmode.go)
	notes     []string
}

// Validate checks the flags as the run does before it starts anything,
// and the inputs they name (a workload file, a resumed run's header):
// the dry runner of the tests that feed every flag hostile values.
func (o *Options) Validate() error {
	_, err := o.validate()
	return err
}

// validate turns flags into a sweepConfig; every problem is a usage error
// naming its flag, found before anything connects.
func (o *Options) validate() (*sweepConfig, error) {
	cfg := &sweepConfig{}
	if o.uri != "" && len(o.targets) > 0 {
		return nil, errext.Usagef("--uri and --target: give one --uri, or several --target name=URI, not both")
	}
	switch {
	case o.uri != "": // checked as it was parsed (topology.ValidateURI)
		name := "target"
		if hosts, err := topology.Hosts(o.uri); err == nil && len(hosts) > 0 {
			name = hostsName(hosts)
		}
		cfg.targets = []topology.Target{{Name: name, URI: o.uri}}
	case len(o.targets) > 0:
		seen := map[string]bool{}
		for _, v := range o.targets {
			t, err := topology.ParseTarget(v) // checked as it was parsed (shared.CheckTarget)
			if err != nil {
				return nil, errext.Usagef("--target: %w", err)
			}
			if seen[t.Name] {
				return nil, errext.Usagef("--target: name %s is used twice", textfmt.Token(t.Name))
			}
			seen[t.Name] = true
			cfg.targets = append(cfg.targets, t)
		}
	default:
		cfg.targets = []topology.Target{{Name: "embedded", Embedded: true}}
	}
	allSim := true
	for _, t := range cfg.targets {
		allSim = allSim && t.SimSpec != ""
	}
	switch {
	case cfg.targets[0].Embedded:
		cfg.defaults = embeddedDefaults
	case allSim:
		cfg.defaults = simDefaults
	default:
		cfg.defaults = uriDefaults
	}

	levels, pool, choice, err := o.choosePlan(cfg.defaults) // sweepmode.go
	if err != nil {
		return nil, err
	}
	cfg.choice = choice
	clients, err := plan.ParseLevels(o.clients, plan.MaxClients)
	if err != nil {
		return nil, errext.Usagef("--clients: %w", err)
	}
	p := plan.Plan{Concurrency: levels, Pool: pool, Trials: o.trials,
		Warmup: o.warmup, Duration: o.duration, OpTimeout: o.opTimeout, Order: o.order}
	p.SetClientLevels(clients)
	if !o.changed("warmup") {
		p.Warmup = cfg.defaults.warmup
	}
	if !o.changed("duration") {
		p.Duration = cfg.defaults.duration
	}
	if !o.changed("trials") {
		p.Trials = cfg.defaults.trials
	}
	if err := o.applyOpen(&p); err != nil {
		return nil, err
	}
	if err := o.applyOwnLevels(&p, cfg.targets, &cfg.choice); err != nil {
		return nil, err
	}
	if err := o.autoOptions.plan(&p, o.changed, cfg.defaults); err != nil {
		return nil, err
	}
	if err := o.searchOptions.plan(&p, choice.search, o.pool, o.changed); err != nil {
		return nil, err
	}
	if err := o.applyProfile(&p); err != nil { // sweepprofile.go
		return nil, err
	}
	if p.PoolAxes, err = o.poolAxes(); err != nil {
		return nil, err
	}
	if err := o.applyEvents(&p); err != nil { // sweepevents.go
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, errext.UsageError{Err: err}
	}
	if err := checkColdURIs(p, cfg.targets); err != nil { // sweepprofile.go
		return nil, err
	}
	if o.read.Lenient && o.resume == "" {
		return nil, errext.Usagef("--lenient: only with --resume (it is how the earlier results are read)")
	}
	cfg.plan = p

	// Workloads.
	given := 0
	for _, flag := range []string{"mixes", "workload-file"} {
		if o.changed(flag) {
			given++
		}
	}
	if given > 1 || (given == 1 && (o.changed("workload") || o.changed("mix"))) {
		return nil, errext.Usagef("--workload, --mixes and --workload-file: choose one way to say the workload")
	}
	base := workload.DefaultWorkload()
	base.Distribution = o.distribution
	base.Database = o.database
	base.Records = cfg.defaults.records
	if o.changed("records") {
		base.Records, base.From.Records = o.records, "--records"
	}
	if o.changed("distribution") {
		base.From.Distribution = "--distribution"
	}
	switch {
	case o.changed("mixes"):
		ws, err := workload.ParseMixes(o.mixes, base)
		if err != nil {
			return nil, errext.Usagef("--mixes: %w", err)
		}
		cfg.workloads = ws
	case o.workloadFile != "":
		// A regular file of at most shapes.MaxFileBytes, whichever kind
		// it is: read once, at once, before any signal could matter.
		data, err := cmdutil.ReadInput(context.Background(), "--workload-file", o.workloadFile, shapes.MaxFileBytes, io.ReadAll)
		if err != nil {
			return nil, err
		}
		// A poolsweep workload file is replayed (replayfile.go).
		if w, ok, err := replayWorkloadFile(o, base, data); err != nil || ok {
			if err != nil {
				return nil, err
			}
			cfg.workloads = []workload.Workload{w}
			break
		}
		pf, err := workload.ParsePropertyFile(bytes.NewReader(data), o.workloadFile, base)
		if err != nil {
			return nil, errext.Usagef("--workload-file: %w", textfmt.EscapeError(err))
		}
		if o.changed("records") {
			pf.Workload.Records, pf.Workload.From.Records = o.records, "--records"
		}
		if o.changed("distribution") {
			pf.Workload.Distribution, pf.Workload.From.Distribution = o.distribution, "--distribution"
		}
		cfg.notes = append(cfg.notes, pf.Notes...)
		for _, w := range pf.Warnings {
			cfg.notes = append(cfg.notes, "warning: "+w)
		}
		cfg.workloads = []workload.Workload{pf.Workload}
	default:
		w, err := workload.BuiltinWorkload(o.workload, o.mix)
		if err != nil {
			return nil, errext.UsageError{Err: err}
		}
		w.Distribution, w.Database, w.Records, w.From = base.Distribution, base.Database, base.Records, base.From
		cfg.workloads = []workload.Workload{w}
	}
	for _, w := range cfg.workloads {
		if err := w.Validate(); err != nil {
			return nil, errext.UsageError{Err: err}
		}
	}
	rps, err := axisValues("--read-preference", o.readPref)
	if err != nil {
		return nil, err
	}
	wcs, err := axisValues("--write-concern", o.writeConcern)
	if err != nil {
		return nil, err
	}
	cfg.workloads = workload.WithAxes(cfg.workloads, rps, wcs)
	if a := cfg.plan.PoolAxes; a != nil {
		cfg.workloads = workload.WithPoolOptions(cfg.workloads, a.Settings(), a.Swept())
	}
	params, err := o.serverParamAxes() // sweepserverparams.go
	if err != nil {
		return nil, err
	}
	cfg.workloads = workload.WithServerParams(cfg.workloads, params)
	// The whole plan, every target and workload, is a header readers can
	// take (results.ValidateHeader).
	names := make([]string, len(cfg.targets))
	for i, t := range cfg.targets {
		names[i] = t.Name
	}
	if n := len(cfg.workloads) * cfg.plan.SeriesSteps(names); n > results.MaxPlanned || len(cfg.targets) > results.MaxTargets || len(cfg.workloads) > results.MaxWorkloads {
		return nil, errext.Usagef("--target, --mixes, --read-preference, --write-concern, the pool options and the plan: %d target(s) × %d series make %d steps; the most one run takes is %d steps, %d targets and %d workloads",
			len(cfg.targets), len(cfg.workloads), n, results.MaxPlanned, results.MaxTargets, results.MaxWorkloads)
	}
	if err := runlib.CheckRunTime(cfg.plan, names, len(cfg.workloads)); err != nil {
		return nil, err
	}
	// Hosts per target are known only after connecting; a sharded
	// target's pools are counted once here and checked again per step by
	// the driver's own limits.
	if err := sweeplib.CheckMemory(cfg.plan, cfg.workloads, 1, sweeplib.MachineMemory()); err != nil {
		return nil, errext.UsageError{Err: err}
	}
	if o.spawn > 1 {
		// The agents of --spawn share this machine: each holds the largest
		// step's clients, so together they hold spawn times as many.
		all := cfg.plan
		all.Clients *= o.spawn
		if err := sweeplib.CheckMemory(all, cfg.workloads, 1, sweeplib.MachineMemory()); err != nil {
			return nil, errext.Usagef("--spawn: %d agents on this machine, each with the plan's clients: %w", o.spawn, err)
		}
	}
	if err := runlib.CheckPlannedFiles(cfg.plan, cfg.targets, o.spawn); err != nil {
		return nil, err
	}
	if err := o.validateAgents(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// axisValues splits a series axis's list (its words were checked as the
// flag was parsed); a value given twice would be two series of one name.
func axisValues(flag, list string) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	var out []string
	for _, v := range strings.Split(list, ",") {
		v = strings.TrimSpace(v)
		if slices.Contains(out, v) {
			return nil, errext.Usagef("%s: %s is given twice", flag, v)
		}
		out = append(out, v)
	}
	return out, nil
}

// hostsName names a --uri's target by its hosts, as many as fit in
// results.MaxTargetName bytes with the count of the rest ("a:27017,b:27017
// +48"), a host too long alone cut with "…": the name heads tables and
// progress lines, which a URI of fifty hosts would stretch past a line.
func hostsName(hosts []string) string {
	name := ""
	for i, h := range hosts {
		next := h
		if i > 0 {
			next = name + "," + h
		}
		rest := ""
		if i+1 < len(hosts) {
			rest = " +" + strconv.Itoa(len(hosts)-i-1)
		}
		if len(next+rest) > results.MaxTargetName {
			if i == 0 {
				cut := results.MaxTargetName - len("…") - len(rest)
				for cut > 0 && !utf8.RuneStart(h[cut]) {
					cut--
				}
				return h[:cut] + "…" + rest
			}
			return name + " +" + strconv.Itoa(len(hosts)-i)
		}
		name = next
	}
	return name
}
