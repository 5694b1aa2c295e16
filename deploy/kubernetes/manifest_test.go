// Package kubernetes holds the Kubernetes manifest of poolsweep's agents;
// its test decodes the manifest into structs that mirror the Kubernetes
// API's fields it uses (strictly: a misspelled or misplaced field fails),
// checks what docs/agents.md says of it, and runs the agents' command line
// through poolsweep's own command tree, so a flag renamed or a value
// refused there fails here, not in a user's cluster.
package kubernetes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
	"github.com/poolsweep/poolsweep/cli/root"
	"github.com/poolsweep/poolsweep/cli/sweep"
)

const (
	manifestPath = "poolsweep-agents.yaml"
	// imageName is the name docs/agents.md and the README build the image
	// under (docker build -t) and the manifest runs.
	imageName = "poolsweep:latest"
	// completionIndex is where Kubernetes puts an Indexed Job's pod index.
	completionIndex = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
)

// The Kubernetes API's objects, as far as the manifest uses them; the yaml
// names are the API's (core/v1, batch/v1).
type (
	objectMeta struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	}
	resources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	}
	pvc struct {
		APIVersion string     `yaml:"apiVersion"`
		Kind       string     `yaml:"kind"`
		Metadata   objectMeta `yaml:"metadata"`
		Spec       struct {
			AccessModes      []string  `yaml:"accessModes"`
			StorageClassName *string   `yaml:"storageClassName"`
			Resources        resources `yaml:"resources"`
		} `yaml:"spec"`
	}
	job struct {
		APIVersion string     `yaml:"apiVersion"`
		Kind       string     `yaml:"kind"`
		Metadata   objectMeta `yaml:"metadata"`
		Spec       struct {
			CompletionMode          string `yaml:"completionMode"`
			Completions             *int   `yaml:"completions"`
			Parallelism             *int   `yaml:"parallelism"`
			BackoffLimit            *int   `yaml:"backoffLimit"`
			TTLSecondsAfterFinished *int   `yaml:"ttlSecondsAfterFinished"`
			Template                struct {
				Metadata objectMeta `yaml:"metadata"`
				Spec     podSpec    `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	pod struct {
		APIVersion string     `yaml:"apiVersion"`
		Kind       string     `yaml:"kind"`
		Metadata   objectMeta `yaml:"metadata"`
		Spec       podSpec    `yaml:"spec"`
	}
	podSpec struct {
		RestartPolicy   string `yaml:"restartPolicy"`
		SecurityContext *struct {
			RunAsNonRoot   *bool  `yaml:"runAsNonRoot"`
			RunAsUser      *int64 `yaml:"runAsUser"`
			RunAsGroup     *int64 `yaml:"runAsGroup"`
			FSGroup        *int64 `yaml:"fsGroup"`
			SeccompProfile *struct {
				Type string `yaml:"type"`
			} `yaml:"seccompProfile"`
		} `yaml:"securityContext"`
		Affinity *struct {
			PodAntiAffinity struct {
				Preferred []struct {
					Weight          int `yaml:"weight"`
					PodAffinityTerm struct {
						TopologyKey   string `yaml:"topologyKey"`
						LabelSelector struct {
							MatchLabels map[string]string `yaml:"matchLabels"`
						} `yaml:"labelSelector"`
					} `yaml:"podAffinityTerm"`
				} `yaml:"preferredDuringSchedulingIgnoredDuringExecution"`
			} `yaml:"podAntiAffinity"`
		} `yaml:"affinity"`
		Containers []container `yaml:"containers"`
		Volumes    []struct {
			Name                  string `yaml:"name"`
			PersistentVolumeClaim *struct {
				ClaimName string `yaml:"claimName"`
			} `yaml:"persistentVolumeClaim"`
			EmptyDir *struct {
				SizeLimit string `yaml:"sizeLimit"`
			} `yaml:"emptyDir"`
		} `yaml:"volumes"`
	}
	container struct {
		Name            string `yaml:"name"`
		Image           string `yaml:"image"`
		ImagePullPolicy string `yaml:"imagePullPolicy"`
		Env             []struct {
			Name      string `yaml:"name"`
			Value     string `yaml:"value"`
			ValueFrom *struct {
				SecretKeyRef *struct {
					Name string `yaml:"name"`
					Key  string `yaml:"key"`
				} `yaml:"secretKeyRef"`
				FieldRef *struct {
					FieldPath string `yaml:"fieldPath"`
				} `yaml:"fieldRef"`
			} `yaml:"valueFrom"`
		} `yaml:"env"`
		Command         []string `yaml:"command"`
		Args            []string `yaml:"args"`
		SecurityContext *struct {
			AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
			ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
			Capabilities             *struct {
				Drop []string `yaml:"drop"`
			} `yaml:"capabilities"`
		} `yaml:"securityContext"`
		Resources    resources `yaml:"resources"`
		VolumeMounts []struct {
			Name        string `yaml:"name"`
			MountPath   string `yaml:"mountPath"`
			SubPathExpr string `yaml:"subPathExpr"`
			ReadOnly    bool   `yaml:"readOnly"`
		} `yaml:"volumeMounts"`
	}
)

// manifest is the file's three objects.
type manifest struct {
	claim   pvc
	agents  job
	results pod
}

// decodeManifest decodes data's documents strictly, each by its kind, in
// the order the file gives them: the claim, the Job, the results pod.
func decodeManifest(data []byte) (manifest, error) {
	var m manifest
	want := []struct {
		apiVersion, kind string
		into             any
	}{{"v1", "PersistentVolumeClaim", &m.claim}, {"batch/v1", "Job", &m.agents}, {"v1", "Pod", &m.results}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for i := 0; ; i++ {
		var doc yaml.Node
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			if i != len(want) {
				return m, fmt.Errorf("%d documents, want %d", i, len(want))
			}
			return m, nil
		} else if err != nil {
			return m, fmt.Errorf("document %d: %w", i+1, err)
		}
		if i >= len(want) {
			return m, fmt.Errorf("document %d: more than the %d expected", i+1, len(want))
		}
		var head struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
		}
		if err := doc.Decode(&head); err != nil {
			return m, fmt.Errorf("document %d: %w", i+1, err)
		}
		if head.APIVersion != want[i].apiVersion || head.Kind != want[i].kind {
			return m, fmt.Errorf("document %d is %s %s, want %s %s", i+1, head.APIVersion, head.Kind, want[i].apiVersion, want[i].kind)
		}
		// yaml.Node.Decode knows no KnownFields: the document goes
		// through a strict decoder of its own.
		raw, err := yaml.Marshal(&doc)
		if err != nil {
			return m, err
		}
		strict := yaml.NewDecoder(bytes.NewReader(raw))
		strict.KnownFields(true)
		if err := strict.Decode(want[i].into); err != nil {
			return m, fmt.Errorf("document %d (%s): %w", i+1, head.Kind, err)
		}
	}
}

// quantity is a Kubernetes resource quantity of the forms the manifest
// uses: a decimal with an SI or binary suffix, or millicores.
var quantity = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$`)

// varRef is the kubelet's $(NAME) reference to a container's variable.
var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expand replaces each $(NAME) in s as the kubelet does, from vars; a
// name not there is an error (the kubelet would leave it as it is).
func expand(s string, vars map[string]string) (string, error) {
	var missing []string
	out := varRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := varRef.FindStringSubmatch(ref)[1]
		v, ok := vars[name]
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("%q refers to %s, which the container's env does not define", s, strings.Join(missing, ", "))
	}
	return out, nil
}

// imageUser is the uid the Containerfile's USER names, and its
// ENTRYPOINT.
func imageUser(t *testing.T) (uid int64, entrypoint string) {
	t.Helper()
	data, err := os.ReadFile("../../Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	user := regexp.MustCompile(`(?m)^USER ([0-9]+)(:[0-9]+)?$`).FindSubmatch(data)
	entry := regexp.MustCompile(`(?m)^ENTRYPOINT \["([^"]+)"\]$`).FindSubmatch(data)
	if user == nil || entry == nil {
		t.Fatal("Containerfile: no numeric USER or no ENTRYPOINT [\"...\"] line")
	}
	uid, err = strconv.ParseInt(string(user[1]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return uid, string(entry[1])
}

func readManifest(t *testing.T) manifest {
	t.Helper()
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	m, err := decodeManifest(data)
	if err != nil {
		t.Fatalf("%s: %v", manifestPath, err)
	}
	return m
}

// TestManifestDecodes: the file decodes strictly, and a field the API
// does not have where it stands fails the decoding (the check is not
// vacuous).
func TestManifestDecodes(t *testing.T) {
	readManifest(t)
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ from, to string }{
		{"runAsNonRoot: true", "runAsNonroot: true"},           // misspelled
		{"completionMode: Indexed", "completionmode: Indexed"}, // wrong case
		{"subPathExpr: $(RUN_ID)", "subPathExpression: $(RUN_ID)"},
	} {
		if !bytes.Contains(data, []byte(bad.from)) {
			t.Fatalf("the manifest no longer holds %q", bad.from)
		}
		if _, err := decodeManifest(bytes.Replace(data, []byte(bad.from), []byte(bad.to), 1)); err == nil {
			t.Errorf("%q for %q decoded without error", bad.to, bad.from)
		}
	}
}

// TestManifestRunsAsDocumented: the Indexed Job's agents are what
// docs/agents.md says: the image by its documented name, non-root as the
// image's user, resources requested, one pod per agent, the index as
// --agent-index, the URI from a Secret, the results on the claim.
func TestManifestRunsAsDocumented(t *testing.T) {
	m := readManifest(t)
	uid, entrypoint := imageUser(t)
	// Agents on several nodes write their results to the one claim.
	if !slices.Contains(m.claim.Spec.AccessModes, "ReadWriteMany") {
		t.Errorf("the claim %s is %v, not ReadWriteMany: agents on several nodes write to it", m.claim.Metadata.Name, m.claim.Spec.AccessModes)
	}
	for _, doc := range []string{"../../docs/agents.md", "../../README.md"} {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(imageName)) {
			t.Errorf("%s does not name the image %s", doc, imageName)
		}
	}
	js := m.agents.Spec
	if js.CompletionMode != "Indexed" || js.Completions == nil || js.Parallelism == nil || *js.Completions != *js.Parallelism || *js.Completions < 1 {
		t.Fatalf("the Job is not Indexed with completions = parallelism: %+v", js)
	}
	if js.BackoffLimit == nil || *js.BackoffLimit != 0 || js.Template.Spec.RestartPolicy != "Never" {
		t.Error("an agent's pod is restarted (it would join a run already under way): want backoffLimit 0 and restartPolicy Never")
	}
	for _, p := range []struct {
		name string
		spec podSpec
	}{{"the Job", js.Template.Spec}, {"the results pod", m.results.Spec}} {
		sc := p.spec.SecurityContext
		if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != uid {
			t.Errorf("%s: not runAsNonRoot as the image's user %d", p.name, uid)
		}
		for _, c := range p.spec.Containers {
			for _, r := range []string{"cpu", "memory"} {
				if q := c.Resources.Requests[r]; !quantity.MatchString(q) {
					t.Errorf("%s, container %s: requests.%s %q is not a quantity", p.name, c.Name, r, q)
				}
			}
			for r, q := range c.Resources.Limits {
				if !quantity.MatchString(q) {
					t.Errorf("%s, container %s: limits.%s %q is not a quantity", p.name, c.Name, r, q)
				}
			}
			if c.SecurityContext == nil || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
				t.Errorf("%s, container %s: allowPrivilegeEscalation is not false", p.name, c.Name)
			}
			// Every volume mounted is one the pod defines, and the
			// claim is the manifest's own.
			for _, vm := range c.VolumeMounts {
				found := false
				for _, v := range p.spec.Volumes {
					if v.Name == vm.Name {
						found = true
						if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName != m.claim.Metadata.Name {
							t.Errorf("%s: volume %s claims %s, not the manifest's %s", p.name, v.Name, v.PersistentVolumeClaim.ClaimName, m.claim.Metadata.Name)
						}
					}
				}
				if !found {
					t.Errorf("%s, container %s: mounts %s, which no volume names", p.name, c.Name, vm.Name)
				}
			}
		}
	}
	if len(js.Template.Spec.Containers) != 1 {
		t.Fatalf("the Job's pod has %d containers, want the one agent", len(js.Template.Spec.Containers))
	}
	c := js.Template.Spec.Containers[0]
	if c.Image != imageName {
		t.Errorf("the agents run the image %q, not the documented %q", c.Image, imageName)
	}
	if len(c.Command) != 1 || c.Command[0] != entrypoint {
		t.Errorf("the agents' command is %q, not the image's entrypoint %s (the image has no shell)", c.Command, entrypoint)
	}
	vars := map[string]string{}
	secret := map[string]bool{} // variables a Secret fills
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			vars[e.Name] = "mongodb://mongos-0:27017,mongos-1:27017/" // a URI as the Secret holds one
			secret[e.Name] = true
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == completionIndex:
			vars[e.Name] = "0" // each index in turn below
		case e.ValueFrom == nil:
			vars[e.Name] = e.Value
		default:
			t.Errorf("env %s: a source the test does not know", e.Name)
		}
	}
	var rw []string // where the agent may write: the root file system is read-only
	for _, vm := range c.VolumeMounts {
		if _, err := expand(vm.SubPathExpr, vars); err != nil {
			t.Errorf("volume mount %s: subPathExpr %v", vm.Name, err)
		}
		if !vm.ReadOnly {
			rw = append(rw, vm.MountPath)
		}
	}

	// The command line, for each index, through poolsweep's own command
	// tree: every flag exists, every value parses.
	indexVar := ""
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == completionIndex {
			indexVar = e.Name
		}
	}
	if indexVar == "" {
		t.Fatalf("no env variable of the agent holds the pod's completion index (%s)", completionIndex)
	}
	for i := 0; i < *js.Completions; i++ {
		vars[indexVar] = strconv.Itoa(i)
		args := make([]string, len(c.Args))
		for j, a := range c.Args {
			x, err := expand(a, vars)
			if err != nil {
				t.Fatalf("args: %v", err)
			}
			args[j] = x
		}
		flags := flagValues(args)
		// The URI holds credentials: it comes from a Secret, never from
		// the manifest's own text.
		if u := flagValues(c.Args)["uri"]; !secretRef(u, secret) {
			t.Errorf("--uri %q is not one variable that a Secret fills", u)
		}
		if got, want := flags["agents"], strconv.Itoa(*js.Completions); got != want {
			t.Errorf("--agents %q, want completions %s", got, want)
		}
		if got := flags["agent-index"]; got != vars[indexVar] {
			t.Errorf("--agent-index %q, want the completion index %s", got, vars[indexVar])
		}
		out := flags["out"]
		under := false
		for _, p := range rw {
			under = under || strings.HasPrefix(out, p+"/")
		}
		if !under {
			t.Errorf("--out %q is on no writable volume (%v): the root file system is read-only", out, rw)
		}
		// The command checks --out's directory with its flags, and the
		// volume it names exists in the pod, not here: the same path
		// under a temporary root stands for it.
		pod := t.TempDir()
		for _, p := range rw {
			if err := os.MkdirAll(filepath.Join(pod, p), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for j, a := range args {
			if v, ok := strings.CutPrefix(a, "--out="); ok {
				args[j] = "--out=" + filepath.Join(pod, v)
			}
		}
		var stderr bytes.Buffer
		var ran *sweep.Options
		code := root.Run(context.Background(), args, &cmdutil.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr},
			root.Runners{Sweep: func(_ context.Context, o *sweep.Options) error { ran = o; return nil }})
		if code != 0 || ran == nil {
			t.Errorf("agent %d: poolsweep %s: exit status %d, sweep run: %v; %s", i, strings.Join(args, " "), code, ran != nil, stderr.String())
		}
	}
}

// flagValues is args' --name=value flags by name (--name alone: "true").
func flagValues(args []string) map[string]string {
	out := map[string]string{}
	for _, a := range args {
		if name, ok := strings.CutPrefix(a, "--"); ok {
			k, v, found := strings.Cut(name, "=")
			if !found {
				v = "true"
			}
			out[k] = v
		}
	}
	return out
}

// secretRef says v is exactly "$(NAME)" for a NAME a Secret fills.
func secretRef(v string, secret map[string]bool) bool {
	name, ok := strings.CutPrefix(v, "$(")
	name, ok2 := strings.CutSuffix(name, ")")
	return ok && ok2 && secret[name]
}
