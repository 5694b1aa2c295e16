package procgroup

import (
	"os/exec"
	"syscall"
)

// Own starts cmd in a console process group of its own, so that Ctrl-C at
// the console goes to poolsweep alone, which ends its step and then stops
// the child. A child that outlives a killed poolsweep finds its standard
// input closed, and the server and the agents stop on that.
func Own(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// Kill ends the started cmd at once (TerminateProcess; its own children,
// which poolsweep's children do not start, are not in a group to end).
func Kill(cmd *exec.Cmd) error {
	return cmd.Process.Kill()
}
