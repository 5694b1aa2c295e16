package cmdutil

import (
	"errors"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// ArgsUsage is a cobra check of the arguments with a usage error, an
// argument it quotes ("unknown command "…"") shown as its token.
func ArgsUsage(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			msg := err.Error()
			for _, a := range args {
				msg = strings.ReplaceAll(msg, strconv.Quote(a), textfmt.Token(a))
			}
			return errext.UsageError{Err: errors.New(msg)}
		}
		return nil
	}
}

// RefuseEmpty refuses an empty value of any text flag cmd was given: an
// empty value is never what was meant ("--uri ”" must not quietly sweep
// the embedded server). The root runs it before every command.
func RefuseEmpty(cmd *cobra.Command, _ []string) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		switch v := f.Value.(type) {
		case pflag.SliceValue:
			for _, s := range v.GetSlice() {
				if strings.TrimSpace(s) == "" {
					err = errext.Usagef("--%s: an empty value", f.Name)
				}
			}
		default:
			if f.Value.Type() == "string" && strings.TrimSpace(f.Value.String()) == "" {
				err = errext.Usagef("--%s: an empty value", f.Name)
			}
		}
	})
	return err
}
