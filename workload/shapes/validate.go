package shapes

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/workload/internal/zipf"
)

// shareTolerance is how far from 1 a file's shares may sum: a file edited
// by hand (0.3, 0.3, 0.4) sums to 1 within float rounding, not exactly.
const shareTolerance = 1e-6

// maxZipfRange is the most integers a zipfian over Min..Max may span (its
// constant takes O(n) to compute, once).
const maxZipfRange = 10_000_000

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`)

// FieldError is a workload file that is wrong in one field: which shape
// and field, and what is wrong. It never holds the field's value.
type FieldError struct {
	Field string
	Line  int // where Parse found the shape; 0 for a File built in code
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Validate says whether the file is one the replay can run: its kind and
// version, every shape's command and the documents it needs, shares that
// sum to 1, placeholders of known types, and distributions that can draw.
func (f *File) Validate() error {
	switch {
	case f.Kind != Kind:
		return &FieldError{Field: "kind", Msg: "must be " + Kind}
	case f.Version != Version:
		return &FieldError{Field: "version", Msg: "must be " + strconv.Itoa(Version)}
	case len(f.Shapes) == 0:
		return &FieldError{Field: "shapes", Msg: "none: a workload needs at least one shape"}
	case len(f.Shapes) > MaxShapes:
		return &FieldError{Field: "shapes", Msg: fmt.Sprintf("%d, more than the %d a file may hold", len(f.Shapes), MaxShapes)}
	}
	if f.Source.SampleRate != nil && !(*f.Source.SampleRate > 0 && *f.Source.SampleRate <= 1) {
		return &FieldError{Field: "source.sample_rate", Msg: "must be above 0 and at most 1"}
	}
	if f.Source.SlowMs != nil && (*f.Source.SlowMs < 0 || math.IsNaN(*f.Source.SlowMs)) {
		return &FieldError{Field: "source.slowms", Msg: "must be 0 or more"}
	}
	ids := map[string]int{}
	sum := 0.0
	for i := range f.Shapes {
		s := &f.Shapes[i]
		field := fmt.Sprintf("shapes[%d]", i)
		if err := s.validate(); err != nil {
			return &FieldError{Field: field + "." + err.Field, Line: s.line, Msg: err.Msg}
		}
		if j, dup := ids[s.ID]; dup {
			return &FieldError{Field: field + ".id", Line: s.line, Msg: fmt.Sprintf("the same as shapes[%d]'s", j)}
		}
		ids[s.ID] = i
		sum += s.Share
	}
	if math.Abs(sum-1) > shareTolerance {
		return &FieldError{Field: "shapes", Msg: fmt.Sprintf("shares sum to %.6g, not 1", sum)}
	}
	return nil
}

func (s *Shape) validate() *FieldError {
	bad := func(field, msg string) *FieldError { return &FieldError{Field: field, Msg: msg} }
	switch {
	case !idPattern.MatchString(s.ID):
		return bad("id", "must be 1 to 40 letters, digits, '-' or '_'")
	case s.Database == "":
		return bad("database", "missing")
	case s.Collection == "":
		return bad("collection", "missing")
	case !slices.Contains(Commands, s.Command):
		return bad("command", "must be one of "+strings.Join(Commands, ", "))
	case !(s.Share >= 0 && s.Share <= 1):
		return bad("share", "must be between 0 and 1")
	case s.Count < 0:
		return bad("count", "must be 0 or more")
	case s.Limit != nil && *s.Limit < 0:
		return bad("limit", "must be 0 or more")
	case s.Skip != nil && *s.Skip < 0:
		return bad("skip", "must be 0 or more")
	case s.InsertDocs < 0 || s.InsertDocs > 100_000:
		return bad("insert_docs", "must be 0 to 100000")
	}
	switch s.Command {
	case CmdAggregate:
		if len(s.Pipeline) == 0 {
			return bad("pipeline", "missing: an aggregate shape needs its stages")
		}
	case CmdUpdate:
		if s.Update == nil && s.UpdatePipeline == nil {
			return bad("update", "missing: an update shape needs its update")
		}
	case CmdFindAndModify:
		if !s.Remove && s.Update == nil && s.UpdatePipeline == nil {
			return bad("update", "missing: a findAndModify shape needs its update or remove: true")
		}
	case CmdDistinct:
		if s.Key == "" {
			return bad("key", "missing: a distinct shape needs its field")
		}
	}
	if err := s.checkBounds(); err != nil {
		return err
	}
	paths := map[string]string{}
	for _, sec := range s.sections() {
		if err := collectPlaceholders(sec.name, sec.v, paths); err != nil {
			return err
		}
	}
	for _, path := range sortedKeys(s.Values) {
		d := s.Values[path]
		if _, ok := paths[path]; !ok {
			return bad("values", "an entry whose path names no placeholder of the shape")
		}
		if msg := d.check(); msg != "" {
			return bad("values", msg)
		}
	}
	return s.checkSize()
}

type section struct {
	name string
	v    any
}

// sections are the shape's documents by the names their placeholders'
// paths start with.
func (s *Shape) sections() []section {
	stages := func(p []bson.D) bson.A {
		a := make(bson.A, len(p))
		for i := range p {
			a[i] = p[i]
		}
		return a
	}
	return []section{{"filter", s.Filter}, {"projection", s.Projection}, {"sort", s.Sort}, {"update", s.Update},
		{"pipeline", stages(s.Pipeline)}, {"update_pipeline", stages(s.UpdatePipeline)}}
}

// Placeholders lists the shape's placeholders by path, with their types
// ("string", or "array<?string>"'s "array").
func (s *Shape) Placeholders() map[string]string {
	paths := map[string]string{}
	for _, sec := range s.sections() {
		_ = collectPlaceholders(sec.name, sec.v, paths)
	}
	return paths
}

func collectPlaceholders(path string, v any, into map[string]string) *FieldError {
	switch x := v.(type) {
	case bson.D:
		for _, e := range x {
			if err := collectPlaceholders(path+"."+e.Key, e.Value, into); err != nil {
				return err
			}
		}
	case bson.A:
		for i, e := range x {
			if err := collectPlaceholders(path+"."+strconv.Itoa(i), e, into); err != nil {
				return err
			}
		}
	case string:
		if strings.HasPrefix(x, "?") {
			typ, _, ok := ParsePlaceholder(x)
			if !ok {
				sec, _, _ := strings.Cut(path, ".")
				return &FieldError{Field: sec, Msg: "a placeholder of a type the format does not have"}
			}
			into[path] = typ
		}
	}
	return nil
}

// check is what is wrong with the distribution, or "".
func (d *Distribution) check() string {
	if d.Type == "" {
		return "an entry without its type"
	}
	if len(d.Values) > MaxValues {
		return fmt.Sprintf("an entry with more than %d values", MaxValues)
	}
	for _, v := range d.Values {
		switch x := v.(type) {
		case string, int64, bool:
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return "an entry with a number that is not finite"
			}
		default:
			return "an entry with a value that is not a string, number or boolean"
		}
	}
	for _, w := range d.Weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return "an entry with a weight that is not a finite number of 0 or more"
		}
	}
	if math.IsNaN(d.Min) || math.IsNaN(d.Max) || math.IsInf(d.Min, 0) || math.IsInf(d.Max, 0) {
		return "an entry with a min or max that is not finite"
	}
	if msg := d.checkBounds(); msg != "" {
		return msg
	}
	switch d.Dist {
	case DistEmpirical:
		if len(d.Values) == 0 {
			return "an empirical entry without values"
		}
		if len(d.Weights) != len(d.Values) {
			return "an empirical entry whose weights and values differ in number"
		}
		total := 0.0
		for _, w := range d.Weights {
			total += w
		}
		if total <= 0 {
			return "an empirical entry whose weights sum to 0"
		}
	case DistUniform:
		if len(d.Values) == 0 && d.Min > d.Max {
			return "a uniform entry whose min is above its max"
		}
	case DistZipfian:
		if !(d.Theta > 0 && d.Theta < 10) {
			return "a zipfian entry whose theta is not above 0 (and below 10)"
		}
		if len(d.Values) == 0 {
			span := math.Floor(d.Max) - math.Ceil(d.Min) + 1
			switch {
			case span < 1:
				return "a zipfian entry without values, whose min is above its max"
			case span > maxZipfRange:
				return fmt.Sprintf("a zipfian entry over more than %d integers", maxZipfRange)
			case span > zipf.ExactMax && d.Theta >= 1:
				return fmt.Sprintf("a zipfian entry over more than %d integers needs theta below 1", zipf.ExactMax)
			}
		}
	default:
		return "an entry whose dist is not empirical, uniform or zipfian"
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
