package cmdutil

import (
	"fmt"
	"os"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/topology"
)

// SameFile says whether two paths name one existing file (compare's and
// report's two runs must be two).
func SameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// FileArgs are the files a command's arguments name, as the inputs its
// outputs must not replace (outfile.Input): each is "the KIND", or
// "KIND 2" when there are several.
func FileArgs(kind string, args []string) []outfile.Input {
	ins := make([]outfile.Input, len(args))
	for i, a := range args {
		what := "the " + kind
		if len(args) > 1 {
			what = fmt.Sprintf("%s %d", kind, i+1)
		}
		ins[i] = outfile.Input{What: what, Path: a}
	}
	return ins
}

// FlagFile is the file flag names, as an input ("the --storm file"); none
// when path is "".
func FlagFile(flag, path string) []outfile.Input {
	if path == "" {
		return nil
	}
	return []outfile.Input{{What: "the " + flag + " file", Path: path}}
}

// NotInput refuses out, the file flag names for the command to write,
// when it is one of the files the command reads (outfile.CheckNotInput),
// as one line naming flag, before anything is read or written.
func NotInput(flag, out string, ins []outfile.Input) error {
	if err := outfile.CheckNotInput(out, ins...); err != nil {
		return errext.Usagef("%s: %w", flag, err)
	}
	return nil
}

// NotInputIn refuses dir, the directory flag names for the command to
// write the entries mayWrite names into, when one of those entries is a
// file the command reads (outfile.CheckNotInputIn), as one line naming
// flag.
func NotInputIn(flag, dir string, mayWrite func(string) bool, ins []outfile.Input) error {
	if err := outfile.CheckNotInputIn(dir, mayWrite, ins...); err != nil {
		return errext.Usagef("%s: %w", flag, err)
	}
	return nil
}

// URIFiles are the files a URI that flag gives names for the driver to
// read (its TLS certificates and keys), as inputs: "the tlsCAFile of
// --uri".
func URIFiles(flag, uri string) []outfile.Input {
	var ins []outfile.Input
	for _, f := range topology.URIFiles(uri) {
		ins = append(ins, outfile.Input{What: "the " + f.Option + " of " + flag, Path: f.Path})
	}
	return ins
}
