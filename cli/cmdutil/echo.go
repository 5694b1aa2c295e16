package cmdutil

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/topology"
)

// An error names what the user gave as a short token (textfmt.Token), and
// never quotes what a file holds. The checks themselves say so where they
// name a value; this file is the net under them, where an error becomes
// the one line: an error that still echoes a long value of the command
// line (an os.PathError's path, a driver's copy of a URI, a message
// nobody cut) gets the token in its place, and no line is longer than
// MaxLineBytes.

// maxEchoBytes is the longest value of the command line an error may
// still hold whole: a path or a URI of a usual length stays readable (its
// end is where it differs), and a 100-kB value is cut to its token.
const maxEchoBytes = 256

// MaxLineBytes bounds every line SafeLine makes (textfmt.LineMax).
const MaxLineBytes = textfmt.LineMax

// echoSafeError is err with every long value of the command line in its
// text replaced by the value's token; errors.Is and errors.As see err.
type echoSafeError struct {
	err    error
	values []string // longest first
}

// ShortValues wraps err (nil stays nil) so that its message cuts the long
// values of args (longValues) to their tokens.
func ShortValues(err error, args []string) error {
	if err == nil {
		return nil
	}
	vs := longValues(args)
	if len(vs) == 0 {
		return err
	}
	return echoSafeError{err: err, values: vs}
}

func (e echoSafeError) Unwrap() error { return e.err }

// Error replaces each value, in every form a message writes it (as is,
// escaped, Go-quoted, redacted), first by a mark that redaction leaves
// alone, then by the token of its redacted form: a URI cut to its first
// runes can no longer be recognised as one, so it is redacted whole
// before it is cut.
func (e echoSafeError) Error() string {
	s := e.err.Error()
	marks := make([]string, len(e.values))
	tokens := make([]string, len(e.values))
	for i, v := range e.values {
		marks[i] = fmt.Sprintf("\x00%d\x00", i)
		redacted := v
		if strings.ContainsAny(v, ":@") { // only a URI or credentials need it (redaction's regexps cost)
			redacted = topology.Redact(v)
		}
		for _, f := range valueForms(v, redacted) {
			s = strings.ReplaceAll(s, f, marks[i])
		}
		tokens[i] = textfmt.Token(redacted)
	}
	s = topology.Redact(s)
	for i := range e.values {
		s = strings.ReplaceAll(s, marks[i], tokens[i])
	}
	return s
}

// valueForms are the ways a message may hold v (or its redacted form),
// longest first so that a quoted form goes before the bare value inside
// it.
func valueForms(v, redacted string) []string {
	var forms []string
	for _, x := range []string{v, redacted} {
		if textfmt.IsPrintable(x) && !strings.ContainsAny(x, `"\`) {
			forms = append(forms, `"`+x+`"`, x) // what Quote and Escape make of it
			continue
		}
		q := strconv.Quote(x)
		forms = append(forms, q, textfmt.Escape(textfmt.Quote(x)), q[1:len(q)-1], textfmt.Escape(x), x)
	}
	slices.SortStableFunc(forms, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(forms)
}

// longValues are the values of args longer than maxEchoBytes: each
// argument, the value of --flag=value, and what follows a shorthand
// (-oVALUE), longest first.
func longValues(args []string) []string {
	var out []string
	add := func(s string) {
		if len(s) > maxEchoBytes && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, a := range args {
		add(a)
		if strings.HasPrefix(a, "--") {
			if _, v, ok := strings.Cut(a, "="); ok {
				add(v)
			}
			add(strings.TrimPrefix(a, "--"))
		} else if strings.HasPrefix(a, "-") && len(a) > 2 {
			add(a[2:])
			add(strings.TrimPrefix(a[2:], "="))
			add(a[1:])
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// SafeLine makes s fit for one line of a terminal (textfmt.Line): only
// its first line, its control characters escaped, at most MaxLineBytes.
func SafeLine(s string) string { return textfmt.Line(s) }

// FlagError turns pflag's errors into the one line every bad input gets,
// naming the flag and never quoting more of what was typed than a token:
// "--max-connecting: 4294967296 is not between 1 and 1024". pflag's own
// text quotes the value whole ("invalid argument "…" for "--x" flag").
func FlagError(err error) error {
	var (
		ive *pflag.InvalidValueError
		ne  *pflag.NotExistError
		vre *pflag.ValueRequiredError
		ise *pflag.InvalidSyntaxError
	)
	switch {
	case errors.As(err, &ive):
		f := ive.GetFlag()
		if f.Value.Type() == "bool" {
			return errext.Usagef("--%s: a switch takes no value, or true or false, not %s", f.Name, textfmt.Token(ive.GetValue()))
		}
		return errext.Usagef("--%s: %w", f.Name, ive.Unwrap())
	case errors.As(err, &ne):
		if s := ne.GetSpecifiedShortnames(); s != "" {
			return errext.Usagef("unknown shorthand flag in -%s; see --help", textfmt.Short(s))
		}
		return errext.Usagef("unknown flag --%s; see --help", textfmt.Short(ne.GetSpecifiedName()))
	case errors.As(err, &vre):
		if f := vre.GetFlag(); f != nil {
			return errext.Usagef("--%s: needs a value", f.Name)
		}
		return errext.Usagef("a flag needs a value: -%s", textfmt.Short(vre.GetSpecifiedShortnames()))
	case errors.As(err, &ise):
		return errext.Usagef("bad flag syntax: %s", textfmt.Short(ise.GetSpecifiedFlag()))
	}
	return errext.UsageError{Err: err}
}
