package cmdutil

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/internal/decimal"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/topology"
)

// Every flag but a switch is declared here with what it accepts: a number
// with its range, a word from a closed set, a list, or text with the check
// it gets. The value's Set refuses anything else while the command line is
// parsed, before anything starts, and the run says so in one line naming
// the flag (exit 2). The hostile-input test (TestHostileFlags) walks every
// command's flags and reads the same declarations, so a new flag cannot
// escape it: one registered any other way fails that test.

// Declared is a flag value registered through this file.
type Declared interface {
	pflag.Value
	// Accepts says what the flag takes, for the hostile test's log.
	Accepts() string
}

// numberValue is a number within [lo, hi] (an end excluded when open):
// a whole number, a finite decimal, or a duration.
type numberValue[T int | uint64 | float64 | time.Duration] struct {
	p              *T
	lo, hi         T
	openLo, openHi bool
	kind           string // pflag's Type(): int, uint64, float, percent, duration
	// least is the smallest magnitude of a nonzero float taken beyond
	// internal/decimal's (which refuses denormals): a percentage nearer 0
	// than MinPercent means nothing a flag could act on.
	least float64
}

// MinPercent is the smallest nonzero percentage a percentage flag takes:
// one part in ten thousand, finer than anything poolsweep measures.
const MinPercent = 0.01

// numberKinds parse each kind of number strictly: no spaces, no base
// prefixes, nothing that is not finite.
func (v *numberValue[T]) parse(s string) (T, error) {
	var zero T
	switch any(zero).(type) {
	case int:
		n, err := strconv.ParseInt(s, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return zero, v.outside(s)
		}
		if err != nil {
			return zero, fmt.Errorf("%s is not a whole number", textfmt.Token(s))
		}
		if n < int64(math.MinInt) || n > int64(math.MaxInt) {
			return zero, v.outside(s)
		}
		return T(n), nil
	case uint64:
		if strings.HasPrefix(s, "-") {
			if _, err := strconv.ParseInt(s, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
				return zero, v.outside(s)
			}
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return zero, v.outside(s)
		}
		if err != nil {
			return zero, fmt.Errorf("%s is not a whole number", textfmt.Token(s))
		}
		return T(n), nil
	case float64:
		num := s
		if v.kind == "percent" {
			num = strings.TrimSuffix(s, "%")
		}
		// One rule for what a number is (internal/decimal): no hex, no
		// underscores, nothing that is not finite, no denormal.
		f, err := decimal.Parse(num)
		if errors.Is(err, decimal.ErrRange) {
			return zero, v.outside(s)
		}
		if err != nil {
			return zero, fmt.Errorf("%s is not a finite decimal number", textfmt.Token(s))
		}
		if f != 0 && math.Abs(f) < v.least {
			return zero, v.outside(s)
		}
		return T(f), nil
	default:
		d, err := time.ParseDuration(s)
		if err != nil {
			return zero, fmt.Errorf("%s is not a duration (say 500ms, 30s, 2h)", textfmt.Token(s))
		}
		return T(d), nil
	}
}

// show writes a bound or a value as the flag is written.
func (v *numberValue[T]) show(x T) string {
	switch x := any(x).(type) {
	case time.Duration:
		if x == 0 {
			return "0s"
		}
		return hours(x)
	case float64:
		if v.kind == "percent" {
			return strconv.FormatFloat(x, 'g', -1, 64) + "%"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(x)
}

// span is the range in words: "between 1 and 1000", "above 0 and below
// 1".
func (v *numberValue[T]) span() string {
	lo, hi := v.show(v.lo), v.show(v.hi)
	if v.least > 0 && float64(v.lo) == 0 && !v.openLo {
		// 0 itself, then the nonzero values from least.
		return "0 or between " + v.show(T(v.least)) + " and " + hi
	}
	switch {
	case v.openLo && v.openHi:
		return "above " + lo + " and below " + hi
	case v.openLo:
		return "above " + lo + " and at most " + hi
	case v.openHi:
		return "at least " + lo + " and below " + hi
	}
	return "between " + lo + " and " + hi
}

func (v *numberValue[T]) outside(s string) error {
	return fmt.Errorf("%s is not %s", textfmt.Short(s), v.span())
}

func (v *numberValue[T]) Set(s string) error {
	x, err := v.parse(s)
	if err != nil {
		return err
	}
	if x < v.lo || x > v.hi || (v.openLo && x == v.lo) || (v.openHi && x == v.hi) {
		return v.outside(s)
	}
	*v.p = x
	return nil
}

func (v *numberValue[T]) String() string {
	if v.p == nil {
		return ""
	}
	if d, ok := any(*v.p).(time.Duration); ok {
		return d.String()
	}
	return v.show(*v.p)
}

func (v *numberValue[T]) Type() string    { return v.kind }
func (v *numberValue[T]) Accepts() string { return v.kind + " " + v.span() }

// Limits is the range as numbers (durations in nanoseconds), for the
// hostile test to check what was accepted by its own parse.
func (v *numberValue[T]) Limits() (lo, hi float64, openLo, openHi bool) {
	return float64(v.lo), float64(v.hi), v.openLo, v.openHi
}

// Least is the smallest magnitude of a nonzero value taken (0: any), for
// the hostile test likewise.
func (v *numberValue[T]) Least() float64 { return v.least }

// IntVar registers an int flag that takes lo to hi. def may lie outside
// (a default that means "as the target kind says").
func IntVar(f *pflag.FlagSet, p *int, name string, def, lo, hi int, usage string) {
	*p = def
	f.Var(&numberValue[int]{p: p, lo: lo, hi: hi, kind: "int"}, name, usage)
}

// Uint64Var registers a uint64 flag that takes lo to hi.
func Uint64Var(f *pflag.FlagSet, p *uint64, name string, def, lo, hi uint64, usage string) {
	*p = def
	f.Var(&numberValue[uint64]{p: p, lo: lo, hi: hi, kind: "uint64"}, name, usage)
}

// FloatVar registers a float flag that takes lo to hi, an end excluded
// when open.
func FloatVar(f *pflag.FlagSet, p *float64, name string, def, lo, hi float64, openLo, openHi bool, usage string) {
	*p = def
	f.Var(&numberValue[float64]{p: p, lo: lo, hi: hi, openLo: openLo, openHi: openHi, kind: "float"}, name, usage)
}

// PercentVar registers a percentage flag, written 5% or 5, that takes lo
// to hi; where lo is 0, the nonzero values start at MinPercent. A command
// that must tell "not given" from 0 asks the flag set whether it changed.
func PercentVar(f *pflag.FlagSet, p *float64, name string, def, lo, hi float64, usage string) {
	*p = def
	f.Var(&numberValue[float64]{p: p, lo: lo, hi: hi, kind: "percent", least: MinPercent}, name, usage)
}

// DurationVar registers a duration flag that takes lo to hi.
func DurationVar(f *pflag.FlagSet, p *time.Duration, name string, def, lo, hi time.Duration, usage string) {
	*p = def
	f.Var(&numberValue[time.Duration]{p: p, lo: lo, hi: hi, kind: "duration"}, name, usage)
	if def == 0 {
		f.Lookup(name).DefValue = "0" // help shows no default of 0, as for pflag's own durations
	}
}

// choiceValue is one word of a closed set, or (list) a comma-separated
// list of them.
type choiceValue struct {
	p       *string
	choices []string
	list    bool
}

func (v *choiceValue) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errEmpty
	}
	words := []string{s}
	if v.list {
		words = strings.Split(s, ",")
	}
	for i, w := range words {
		if !slices.Contains(v.choices, strings.TrimSpace(w)) {
			return fmt.Errorf("%s is not %s", textfmt.Token(w), orList(v.choices))
		}
		words[i] = strings.TrimSpace(w)
	}
	// As taken: "--progress ' json'" is json, not a word nothing matches.
	*v.p = strings.Join(words, ",")
	return nil
}

func (v *choiceValue) String() string { return *v.p }
func (v *choiceValue) Type() string   { return "string" }

// Choices are the words the flag takes, and whether it takes a list of
// them, for the hostile test to judge what was accepted.
func (v *choiceValue) Choices() (choices []string, list bool) { return v.choices, v.list }
func (v *choiceValue) Accepts() string {
	if v.list {
		return "a list of " + orList(v.choices)
	}
	return orList(v.choices)
}

// orList is "a, b or c".
func orList(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// ChoiceVar registers a flag that takes one of choices (or, list, a
// comma-separated list of them).
func ChoiceVar(f *pflag.FlagSet, p *string, name, def string, choices []string, list bool, usage string) {
	*p = def
	f.Var(&choiceValue{p: p, choices: choices, list: list}, name, usage)
}

// textValue is text checked by check (nil: by the command that uses it,
// as what says: a path through outfile, a URI through topology).
type textValue struct {
	p     *string
	check func(string) error
	what  string
}

// errEmpty refuses an empty value: it is never what was meant ("--uri ”"
// must not quietly sweep the embedded server).
var errEmpty = errors.New("an empty value")

func (v *textValue) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errEmpty
	}
	if v.check != nil {
		if err := v.check(s); err != nil {
			return err
		}
	}
	*v.p = s
	return nil
}

func (v *textValue) String() string  { return *v.p }
func (v *textValue) Type() string    { return "string" }
func (v *textValue) Accepts() string { return v.what }

// TextVar registers a text flag: what it is, and the check its value gets
// while the command line is parsed (nil when its command checks it).
func TextVar(f *pflag.FlagSet, p *string, name, def, what string, check func(string) error, usage string) {
	*p = def
	f.Var(&textValue{p: p, check: check, what: what}, name, usage)
}

// TextVarP is TextVar with a one-letter shorthand.
func TextVarP(f *pflag.FlagSet, p *string, name, short, def, what string, check func(string) error, usage string) {
	*p = def
	f.VarP(&textValue{p: p, check: check, what: what}, name, short, usage)
}

// textArrayValue is a repeatable text flag, each value checked by check.
type textArrayValue struct {
	p     *[]string
	check func(string) error
	what  string
	set   bool
}

func (v *textArrayValue) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errEmpty
	}
	if err := v.check(s); err != nil {
		return err
	}
	if !v.set {
		*v.p, v.set = nil, true
	}
	*v.p = append(*v.p, s)
	return nil
}

func (v *textArrayValue) String() string {
	if len(*v.p) == 0 {
		return "" // help shows no empty default
	}
	return "[" + strings.Join(*v.p, ",") + "]"
}
func (v *textArrayValue) Type() string    { return "stringArray" }
func (v *textArrayValue) Accepts() string { return v.what }

// GetSlice, Append and Replace make it a pflag.SliceValue, as pflag's own
// string arrays are (the root's check for empty values reads them).
func (v *textArrayValue) GetSlice() []string    { return *v.p }
func (v *textArrayValue) Append(s string) error { return v.Set(s) }
func (v *textArrayValue) Replace(ss []string) error {
	*v.p, v.set = nil, true
	for _, s := range ss {
		if err := v.Set(s); err != nil {
			return err
		}
	}
	return nil
}

// TextArrayVar registers a repeatable text flag, each value checked.
func TextArrayVar(f *pflag.FlagSet, p *[]string, name, what string, check func(string) error, usage string) {
	f.Var(&textArrayValue{p: p, check: check, what: what}, name, usage)
}

// levelsValue is a list of levels (--concurrency, --pool, --rate): values,
// geometric and linear ranges, each level from 1 to max; "match" too when
// match is set.
type levelsValue struct {
	textValue
	max   int
	match bool
}

// Levels are the highest level the flag takes and whether it takes
// "match", for the hostile test to judge what was accepted.
func (v *levelsValue) Levels() (max int, match bool) { return v.max, v.match }

// LevelsVar registers a list-of-levels flag; parse is plan.ParseLevels or
// the sweep's levelsOrSpan (passed in so this file has no plan of its own).
func LevelsVar(f *pflag.FlagSet, p *string, name, def string, max int, match bool, parse func(string, int) ([]int, error), usage string) {
	*p = def
	f.Var(newLevelsValue(p, max, match, parse), name, usage)
}

func newLevelsValue(p *string, max int, match bool, parse func(string, int) ([]int, error)) *levelsValue {
	v := &levelsValue{max: max, match: match}
	v.textValue = textValue{p: p, what: fmt.Sprintf("levels from 1 to %d", max), check: func(s string) error {
		if match && strings.TrimSpace(s) == "match" {
			return nil
		}
		_, err := parse(s, max)
		return err
	}}
	return v
}

// namedLevelsValue is a repeatable list-of-levels flag whose values are
// LIST, the levels of every target, or NAME=LIST, one target's own: the
// NAME=URI form of --target, with its rule for names. LIST given again
// replaces it, as every one-value flag's last value wins; a second list
// for one NAME is refused, as --target refuses a name used twice.
type namedLevelsValue struct {
	levelsValue           // LIST, into its *p
	named       *[]string // NAME=LIST values, as given
	parseNamed  func(string, int) ([]int, error)
	given       []string
}

func (v *namedLevelsValue) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errEmpty
	}
	name, list, isNamed := strings.Cut(s, "=")
	switch {
	case !isNamed:
		if err := v.levelsValue.Set(s); err != nil {
			return err
		}
	default:
		name = strings.TrimSpace(name)
		if err := topology.CheckTargetName(name); err != nil {
			return err
		}
		for _, n := range *v.named {
			if before, _, _ := strings.Cut(n, "="); before == name {
				return fmt.Errorf("target %s: its levels are given twice", name)
			}
		}
		if strings.TrimSpace(list) == "" {
			return fmt.Errorf("target %s: %w", name, errEmpty)
		}
		if _, err := v.parseNamed(list, v.max); err != nil {
			return fmt.Errorf("target %s: %w", name, err)
		}
		*v.named = append(*v.named, name+"="+strings.TrimSpace(list))
	}
	v.given = append(v.given, s)
	return nil
}

func (v *namedLevelsValue) String() string {
	return strings.Join(v.given, " ")
}
func (v *namedLevelsValue) Type() string { return "stringArray" }
func (v *namedLevelsValue) Accepts() string {
	return v.levelsValue.Accepts() + ", or NAME=LIST for one target's own"
}

// GetSlice, Append and Replace make it a pflag.SliceValue, as the other
// repeatable flags are.
func (v *namedLevelsValue) GetSlice() []string    { return v.given }
func (v *namedLevelsValue) Append(s string) error { return v.Set(s) }
func (v *namedLevelsValue) Replace(ss []string) error {
	*v.p, *v.named, v.given = "", nil, nil
	for _, s := range ss {
		if err := v.Set(s); err != nil {
			return err
		}
	}
	return nil
}

// NamedLevelsVar registers a repeatable list-of-levels flag: LIST (into
// *p, checked by parse, as LevelsVar's) for every target, or NAME=LIST
// (into *named, checked by parseNamed) for the target NAME alone. Which
// names are targets is the command's to check.
func NamedLevelsVar(f *pflag.FlagSet, p *string, named *[]string, name, def string, max int, parse, parseNamed func(string, int) ([]int, error), usage string) {
	*p = def
	f.Var(&namedLevelsValue{levelsValue: *newLevelsValue(p, max, false, parse), named: named, parseNamed: parseNamed}, name, usage)
}

// hours writes a whole number of hours as "168h", as the flags' help
// writes their bounds; any other duration as time.Duration does.
func hours(d time.Duration) string {
	if d%time.Hour == 0 {
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return d.String()
}
