package inspect

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/corpus"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/replydir"
	"github.com/poolsweep/poolsweep/telemetry"
)

// repliesReport is inspect --replies' JSON output.
type repliesReport struct {
	Folder string           `json:"folder"`
	Hosts  []repliesHostOut `json:"hosts"`
}

// repliesHostOut is one server, as telemetry and the bound rules see it.
type repliesHostOut struct {
	Name    string     `json:"name"`
	Files   []string   `json:"files"`
	Sampled *time.Time `json:"sampled_at,omitempty"`
	Process string     `json:"process"`
	Router  bool       `json:"router"`
	Role    string     `json:"role"`
	// RoleEvidence says what decided Role (telemetry.DecideRole), in the
	// words analyze --ftdc uses for the same folder.
	RoleEvidence string `json:"role_evidence"`
	SetName      string `json:"set_name,omitempty"`
	Version      string `json:"version"`
	// Paths: every read path (read-paths.txt) of the commands the folder
	// has a reply to, with its value; Missing: the commands it has none of.
	Paths   []pathValue       `json:"paths"`
	Missing []string          `json:"missing_replies,omitempty"`
	Rules   []bound.RuleCheck `json:"rules"`
}

// pathValue is one read path's value in a reply: Value is relaxed
// Extended JSON, absent when the server did not report the field.
type pathValue struct {
	Command string `json:"command"`
	// Listed is the read-paths.txt line's path ("*" for any key); Path
	// the field's, keys put in (a key may itself hold dots: a host name).
	Listed   string          `json:"listed"`
	Path     string          `json:"path"`
	Reported bool            `json:"reported"`
	Type     string          `json:"type,omitempty"`
	Value    json.RawMessage `json:"value,omitempty"`
}

// inspectReplies reads dir and reports every host in it, offline.
func (o *Options) inspectReplies(e *cmdutil.Env) error {
	hosts, err := replydir.Load(o.replies)
	if err != nil {
		var bad *replydir.Error
		if errors.As(err, &bad) {
			return errext.Usagef("--replies: %s", printable(err.Error()))
		}
		return fmt.Errorf("--replies: %w", err)
	}
	rep := repliesReport{Folder: o.replies}
	for _, h := range hosts {
		for _, w := range h.Warnings {
			fmt.Fprintf(e.Stderr, "poolsweep: warning: --replies: %s\n", cmdutil.SafeLine(w))
		}
		rep.Hosts = append(rep.Hosts, viewHost(h))
	}
	if o.format == "json" {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return writeRepliesText(e.Stdout, rep)
}

// viewHost is one host's report: process and role as telemetry decides
// them, each read path's value, the rules that can fire.
func viewHost(h replydir.Host) repliesHostOut {
	v := telemetry.ViewHost(h.Replies)
	out := repliesHostOut{Name: h.Name, Files: h.Files, Process: v.Process, Router: v.Router, Role: v.Role, RoleEvidence: v.RoleEvidence, SetName: v.SetName, Version: v.Version}
	if !h.SampledAt.IsZero() {
		t := h.SampledAt
		out.Sampled = &t
	}
	missing := map[string]bool{}
	for _, p := range corpus.Listed() {
		raw, ok := h.Replies[p.Command]
		if !ok {
			missing[p.Command] = true
			continue
		}
		for _, pv := range lookupPath(p.Command, raw, p.Path, nil) {
			pv.Listed = strings.Join(p.Path, ".")
			out.Paths = append(out.Paths, pv)
		}
	}
	for c := range missing {
		out.Missing = append(out.Missing, c)
	}
	slices.Sort(out.Missing)
	out.Rules = bound.DefaultClassifier().ServerRules(bound.ServerInputs{
		Version: v.Version, Router: v.Router,
		TicketsRead: v.TicketsRead, TicketsWrite: v.TicketsWrite, QueueRead: v.QueueRead, QueueWrite: v.QueueWrite,
		CPU: v.CPU, Cores: v.Cores, Latency: v.Latency, Network: v.Network, Establishment: v.Establishment,
		PoolHosts: v.PoolHosts, PoolRefreshing: v.PoolRefreshing, PoolsListed: v.PoolsListed,
		PoolSettingsRead: v.PoolSettingsRead, PoolMaxSize: v.PoolMaxSize,
	})
	return out
}

// lookupPath finds path in doc, "*" standing for every key of a document
// or element of an array, so one listed path may give several values.
func lookupPath(cmd string, doc bson.Raw, path, at []string) []pathValue {
	for i, k := range path {
		if k != "*" {
			continue
		}
		here := append(append([]string(nil), at...), path[:i]...)
		v, err := doc.LookupErr(path[:i]...)
		var elems []bson.RawElement
		if err == nil && (v.Type == bson.TypeEmbeddedDocument || v.Type == bson.TypeArray) {
			elems, _ = bson.Raw(v.Value).Elements()
		}
		if len(elems) == 0 {
			return []pathValue{{Command: cmd, Path: strings.Join(append(here, path[i:]...), ".")}}
		}
		var out []pathValue
		for _, e := range elems {
			sub, ok := e.Value().DocumentOK()
			if !ok {
				continue
			}
			out = append(out, lookupPath(cmd, sub, path[i+1:], append(here, e.Key()))...)
		}
		return out
	}
	pv := pathValue{Command: cmd, Path: strings.Join(append(append([]string(nil), at...), path...), ".")}
	v, err := doc.LookupErr(path...)
	if err != nil {
		return []pathValue{pv}
	}
	pv.Reported, pv.Type = true, v.Type.String()
	if b, err := bson.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, false, false); err == nil {
		var wrap struct {
			V json.RawMessage `json:"v"`
		}
		if json.Unmarshal(b, &wrap) == nil {
			pv.Value = wrap.V
		}
	}
	return []pathValue{pv}
}

// writeRepliesText renders the report for a terminal; strings from the
// files are escaped (printable).
func writeRepliesText(w io.Writer, rep repliesReport) error {
	for i, h := range rep.Hosts {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "host:     %s (%s)\n", printable(h.Name), printable(strings.Join(h.Files, ", ")))
		if h.Sampled != nil {
			fmt.Fprintf(w, "sampled:  %s (the FTDC folder's newest sample)\n", h.Sampled.Format(time.RFC3339))
		}
		proc := h.Process
		if proc == "" {
			proc = "not reported"
		}
		fmt.Fprintf(w, "process:  %s\n", printable(proc))
		role := h.Role
		if h.SetName != "" {
			role += " (set " + h.SetName + ")"
		}
		role += ": " + h.RoleEvidence
		fmt.Fprintf(w, "role:     %s\n", printable(role))
		ver := h.Version
		if ver == "" {
			ver = "not reported"
		}
		fmt.Fprintf(w, "version:  %s\n", printable(ver))
		if len(h.Missing) > 0 {
			fmt.Fprintf(w, "no reply: %s\n", strings.Join(h.Missing, ", "))
		}
		fmt.Fprintln(w, "read paths:")
		for _, p := range h.Paths {
			val := "not reported"
			if p.Reported {
				val = printable(string(p.Value)) + " (" + p.Type + ")"
			}
			fmt.Fprintf(w, "  %s %s: %s\n", p.Command, printable(p.Path), val)
		}
		fmt.Fprintln(w, "bound rules:")
		for _, r := range h.Rules {
			can := "cannot fire"
			if r.CanFire {
				can = "can fire"
			}
			fmt.Fprintf(w, "  %s: %s (%s)\n", r.Rule, can, r.Why)
		}
	}
	return nil
}
