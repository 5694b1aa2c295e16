package sweep

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
)

// k8sJob is the part of a batch/v1 Job the agents' manifest relies on.
type k8sJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int   `yaml:"completions"`
		Parallelism    *int   `yaml:"parallelism"`
		BackoffLimit   *int   `yaml:"backoffLimit"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name    string   `yaml:"name"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name      string `yaml:"name"`
						Value     string `yaml:"value"`
						ValueFrom *struct {
							SecretKeyRef *struct {
								Name string `yaml:"name"`
								Key  string `yaml:"key"`
							} `yaml:"secretKeyRef"`
						} `yaml:"valueFrom"`
					} `yaml:"env"`
					VolumeMounts []struct {
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestKubernetesManifest checks deploy/kubernetes/poolsweep-agents.yaml
// without a cluster: it parses as an Indexed Job whose completions and
// parallelism equal --agents, and the poolsweep command in it, with
// JOB_COMPLETION_INDEX set as Kubernetes sets it for each pod, is a valid
// agent of one run (through the sweep command's own flag parsing and
// validation); the URI comes from a Secret and the results are printed
// for kubectl logs.
func TestKubernetesManifest(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "deploy", "kubernetes", "poolsweep-agents.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var job k8sJob
	if err := yaml.Unmarshal(b, &job); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	s := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || s.CompletionMode != "Indexed" {
		t.Fatalf("not an Indexed batch/v1 Job: %s %s %s", job.APIVersion, job.Kind, s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism || *s.Completions < 1 {
		t.Fatalf("completions %v and parallelism %v must be set and equal", s.Completions, s.Parallelism)
	}
	n := *s.Completions
	if s.Template.Spec.RestartPolicy != "Never" || s.BackoffLimit == nil || *s.BackoffLimit != 0 {
		t.Errorf("a restarted agent would join a run under way: restartPolicy %q backoffLimit %v", s.Template.Spec.RestartPolicy, s.BackoffLimit)
	}
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	vars := map[string]string{}
	fromSecret := false
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			vars[e.Name] = "mongodb://user:pw@mongos-0:27017,mongos-1:27017/" // what the Secret would hold
			fromSecret = fromSecret || e.Name == "MONGODB_URI"
		default:
			vars[e.Name] = e.Value
		}
	}
	if !fromSecret {
		t.Errorf("the URI must come from a Secret")
	}
	if strings.Contains(string(b), "mongodb://") && regexp.MustCompile(`(?m)^\s+value:.*mongodb://`).Match(b) {
		t.Errorf("a literal URI in the manifest")
	}
	script := strings.Join(append(c.Command, c.Args...), " ")
	if !strings.Contains(script, "cat ") || !strings.Contains(script, "results.jsonl") || !strings.Contains(script, "----- poolsweep results") {
		t.Errorf("the results are not printed for kubectl logs:\n%s", script)
	}
	argv := poolsweepArgv(t, strings.Join(c.Args, "\n"))
	for i := range n {
		vars["JOB_COMPLETION_INDEX"] = strconv.Itoa(i)
		args := make([]string, len(argv))
		for j, a := range argv {
			args[j] = os.Expand(a, func(k string) string { return vars[k] })
		}
		if args[0] != "sweep" {
			t.Fatalf("the command is poolsweep %s, want poolsweep sweep", args[0])
		}
		var got *Options
		e := &cmdutil.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}
		cmd := NewCmdSweep(e, func(_ context.Context, o *Options) error { got = o; return nil })
		cmd.SetArgs(args[1:])
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("pod %d: flags: %v", i, err)
		}
		if _, err := got.validate(); err != nil {
			t.Fatalf("pod %d: %v", i, err)
		}
		if got.agents != n || got.agentIndex != i || got.runID == "" || got.runID != vars["RUN_ID"] || !strings.HasSuffix(got.out, "agent-"+strconv.Itoa(i)) {
			t.Errorf("pod %d: --agents %d --agent-index %d --run-id %q --out %q; want %d agents, index %d, one run id, its own directory",
				i, got.agents, got.agentIndex, got.runID, got.out, n, i)
		}
		if !strings.HasPrefix(got.out, c.VolumeMounts[0].MountPath) {
			t.Errorf("pod %d: results in %s, not on the mounted volume %s", i, got.out, c.VolumeMounts[0].MountPath)
		}
	}
}

// poolsweepArgv extracts the poolsweep command line of a shell script:
// backslash continuations joined, words split on blanks, double quotes
// removed ($VARS are left for the caller to expand).
func poolsweepArgv(t *testing.T, script string) []string {
	t.Helper()
	script = strings.ReplaceAll(script, "\\\n", " ")
	for _, line := range strings.Split(script, "\n") {
		fields := splitWords(strings.TrimSpace(line))
		if len(fields) > 0 && fields[0] == "poolsweep" {
			return fields[1:]
		}
	}
	t.Fatalf("no poolsweep command in the script:\n%s", script)
	return nil
}

func splitWords(s string) []string {
	var (
		out    []string
		cur    strings.Builder
		quoted bool
		inWord bool
	)
	for _, r := range s {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case (r == ' ' || r == '\t') && !quoted:
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}
