package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/topology"
)

type inspectOptions struct {
	uri    string
	format string
}

// inspectReport is inspect's JSON output.
type inspectReport struct {
	URI  string                `json:"uri"`
	Info topology.Info         `json:"server"`
	Pool topology.PoolSettings `json:"pool"`
}

// newInspectCmd builds the inspect command; runF runs it once its flags
// are parsed (nil: inspect the deployment; tests pass their own).
func newInspectCmd(e *env, runF func(context.Context, *inspectOptions) error) *cobra.Command {
	o := &inspectOptions{}
	cmd := &cobra.Command{
		Use:   "inspect --uri URI",
		Short: "Show a deployment's topology, version, hosts and the pool settings its URI implies",
		Example: `  poolsweep inspect --uri mongodb://127.0.0.1:27017
  poolsweep inspect --uri 'mongodb://m1:27017,m2:27017/?maxPoolSize=200' --format json`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return o.run(cmd.Context(), e)
		},
	}
	textVar(cmd.Flags(), &o.uri, "uri", "", "a MongoDB URI", topology.ValidateURI, "MongoDB connection string (required)")
	choiceVar(cmd.Flags(), &o.format, "format", "text", []string{"text", "json"}, false, "output format: text or json")
	return cmd
}

// validate checks the flags before anything connects.
func (o *inspectOptions) validate() (topology.PoolSettings, error) {
	if o.uri == "" {
		return topology.PoolSettings{}, usagef("--uri: required")
	}
	ps, err := topology.PoolSettingsFromURI(o.uri)
	if err != nil {
		return ps, usagef("--uri: %v", err)
	}
	return ps, nil
}

func (o *inspectOptions) run(ctx context.Context, e *env) error {
	ps, err := o.validate()
	if err != nil {
		return err
	}
	info, err := topology.Detect(ctx, o.uri)
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return fmt.Errorf("inspect %s: %w", topology.Redact(o.uri), err)
	}
	rep := inspectReport{URI: topology.Redact(o.uri), Info: info, Pool: ps}
	if o.format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	w := e.stdout
	// The URI and hosts come from the user: a control character in a user
	// name must not reach the terminal raw.
	fmt.Fprintf(w, "uri:            %s\n", printable(rep.URI))
	topo := info.Topology
	if info.SetName != "" {
		topo += " (set " + info.SetName + ")"
	}
	fmt.Fprintf(w, "topology:       %s\n", topo)
	kind := info.ServerKind
	if info.KindVersion != "" {
		kind += " " + info.KindVersion
	}
	if info.SimSpec != "" {
		kind += " (" + info.SimSpec + ")"
	}
	fmt.Fprintf(w, "server:         %s, reports MongoDB version %s (wire version %d)\n", kind, info.ServerVersion, info.MaxWireVersion)
	fmt.Fprintf(w, "hosts:          %s\n", printable(strings.Join(info.Hosts, ", ")))
	if len(info.Shards) > 0 {
		fmt.Fprintf(w, "shards:         %s\n", strings.Join(info.Shards, ", "))
	}
	if info.Note != "" {
		fmt.Fprintf(w, "note:           %s\n", info.Note)
	}
	set := func(b bool) string {
		if b {
			return ""
		}
		return " (driver default)"
	}
	fmt.Fprintf(w, "maxPoolSize:    %d%s\n", ps.MaxPoolSize, set(ps.MaxPoolSizeSet))
	fmt.Fprintf(w, "minPoolSize:    %d\n", ps.MinPoolSize)
	fmt.Fprintf(w, "maxConnecting:  %d\n", ps.MaxConnecting)
	if ps.TimeoutMS == 0 {
		fmt.Fprintf(w, "timeoutMS:      none (driver v2 has no default operation timeout; poolsweep sets --op-timeout)\n")
	} else {
		fmt.Fprintf(w, "timeoutMS:      %d\n", ps.TimeoutMS)
	}
	fmt.Fprintf(w, "readPreference: %s\n", ps.ReadPreference)
	if ps.WriteConcern != "" {
		fmt.Fprintf(w, "writeConcern:   %s\n", ps.WriteConcern)
	}
	n := len(info.Hosts)
	if info.Topology == topology.Sharded || info.Topology == topology.Standalone {
		fmt.Fprintf(w, "connections:    up to %d per client to each of %d host(s) = %d per client\n", ps.MaxPoolSize, n, ps.MaxPoolSize*uint64(n))
	} else {
		fmt.Fprintf(w, "connections:    up to %d per client to each member the driver uses (primary for writes and default reads)\n", ps.MaxPoolSize)
	}
	return nil
}

// printable escapes the characters of s a terminal would act on (control
// characters and other non-printing runes) as Go does in quoted strings.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsPrint(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}
