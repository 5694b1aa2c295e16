package root

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// progressMode is the --progress a command line asks for ("json",
// "text", or "" when it names none), read from the raw arguments before
// cobra parses them: with json every line of stderr is a JSON object
// (docs/progress.md), so the refusal of the command line itself (an
// unknown flag, a value out of range, a missing argument, an unknown
// command) must be one too, and cobra's parse is what refuses it.
//
// The arguments are read as pflag reads them, with the flags of the
// command they name: a flag that takes a value takes the next argument
// whatever it is ("--out --progress" names a directory "--progress"), a
// switch does not, "--" ends the flags, and the last --progress wins.
// The value is trimmed, as the flag's own parse trims it (choiceValue).
// --progress is looked for even where the command has no such flag (an
// unknown flag that asks for json is refused in json), and before the
// command's name.
func progressMode(root *cobra.Command, args []string) string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		cmd = root
	}
	fs := pflag.NewFlagSet("progress", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.ParseErrorsAllowlist.UnknownFlags = true
	var progress lastValue
	add := func(f *pflag.Flag) {
		if fs.Lookup(f.Name) != nil || f.Shorthand != "" && fs.ShorthandLookup(f.Shorthand) != nil {
			return
		}
		var v pflag.Value = &lastValue{}
		if f.Name == "progress" {
			v = &progress
		}
		fs.VarPF(v, f.Name, f.Shorthand, "").NoOptDefVal = f.NoOptDefVal
	}
	cmd.Flags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	// The flags cobra adds as it executes.
	add(&pflag.Flag{Name: "help", Shorthand: "h", NoOptDefVal: "true"})
	if cmd == root {
		add(&pflag.Flag{Name: "version", Shorthand: "v", NoOptDefVal: "true"})
	}
	add(&pflag.Flag{Name: "progress"})
	// A parse error (a flag missing its value) ends the reading; what was
	// read before it stands.
	_ = fs.Parse(args)
	return strings.TrimSpace(progress.v)
}

// lastValue takes any value; the last one given stays.
type lastValue struct{ v string }

func (l *lastValue) Set(s string) error { l.v = s; return nil }
func (l *lastValue) String() string     { return l.v }
func (l *lastValue) Type() string       { return "string" }
