package fleet

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/testkit/cmdtest"
)

func parse(t *testing.T, args ...string) (*Options, *cobra.Command, int, string) {
	t.Helper()
	var (
		got *Options
		cmd *cobra.Command
	)
	code, _, stderr := cmdtest.Run(t, func(e *cmdutil.Env) *cobra.Command {
		cmd = NewCmdFleet(e, func(_ context.Context, o *Options) error { got = o; return nil })
		return cmd
	}, append([]string{"fleet"}, args...)...)
	return got, cmd, code, stderr
}

// TestFleetFlags: argv becomes the fleet's inputs, and a value out of
// range never reaches the planning.
func TestFleetFlags(t *testing.T) {
	o, cmd, code, stderr := parse(t, "a.jsonl", "--instances", "200", "--concurrency", "32", "--max-connections", "20000",
		"--conn-memory", "1.5", "--storm", "storm.jsonl", "--format", "markdown", "-o", "fleet.md", "--min-gain", "0.2")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	k, _ := o.analysis.Options()
	if !slices.Equal(o.files, []string{"a.jsonl"}) || o.fleet.Instances() != 200 || o.format != "markdown" || o.out != "fleet.md" || k.MinGain != 0.2 {
		t.Errorf("options %+v", o)
	}
	for name, want := range map[string]string{"concurrency": "32", "max-connections": "20000", "conn-memory": "1.5", "storm": "storm.jsonl"} {
		if got := cmd.Flags().Lookup(name).Value.String(); got != want {
			t.Errorf("--%s %s, want %s", name, got, want)
		}
	}
	if asked, err := o.fleet.Asked(); !asked || err != nil {
		t.Errorf("asked %v %v", asked, err)
	}
	for _, bad := range [][]string{
		{"a", "--instances", "100001"},                         // past 100,000
		{"a", "--instances", "4", "--format", "html"},          // not a format
		{"a", "--instances", "4", "--conn-memory", "0"},        // open at 0
		{"--instances", "4"},                                   // no files
		{"a"},                                                  // --instances is required
		{"a", "--instances", "4", "-o", "a"},                   // the plan over its own input
		{"a", "--instances", "4", "-o", "no/such/dir/plan.md"}, // -o's directory must exist
	} {
		if o, _, code, stderr := parse(t, bad...); o != nil || code != 2 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}

// TestFleetPlanFlags: the costs, limit and trace flags reach the run as
// given, and every combination that says one thing twice, or describes a
// fleet not asked for, is refused before it.
func TestFleetPlanFlags(t *testing.T) {
	o, _, code, stderr := parse(t, "a.jsonl", "--rate-trace", "traffic.csv", "--rate-per-instance", "250", "--min-pool", "2",
		"--max-idle", "30s", "--limit", "atlas:m40", "--costs", "conns.jsonl", "--storm", "storm.jsonl")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if p := o.plan; p.rateTrace != "traffic.csv" || p.ratePerInstance != 250 || p.minPool != "2" || p.maxIdle != "30s" || p.limit != "atlas:m40" || p.costs != "conns.jsonl" {
		t.Errorf("plan flags %+v", p)
	}
	// --costs alone names the run to plan from as well.
	if o, _, code, stderr := parse(t, "--costs", "conns.jsonl", "--instances", "400"); code != 0 || o == nil || len(o.files) != 1 || o.files[0] != "conns.jsonl" {
		t.Errorf("--costs alone: exit %d, %+v (%s)", code, o, stderr)
	}
	for _, bad := range [][]string{
		{"a", "--instances", "4", "--limit", "atlas:M31"},                           // not a tier
		{"a", "--instances", "4", "--limit", "M30"},                                 // not atlas:TIER
		{"a", "--instances", "4", "--instances-trace", "t.csv"},                     // two sizes
		{"a", "--instances-trace", "t.csv", "--rate-trace", "r.csv"},                // two traces
		{"a", "--rate-trace", "r.csv"},                                              // no rule
		{"a", "--instances", "4", "--rate-per-instance", "3"},                       // a rule without a trace
		{"a", "--instances", "4", "--min-pool", "1,2"},                              // a list: one fleet, one setting
		{"a", "--instances", "4", "--max-idle", "1500us"},                           // not whole ms, as the drivers take it
		{"a", "--instances-trace", "t.csv", "--min-pool", "-1"},                     // out of range
		{"a", "--instances", "4", "--costs", "c", "--conn-memory", "1"},             // two memories
		{"a", "--instances", "4", "--limit", "atlas:M10", "--max-connections", "9"}, // two limits
		{"a"},                // no size
		{"--instances", "4"}, // no files and no --costs
	} {
		if o, _, code, stderr := parse(t, bad...); o != nil || code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}
