package procgroup

import (
	"os/exec"
	"syscall"
)

// Own makes cmd, not yet started, the leader of a process group of its
// own: Ctrl-C at the terminal (and SIGHUP when it closes) goes to
// poolsweep alone, which ends its step and then stops the child, instead
// of the child dying mid-step. Pdeathsig still takes the child along if
// poolsweep is killed.
func Own(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// Kill ends the process group that the started cmd leads (Own) at once.
func Kill(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
