package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// sharedSims are simulator processes (`poolsweep serve --sim SPEC`) shared
// by the parallel tests of a group that neither stop nor kill their
// server: one process per spec for the whole test binary, started by the
// first test that asks and ended by TestMain.
var sharedSims struct {
	mu   sync.Mutex
	byID map[string]*sharedSim
}

type sharedSim struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	addr  string // host:port
	err   error
}

// sharedSimAddr is the address of the shared simulator of spec.
func sharedSimAddr(t *testing.T, spec string) string {
	t.Helper()
	sharedSims.mu.Lock()
	defer sharedSims.mu.Unlock()
	if sharedSims.byID == nil {
		sharedSims.byID = map[string]*sharedSim{}
	}
	s := sharedSims.byID[spec]
	if s == nil {
		s = startSharedSim(spec)
		sharedSims.byID[spec] = s
	}
	if s.err != nil {
		t.Fatalf("shared simulator %s: %v", spec, s.err)
	}
	return s.addr
}

func startSharedSim(spec string) *sharedSim {
	s := &sharedSim{cmd: exec.Command(binary, "serve", "--sim", spec)}
	var stdout io.Reader
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err == nil {
		stdout, err = s.cmd.StdoutPipe()
	}
	if err == nil {
		err = s.cmd.Start()
	}
	if err != nil {
		s.err = err
		return s
	}
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(l)
	}()
	select {
	case uri := <-line:
		if !strings.HasPrefix(uri, "mongodb://") {
			s.err = fmt.Errorf("serve printed %q", uri)
		}
		s.addr, _, _ = strings.Cut(strings.TrimPrefix(uri, "mongodb://"), "/")
	case <-time.After(60 * time.Second):
		s.err = fmt.Errorf("serve printed no URI within 60 s")
	}
	if s.err != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
	return s
}

// stopSharedSims ends every shared simulator: a closed stdin is how a
// parent tells serve to exit; one that does not is killed.
func stopSharedSims() {
	sharedSims.mu.Lock()
	defer sharedSims.mu.Unlock()
	for _, s := range sharedSims.byID {
		if s.err != nil {
			continue
		}
		s.stdin.Close()
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			s.cmd.Process.Kill()
			<-done
		}
	}
}
