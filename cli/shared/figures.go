package shared

import (
	"fmt"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/plot"
)

// WriteFigures writes figs into dir, the directory the flag named (made
// if absent, by outfile's rules), and returns the paths written. A
// figure's file that outfile refuses there is the flag's usage error,
// found before anything is written or any of the figures' notes is
// printed.
func WriteFigures(e *cmdutil.Env, flag, dir string, figs []plot.Figure, notes []string) ([]string, error) {
	if err := plot.CheckFiles(dir, figs); err != nil {
		return nil, errext.Usagef("%s: %w", flag, err)
	}
	for _, n := range notes {
		fmt.Fprintln(e.Stderr, "note:", n)
	}
	if err := outfile.MakeDir(dir); err != nil {
		return nil, errext.Usagef("%s: %w", flag, err)
	}
	return plot.WriteFiles(dir, figs)
}
