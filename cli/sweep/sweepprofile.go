package sweep

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/loadprofile"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	sweeplib "github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/topology"
)

// Load that changes (--profile) and the pool's other options as series
// axes (--min-pool, --max-connecting, --max-idle, --timeout, --retry,
// --server-selection-timeout, --heartbeat) with --cold:
// which pool settings keep an application healthy when its load changes.

// addProfileFlags registers the profile's and the pool options' flags.
func (o *Options) addProfileFlags(f *pflag.FlagSet) {
	cmdutil.TextVar(f, &o.profile, "profile", "", "comma-separated phases", checkProfileText,
		"load that changes: open-loop phases one after another, idle:D, rate:R:D, ramp:R1:R2:D, sine:LOW:HIGH:PERIOD:D, trace:FILE (rates in calls/s over all clients; docs/profiles.md), e.g. idle:30s,rate:2000:60s; every step runs the whole profile on one pool size (--pool, default 100) with --arrivals and --max-in-flight, and records a timeline; replaces --concurrency, --rate and the warm-up and window")
	cmdutil.TextVar(f, &o.minPool, "min-pool", "", "whole numbers from 0, comma-separated", checkList(plan.ParseMinPool),
		"minPoolSize to sweep, each its own series, e.g. 0,16,64 (default: the pool pre-warmed and held at the step's need; with --cold the URI's, else the driver's 0)")
	cmdutil.LevelsVar(f, &o.maxConnecting, "max-connecting", "", results.MaxConnecting, false, plan.ParseLevels,
		fmt.Sprintf("maxConnecting to sweep, each its own series: connections each pool opens at once, 1 to %d, e.g. 2,16 (default: the URI's, else %d, which fills a steady step's pool fast; with --cold the driver's own, 2)", results.MaxConnecting, sweeplib.DefaultMaxConnecting))
	cmdutil.TextVar(f, &o.maxIdle, "max-idle", "", "durations in whole ms, comma-separated", checkList(parseMaxIdle),
		"maxIdleTimeMS to sweep, each its own series: how long a connection may sit idle before the pool closes it, e.g. 0,500ms,10s (0: never; default: the URI's, else never); up to 24h")
	cmdutil.TextVar(f, &o.timeout, "timeout", "", "durations in whole ms, comma-separated", checkList(parseTimeout),
		"timeoutMS to sweep, each its own series: the driver's own deadline for each operation (checkout and server selection included), at most --op-timeout, e.g. 50ms,1s; a late reply costs a connection (docs/sweep.md)")
	cmdutil.TextVar(f, &o.retry, "retry", "", "on, off or on,off", checkList(plan.ParseRetry),
		"retryReads and retryWrites to sweep together, each its own series: on (the drivers' default) retries an operation once after a network error or a failover, off lets it fail, e.g. on,off (default: the URI's, else on)")
	cmdutil.TextVar(f, &o.serverSelectionTimeout, "server-selection-timeout", "", "durations in whole ms, comma-separated", checkList(parseServerSelectionTimeout),
		"serverSelectionTimeoutMS to sweep, each its own series: how long an operation waits for a server it may use (a primary during an election), at most --op-timeout, e.g. 1s,10s (default: the URI's, else none beyond --op-timeout)")
	cmdutil.TextVar(f, &o.heartbeat, "heartbeat", "", "durations in whole ms, comma-separated", checkList(parseHeartbeat),
		"heartbeatFrequencyMS to sweep, each its own series: how often the driver checks each server, which bounds how soon it finds a new primary, 500ms to 1h, e.g. 500ms,10s (default: the URI's, else the driver's 10s)")
	f.BoolVar(&o.cold, "cold", false, "with --profile: every step's pools start empty and grow as the driver grows them (no pre-warm; maxConnecting the driver's 2 unless --max-connecting says otherwise)")
	travel(f, travelAsGiven, "profile", "min-pool", "max-connecting", "max-idle", "timeout", "retry", "server-selection-timeout", "heartbeat", "cold")
}

// poolAxisFlags are the flags of the series axes beside maxPoolSize.
var poolAxisFlags = []string{"min-pool", "max-connecting", "max-idle", "timeout", "retry", "server-selection-timeout", "heartbeat"}

func parseServerSelectionTimeout(s string) ([]time.Duration, error) {
	return plan.ParseLengths(s, time.Millisecond, plan.MaxOpTimeout, "")
}

func parseHeartbeat(s string) ([]time.Duration, error) {
	return plan.ParseLengths(s, plan.MinHeartbeat, plan.MaxHeartbeat, "")
}

func parseMaxIdle(s string) ([]time.Duration, error) {
	return plan.ParseLengths(s, time.Millisecond, plan.MaxIdle, "never close an idle connection")
}

func parseTimeout(s string) ([]time.Duration, error) {
	return plan.ParseLengths(s, time.Millisecond, plan.MaxOpTimeout, "")
}

// checkList makes a list parser a flag's check.
func checkList[T any](parse func(string) ([]T, error)) func(string) error {
	return func(s string) error {
		_, err := parse(s)
		return err
	}
}

// checkProfileText bounds --profile's text before it is parsed: the
// phases are read once the other flags are known (applyProfile).
func checkProfileText(s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return errors.New("empty")
	case len(s) > plan.MaxProfileSpec:
		return fmt.Errorf("%d bytes, more than the %d a profile may have (give a long shape as trace:FILE)", len(s), plan.MaxProfileSpec)
	}
	return nil
}

// profileOnly are the flags a profile replaces: a profile step has no
// warm-up or window of its own, and its load is the profile's.
var profileOnly = append([]string{"warmup", "duration"}, autoFlagNames...)

// applyProfile turns --profile into the plan, once the open-loop flags
// are in it (applyOpen): the profile, no warm-up, the profile's length as
// the step's, and no auto lengths. Every refusal names its flag.
func (o *Options) applyProfile(p *plan.Plan) error {
	if !o.changed("profile") {
		return nil
	}
	for _, f := range profileOnly {
		if o.changed(f) {
			return errext.Usagef("--%s: not with --profile: a profile step lasts its profile (and the drain of its last calls), with no warm-up or window of its own", f)
		}
	}
	if o.changed("search") {
		return errext.Usagef("--profile and --search: a search measures steady steps; a profile step runs each setting through the load given")
	}
	// A trace file is read here, bounded, while the flags are checked:
	// nothing has started, and a bad row is bad input like a bad flag.
	prof, err := loadprofile.Parse(o.profile, loadprofile.TraceReaderFor(context.Background()))
	if err != nil {
		// Parse's errors name --profile and the phase or file and line.
		return errext.Usagef("%w", textfmt.EscapeError(err))
	}
	p.Profile = &prof
	p.Warmup, p.Auto = 0, nil
	if !o.changed("trials") {
		// A profile step has no interval of its own: settings are
		// compared across trials, and the comparison's test needs
		// plan.ProfileTrials a side to conclude at all.
		p.Trials = plan.ProfileTrials
	}
	p.Duration = prof.Duration()
	return nil
}

// poolAxes reads the pool options' lists into the plan: nil when none of
// them, --cold or --profile was given (the steps keep the steady sweep's
// pool settings); with --profile alone, axes without lists, so that every
// series records the options it ran with.
func (o *Options) poolAxes() (*plan.PoolAxes, error) {
	given := o.changed("profile") || o.cold
	for _, f := range poolAxisFlags {
		given = given || o.changed(f)
	}
	if !given {
		return nil, nil
	}
	a := &plan.PoolAxes{Cold: o.cold}
	var err error
	if o.changed("min-pool") {
		if a.MinPool, err = plan.ParseMinPool(o.minPool); err != nil {
			return nil, errext.Usagef("--min-pool: %w", err)
		}
	}
	if o.changed("max-connecting") {
		if a.MaxConnecting, err = plan.ParseLevels(o.maxConnecting, results.MaxConnecting); err != nil {
			return nil, errext.Usagef("--max-connecting: %w", err)
		}
		if len(a.MaxConnecting) > plan.MaxAxisValues {
			return nil, errext.Usagef("--max-connecting: %d values, more than %d", len(a.MaxConnecting), plan.MaxAxisValues)
		}
	}
	if o.changed("max-idle") {
		if a.MaxIdle, err = parseMaxIdle(o.maxIdle); err != nil {
			return nil, errext.Usagef("--max-idle: %w", err)
		}
	}
	if o.changed("timeout") {
		if a.Timeout, err = parseTimeout(o.timeout); err != nil {
			return nil, errext.Usagef("--timeout: %w", err)
		}
	}
	if o.changed("retry") {
		if a.Retry, err = plan.ParseRetry(o.retry); err != nil {
			return nil, errext.Usagef("--retry: %w", err)
		}
	}
	if o.changed("server-selection-timeout") {
		if a.ServerSelectionTimeout, err = parseServerSelectionTimeout(o.serverSelectionTimeout); err != nil {
			return nil, errext.Usagef("--server-selection-timeout: %w", err)
		}
	}
	if o.changed("heartbeat") {
		if a.Heartbeat, err = parseHeartbeat(o.heartbeat); err != nil {
			return nil, errext.Usagef("--heartbeat: %w", err)
		}
	}
	return a, nil
}

// checkColdURIs refuses a cold run whose pools would start above their
// size: a cold series keeps a URI's minPoolSize where --min-pool does not
// say, and the driver refuses a minPoolSize above maxPoolSize only once a
// step connects. (Pre-warmed series set minPoolSize themselves.)
func checkColdURIs(p plan.Plan, targets []topology.Target) error {
	a := p.PoolAxes
	if a == nil || !a.Cold || len(a.MinPool) > 0 || p.Pool.Match || len(p.Pool.Sizes) == 0 {
		return nil
	}
	least := slices.Min(p.Pool.Sizes)
	for _, t := range targets {
		if t.URI == "" {
			continue
		}
		ps, err := topology.PoolSettingsFromURI(t.URI) // the URI was checked as it was parsed
		if err == nil && ps.MinPoolSize > uint64(least) {
			return errext.Usagef("--cold: the URI of target %s sets minPoolSize=%d, above --pool %d, which a cold pool would keep; give --min-pool (it wins over the URI's)",
				t.Name, ps.MinPoolSize, least)
		}
	}
	return nil
}
