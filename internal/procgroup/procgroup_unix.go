//go:build unix && !linux

package procgroup

import (
	"os/exec"
	"syscall"
)

// Own makes cmd, not yet started, the leader of a process group of its
// own, as on Linux. No Pdeathsig here: a child that outlives a killed
// poolsweep finds its standard input closed, and the server and the
// agents stop on that.
func Own(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// Kill ends the process group that the started cmd leads (Own) at once.
func Kill(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
