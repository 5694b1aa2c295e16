package sweep

import (
	"bytes"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/workload"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// sweep --workload-file takes a YCSB property file or a poolsweep
// workload file (shapes and shares from a log, made by `workload
// from-log`), told apart by what the file holds. This file is the
// replay's part of the flag.

// replayWorkloadFile reads data (the file --workload-file names) as a
// poolsweep workload file when it is one (ok), and makes its replay:
// poolsweep's copies for the writes go to base's database. A workload
// file that is bad is a usage error naming the file and line; ok is false
// for any other file, which is then read as a property file.
func replayWorkloadFile(o *Options, base workload.Workload, data []byte) (w workload.Workload, ok bool, err error) {
	if !isWorkloadFile(data) {
		return w, false, nil
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

// isWorkloadFile reports whether data is a workload file rather than a
// property file, by its content past a byte-order mark, blank lines and
// comments: JSON (a workload file from-log wrote with --format json is
// YAML too), a YAML document marker, or a "kind:" key at a line's start
// (a property file has key=value lines, and YCSB has no key "kind").
func isWorkloadFile(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	first := true
	for line := range bytes.Lines(data) {
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		if first && (trimmed[0] == '{' || bytes.HasPrefix(trimmed, []byte("---"))) {
			return true
		}
		first = false
		if bytes.HasPrefix(line, []byte("kind:")) {
			return true
		}
	}
	return false
}
