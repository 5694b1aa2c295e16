// Package inspect is the inspect command: a deployment's topology,
// version and hosts and the pool settings its URI implies, or saved
// replies and FTDC folders read offline.
package inspect

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/topology"
)

// Options are inspect's flags, as parsed.
type Options struct {
	uri         string
	format      string
	saveReplies string
	replies     string
}

// Report is inspect's JSON output.
type Report struct {
	URI  string                `json:"uri"`
	Info topology.Info         `json:"server"`
	Pool topology.PoolSettings `json:"pool"`
	// SavedReplies are the files --save-replies wrote.
	SavedReplies []string `json:"saved_replies,omitempty"`
	// PendingRestores are server parameters a sweep changed and has not
	// set back (inspectpending.go); PendingUnknown says why they could
	// not be read.
	PendingRestores []PendingRestore `json:"pending_restores,omitempty"`
	PendingUnknown  string           `json:"pending_restores_unknown,omitempty"`
}

// NewCmdInspect builds the inspect command; runF runs it once its flags
// are parsed (nil: inspect the deployment; tests pass their own).
func NewCmdInspect(e *cmdutil.Env, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "inspect --uri URI | --replies DIR",
		Short: "Show a deployment's topology, version, hosts and the pool settings its URI implies",
		Long: `inspect connects with one connection, asks hello, buildInfo and (on a mongos)
listShards, and shows the topology, the server's version, its hosts and shards, and the
driver pool settings the URI implies. A server parameter a sweep changed
(--server-param) and never set back, because that run was killed, is shown as a
pending restore (from poolsweep_meta in poolsweep's database): that run's --resume
sets it back.

--save-replies DIR also writes the replies the server gave to the commands poolsweep
sends during a sweep — hello (isMaster before 4.4), buildInfo, serverStatus, hostInfo
and, on a mongos, connPoolStats, listShards and getParameter of its pools to the shards
(ShardingTaskExecutorPoolMaxSize, ShardingTaskExecutorPoolMaxConnecting,
taskExecutorPoolSize) — into DIR, one Extended JSON file each,
named like poolsweep's corpus of real servers' replies
(<command>.<process>[-<role>]-<version>.json, e.g. serverStatus.mongod-7.0.12.json).
Secrets are removed first: $clusterTime's signature, saslSupportedMechs,
speculativeAuthenticate, any field named like a password, secret, token, credential or
URI, and the URI's password wherever it appears; the connection string itself is never
written. Host names stay. Attach the files to a bug report: they are how poolsweep
learns what your server version reports.

--replies DIR reads such a folder offline, or a server's own FTDC folder
(diagnostic.data: its newest sample's serverStatus, replSetGetStatus or connPoolStats,
and its metadata's buildInfo and hostInfo), and prints for each host the process and
role as poolsweep's sampler decides them, the version, every field poolsweep reads
with its value or "not reported", and which bound rules can fire on that server.`,
		Example: `  poolsweep inspect --uri mongodb://127.0.0.1:27017
  poolsweep inspect --uri 'mongodb://m1:27017,m2:27017/?maxPoolSize=200' --format json
  poolsweep inspect --uri mongodb://db1:27017 --save-replies ./replies
  poolsweep inspect --replies ./replies
  poolsweep inspect --replies /var/lib/mongodb/diagnostic.data --format json`,
		Args: cmdutil.ArgsUsage(cobra.NoArgs),
		RunE: cmdutil.RunSeam(o, func() error { _, err := o.Validate(); return err }, runF, func(ctx context.Context) error { return o.run(ctx, e) }),
	}
	cmdutil.TextVar(cmd.Flags(), &o.uri, "uri", "", "a MongoDB URI", topology.ValidateURI, "MongoDB connection string (required)")
	cmdutil.ChoiceVar(cmd.Flags(), &o.format, "format", "text", []string{"text", "json"}, false, "output format: text or json")
	cmdutil.TextVar(cmd.Flags(), &o.replies, "replies", "", "a directory", nil, "read saved replies (--save-replies) or an FTDC diagnostic.data folder offline instead of connecting")
	cmdutil.TextVar(cmd.Flags(), &o.saveReplies, "save-replies", "", "a directory, made through outfile", nil, "also write the server's replies (secrets removed) into this directory, named like poolsweep's corpus, for a bug report")
	return cmd
}

// Validate checks the flags before anything connects.
func (o *Options) Validate() (topology.PoolSettings, error) {
	if o.replies != "" {
		switch {
		case o.uri != "":
			return topology.PoolSettings{}, errext.Usagef("--replies: reads a folder offline; it takes no --uri")
		case o.saveReplies != "":
			return topology.PoolSettings{}, errext.Usagef("--replies: reads a folder offline; it takes no --save-replies")
		}
		return topology.PoolSettings{}, nil
	}
	if o.uri == "" {
		return topology.PoolSettings{}, errext.Usagef("--uri: required (or --replies DIR, offline)")
	}
	ps, err := topology.PoolSettingsFromURI(o.uri)
	if err != nil {
		return ps, errext.Usagef("--uri: %w", err)
	}
	if o.saveReplies != "" {
		if err := outfile.CheckDir(o.saveReplies); err != nil {
			return ps, errext.Usagef("--save-replies: %w", err)
		}
		// The names carry the server's version and role, known only
		// once it answers: every name of their shape is checked now, and
		// each file again as it is written.
		if err := outfile.CheckNames(o.saveReplies, savedName.MatchString); err != nil {
			return ps, errext.Usagef("--save-replies: %w", err)
		}
		if err := cmdutil.NotInputIn("--save-replies", o.saveReplies, savedName.MatchString, cmdutil.URIFiles("--uri", o.uri)); err != nil {
			return ps, err
		}
	}
	return ps, nil
}

func (o *Options) run(ctx context.Context, e *cmdutil.Env) error {
	ps, err := o.Validate()
	if err != nil {
		return err
	}
	if o.replies != "" {
		return o.inspectReplies(e)
	}
	info, err := topology.Detect(ctx, o.uri)
	if err != nil {
		if ctx.Err() != nil {
			return errext.InterruptedError{}
		}
		return fmt.Errorf("inspect %s: %w", topology.Redact(o.uri), err)
	}
	rep := Report{URI: topology.Redact(o.uri), Info: info, Pool: ps}
	if rep.PendingRestores, err = pendingRestores(ctx, o.uri); err != nil {
		rep.PendingUnknown = err.Error()
	}
	if o.saveReplies != "" {
		replies, err := topology.CaptureReplies(ctx, o.uri)
		if err != nil {
			if ctx.Err() != nil {
				return errext.InterruptedError{}
			}
			return fmt.Errorf("inspect %s: --save-replies: %w", topology.Redact(o.uri), err)
		}
		if rep.SavedReplies, err = saveReplies(o.saveReplies, replies); err != nil {
			return err
		}
	}
	if o.format == "json" {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	w := e.Stdout
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
	for _, f := range rep.SavedReplies {
		fmt.Fprintf(w, "saved reply:    %s\n", printable(f))
	}
	writePending(w, rep.PendingRestores, rep.PendingUnknown)
	n := len(info.Hosts)
	if info.Topology == topology.Sharded || info.Topology == topology.Standalone {
		fmt.Fprintf(w, "connections:    up to %d per client to each of %d host(s) = %d per client\n", ps.MaxPoolSize, n, ps.MaxPoolSize*uint64(n))
	} else {
		reach := readsReach(ps.ReadPreference, n)
		used := reach
		if !strings.HasPrefix(ps.ReadPreference, "primary") && ps.ReadPreference != "nearest" {
			used++ // the writes' primary, besides the secondaries the reads reach
		}
		fmt.Fprintf(w, "connections:    up to %d per client per member (maxPoolSize is per host): reads with %s reach %d of %d members, writes the primary, so up to %d per client\n",
			ps.MaxPoolSize, ps.ReadPreference, reach, n, ps.MaxPoolSize*uint64(min(used, n)))
	}
	return nil
}

// readsReach is how many of a replica set's n members reads with read
// preference mode go to: the primary, the secondaries, or any member.
func readsReach(mode string, n int) int {
	switch strings.ToLower(mode) {
	case "secondary", "secondarypreferred":
		return max(n-1, 1)
	case "nearest":
		return n
	}
	return 1
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
	// After a label of 16 columns and the length CapLineAt adds, the line
	// stays within textfmt.LineMax
	// (a URI of fifty hosts, a folder's path).
	return textfmt.CapLineAt(b.String(), textfmt.LineMax-40)
}
