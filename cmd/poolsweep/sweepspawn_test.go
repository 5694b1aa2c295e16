package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/sweep/agents"
	"github.com/poolsweep/poolsweep/workload"
)

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so read after ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// TestSpawnKeepsThePasswordOffCommandLines: --spawn against a target
// whose URI holds a password. While the run goes on, the command line of
// every process below the launcher (/proc/PID/cmdline, which every user
// of the machine can read) is read again and again; none may hold the
// password, nor may the agents' logs, the results or the launcher's own
// output. Before the targets went through a pipe, each agent had
// "--uri mongodb://alice:PASSWORD@…" on its command line.
func TestSpawnKeepsThePasswordOffCommandLines(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns agents against the simulator")
	}
	const password = "s3cret-Pw-4711"
	uri := testsrv.Sim(t, "slots=4,service=1ms").URI()
	withPW := strings.Replace(uri, "mongodb://", "mongodb://alice:"+password+"@", 1)
	if strings.Contains(withPW, "?") {
		withPW += "&authMechanism=PLAIN"
	} else {
		withPW += "?authMechanism=PLAIN"
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cmd := exec.Command(binary, "sweep", "--spawn", "2", "--uri", withPW, "--concurrency", "1,2", "--warmup", "200ms",
		"--duration", "1500ms", "--records", "200", "--out", out, "--agent-timeout", "30s")
	stdout, stderr, done := startCaught(t, cmd)
	seen := map[int]string{} // every descendant's command line, as read
	// A child between its fork and its exec still shows the launcher's
	// memory, so its command line is the launcher's own (which holds the
	// password because the user typed it there); only what a child runs
	// as, after its exec, is the launcher's doing.
	launcher := strings.Join(cmd.Args, " ") + " "
	deadline := time.After(3 * time.Minute)
	var runErr error
watch:
	for {
		for _, p := range descendants(cmd.Process.Pid) {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
			if err != nil || len(b) == 0 {
				continue
			}
			line := strings.ReplaceAll(string(b), "\x00", " ")
			if line == launcher {
				continue
			}
			_, before := seen[p]
			seen[p] = line
			if strings.Contains(line, password) && !before {
				t.Errorf("process %d has the password on its command line: %s", p, line)
			}
		}
		select {
		case runErr = <-done:
			break watch
		case <-deadline:
			cmd.Process.Kill()
			<-done
			t.Fatalf("the spawned run did not end; stderr:\n%s", stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if runErr != nil {
		t.Fatalf("spawn: %v\nstdout:\n%s\nstderr:\n%s", runErr, stdout.String(), stderr.String())
	}
	agents := 0
	for p, line := range seen {
		t.Logf("pid %d: %s", p, line)
		if strings.Contains(line, "--agent-index") {
			agents++
		}
	}
	if agents < 2 {
		t.Fatalf("saw %d agent command lines, want both agents': the check would prove nothing", agents)
	}
	if strings.Contains(stdout.String()+stderr.String(), password) {
		t.Errorf("the launcher printed the password")
	}
	var files []string
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files = append(files, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(password)) {
			t.Errorf("%s holds the password", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"agent-0.log", "agent-1.log", "agent-0/results.jsonl", "agent-1/results.jsonl", "results.jsonl"} {
		if !slices.Contains(files, filepath.Join(out, want)) {
			t.Errorf("no %s among %v: the check of the files would prove nothing", want, files)
		}
	}
}

// TestSpawnRefusesForeignCollection: --spawn against a deployment whose
// collection holds documents poolsweep did not create is bad input: it is
// refused before any agent starts (exit 2, one line naming --database),
// within seconds rather than after --agent-timeout, and leaves nothing
// behind: no output directory, no poolsweep_agents collection.
func TestSpawnRefusesForeignCollection(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the simulator")
	}
	uri := testsrv.Sim(t, "slots=4,service=1ms").URI()
	c := testsrv.Connect(t, uri)
	ctx := context.Background()
	if _, err := c.Database("poolsweep").Collection("usertable").InsertOne(ctx, bson.D{{Key: "_id", Value: "someone-elses"}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	began := time.Now()
	code, stdout, stderr := runBinary(t, dir, 2*time.Minute, "sweep", "--spawn", "2", "--uri", uri, "--concurrency", "1", "--warmup", "200ms",
		"--duration", "1s", "--records", "100", "--out", out)
	took := time.Since(began)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := lines[len(lines)-1]
	if code != errext.ExitUsage || !strings.Contains(last, "--database") || !strings.Contains(last, "did not create") {
		t.Errorf("exit %d, last line %q; want 2 and a line naming --database\nstdout:\n%s\nstderr:\n%s", code, last, stdout, stderr)
	}
	if strings.Contains(stderr, "spawned") {
		t.Errorf("agents were started:\n%s", stderr)
	}
	if took > 30*time.Second {
		t.Errorf("refused after %s, want seconds (the agent timeout is 1m)", took.Round(time.Second))
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the output directory was created (%v)", err)
	}
	names, err := c.Database("poolsweep").ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names, agents.Collection) || slices.Contains(names, workload.MetaCollection) {
		t.Errorf("collections left behind: %v", names)
	}
}
