package sweep

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
					VolumeMounts []k8sMount `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []k8sVolume `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
}

type k8sVolume struct {
	Name                  string `yaml:"name"`
	PersistentVolumeClaim *struct {
		ClaimName string `yaml:"claimName"`
	} `yaml:"persistentVolumeClaim"`
}

// k8sObject is what the manifest's other objects are read as: a
// PersistentVolumeClaim, and the pod that holds it for kubectl cp.
type k8sObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		AccessModes []string `yaml:"accessModes"`
		Containers  []struct {
			Command      []string   `yaml:"command"`
			VolumeMounts []k8sMount `yaml:"volumeMounts"`
		} `yaml:"containers"`
		Volumes []k8sVolume `yaml:"volumes"`
	} `yaml:"spec"`
}

// claimAt is the claim whose volume is mounted at path, "" when none.
func claimAt(path string, mounts []k8sMount, volumes []k8sVolume) string {
	for _, m := range mounts {
		for _, v := range volumes {
			if m.MountPath == path && m.Name == v.Name && v.PersistentVolumeClaim != nil {
				return v.PersistentVolumeClaim.ClaimName
			}
		}
	}
	return ""
}

// TestKubernetesManifest checks deploy/kubernetes/poolsweep-agents.yaml
// without a cluster: it parses as an Indexed Job whose completions and
// parallelism equal --agents, and the poolsweep command in it, with
// JOB_COMPLETION_INDEX set as Kubernetes sets it for each pod, is a valid
// agent of one run (through the sweep command's own flag parsing and
// validation); the URI comes from a Secret, and the results are written
// to a ReadWriteMany claim that a pod of its own holds for kubectl cp,
// never collected from a log.
func TestKubernetesManifest(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "deploy", "kubernetes", "poolsweep-agents.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		job        k8sJob
		others     []k8sObject
		jobs, docs int
	)
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var node yaml.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: document %d: %v", path, docs+1, err)
		}
		docs++
		var o k8sObject
		if err := node.Decode(&o); err != nil {
			t.Fatalf("%s: document %d: %v", path, docs, err)
		}
		if o.Kind == "Job" {
			jobs++
			if err := node.Decode(&job); err != nil {
				t.Fatalf("%s: the Job: %v", path, err)
			}
			continue
		}
		others = append(others, o)
	}
	if jobs != 1 {
		t.Fatalf("%s holds %d Jobs, want 1", path, jobs)
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
	// The results are on a volume that outlives the pods, shared by the
	// agents and by the pod kubectl cp copies them from; no step is read
	// back from a log, which the kubelet rotates by size.
	mount := c.VolumeMounts[0].MountPath
	claim := claimAt(mount, c.VolumeMounts, s.Template.Spec.Volumes)
	if claim == "" {
		t.Fatalf("the agents' results (%s) are not on a PersistentVolumeClaim", mount)
	}
	var shared, held bool
	for _, o := range others {
		switch {
		case o.Kind == "PersistentVolumeClaim" && o.APIVersion == "v1" && o.Metadata.Name == claim:
			shared = slices.Contains(o.Spec.AccessModes, "ReadWriteMany")
		case o.Kind == "Pod" && o.APIVersion == "v1" && len(o.Spec.Containers) == 1:
			held = held || claimAt(mount, o.Spec.Containers[0].VolumeMounts, o.Spec.Volumes) == claim
		}
	}
	if !shared {
		t.Errorf("no ReadWriteMany claim %s in the manifest: agents on several nodes write to it", claim)
	}
	if !held {
		t.Errorf("no pod mounts the claim %s at %s for kubectl cp", claim, mount)
	}
	script := strings.Join(append(c.Command, c.Args...), " ")
	if strings.Contains(script, "cat ") || strings.Contains(string(b), "kubectl logs") {
		t.Errorf("the results are still printed or collected from a log:\n%s", script)
	}
	if !regexp.MustCompile(`kubectl cp poolsweep-results:` + regexp.QuoteMeta(mount) + `/`).Match(b) {
		t.Errorf("the manifest does not say how to copy the results from %s", mount)
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
