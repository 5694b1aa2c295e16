package sweep

import (
	"bytes"
	"context"
	"io"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/workload"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// sweep --workload-file takes a YCSB property file or a poolsweep
// workload file (issue 35: shapes and shares from a log, made by
// `workload from-log`), told apart by the workload file's first key,
// "kind:". This file is the replay's part of the flag.

// replayWorkloadFile reads path as a poolsweep workload file when it is
// one (ok), and makes its replay: poolsweep's copies for the writes go to
// base's database. A file that says it is one and is bad is a usage
// error naming the file and line; ok is false for any other file, which
// is then read as a property file.
func replayWorkloadFile(o *Options, base workload.Workload) (w workload.Workload, ok bool, err error) {
	data, err := cmdutil.ReadInput(context.Background(), "--workload-file", o.workloadFile, shapes.MaxFileBytes, io.ReadAll)
	if err != nil || !isWorkloadFile(data) {
		return w, false, err
	}
	for _, flag := range []string{"records", "distribution"} {
		if o.changed(flag) {
			return w, true, errext.Usagef("--%s: a replayed workload file (--workload-file %s) runs its own shapes on the collections it names", flag, textfmt.Token(o.workloadFile))
		}
	}
	f, err := shapes.Parse(data, o.workloadFile)
	if err != nil {
		return w, true, errext.Usagef("--workload-file: %w", textfmt.EscapeError(err))
	}
	r, err := workload.NewReplay(f, o.workloadFile, workload.ReplayOptions{Database: base.Database})
	if err != nil {
		return w, true, errext.Usagef("--workload-file: %w", textfmt.EscapeError(err))
	}
	w = base
	w.Name, w.Label, w.File, w.Replay = "replay", "replay", o.workloadFile, r
	return w, true, nil
}

// isWorkloadFile reports whether data's first key, past comments and
// blank lines, is a workload file's "kind:" (a property file has
// key=value lines).
func isWorkloadFile(data []byte) bool {
	for line := range bytes.Lines(data) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' || bytes.Equal(line, []byte("---")) {
			continue
		}
		return bytes.HasPrefix(line, []byte("kind:"))
	}
	return false
}
