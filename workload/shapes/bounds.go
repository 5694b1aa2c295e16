package shapes

import (
	"fmt"
	"math"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/mongoname"
)

// Bounds on what one shape may make the replay build, whatever the file
// declares: a file is refused when it reads (exit 2, naming the field),
// never when a worker meets it mid-step.
const (
	// MaxCommandBytes is the largest command a shape may build: MongoDB
	// takes documents of at most 16 MiB (maxBSONObjectSize), and a command
	// is one. Instantiate stops building past it (values sampled from a
	// collection are not known when the file is read).
	MaxCommandBytes = 16 << 20
	// MaxArrayLength is the most elements an "?array<…>" placeholder's
	// length may ask for: more would not fit MaxCommandBytes (an element
	// takes at least a type byte, its index and a byte of value).
	MaxArrayLength = 1 << 20
	// maxIntegerDraw bounds an integer distribution's min and max: a
	// BSON integer is an int64, and 2^63 is float64(math.MaxInt64).
	maxIntegerDraw = 1 << 63
)

// checkBounds is what is wrong with s beyond its fields one by one: its
// namespace (MongoDB's rules, internal/mongoname, as --database is held
// to), documents a file can hold (nested at most MaxDepth, UTF-8, values
// a shape holds) and the text fields' UTF-8.
func (s *Shape) checkBounds() *FieldError {
	bad := func(field, msg string) *FieldError { return &FieldError{Field: field, Msg: msg} }
	if err := mongoname.Database(s.Database); err != nil {
		return bad("database", err.Error())
	}
	if err := mongoname.Collection(s.Database, s.Collection); err != nil {
		return bad("collection", err.Error())
	}
	for _, sec := range s.sections() {
		if msg := checkValue(sec.v, 0); msg != "" {
			return bad(sec.name, msg)
		}
	}
	for _, f := range []struct{ name, v string }{{"name", s.Name}, {"key", s.Key}, {"observed.plan", s.Observed.Plan}} {
		if !utf8.ValidString(f.v) {
			return bad(f.name, "not UTF-8")
		}
	}
	for _, a := range s.Observed.Apps {
		if !utf8.ValidString(a) {
			return bad("observed.apps", "not UTF-8")
		}
	}
	if msg := checkSummaries(s); msg != "" {
		return bad("observed", msg)
	}
	return nil
}

// checkSize refuses a shape whose command, at the lengths and largest
// values its (checked) distributions declare, MongoDB would not take.
func (s *Shape) checkSize() *FieldError {
	if n := s.maxCommandBytes(); n > MaxCommandBytes {
		return &FieldError{Field: "values", Msg: fmt.Sprintf("the command it builds can reach %d MiB at the lengths and values the file gives; MongoDB takes %d MiB", n>>20, MaxCommandBytes>>20)}
	}
	return nil
}

// checkValue is what a file cannot hold in v (a document or a value at
// depth), or "": what Marshal and the JSON writer refuse, said before.
func checkValue(v any, depth int) string {
	if depth > MaxDepth {
		return errDepth.Error()
	}
	switch x := v.(type) {
	case bson.D:
		for _, e := range x {
			if !utf8.ValidString(e.Key) {
				return "a key that is not UTF-8"
			}
			if msg := checkValue(e.Value, depth+1); msg != "" {
				return msg
			}
		}
	case bson.A:
		for _, e := range x {
			if msg := checkValue(e, depth+1); msg != "" {
				return msg
			}
		}
	case string:
		if !utf8.ValidString(x) {
			return "a string that is not UTF-8"
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "a number that is not finite"
		}
	case bool, nil, int, int32, int64:
	default:
		return "a value a shape cannot hold (strings, finite numbers, booleans and null)"
	}
	return ""
}

// checkSummaries: every summary a shape keeps is finite (JSON has no
// infinity, so a file with one could not be written as JSON).
func checkSummaries(s *Shape) string {
	sums := []*Summary{s.DocBytes, s.Observed.LatencyMs, s.Observed.DocsExamined, s.Observed.KeysExamined, s.Observed.NReturned}
	for _, m := range sums {
		if m == nil {
			continue
		}
		for _, x := range []float64{m.Mean, m.P50, m.P99, m.Max} {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return "a mean or percentile that is not finite"
			}
		}
	}
	return ""
}

// checkBounds is what is wrong with a distribution's declared sizes and
// ranges, or "": an array length the command can hold, and integer draws
// within int64.
func (d *Distribution) checkBounds() string {
	for _, v := range d.Values {
		if s, ok := v.(string); ok && !utf8.ValidString(s) {
			return "an entry with a string that is not UTF-8"
		}
	}
	if l := d.Length; l != nil {
		for _, x := range []float64{l.Mean, l.P50, l.P99, l.Max} {
			if !(x >= 0 && x <= MaxArrayLength) {
				return fmt.Sprintf("an entry whose length is not between 0 and %d elements", MaxArrayLength)
			}
		}
	}
	if (d.Integer || d.Dist == DistZipfian) && len(d.Values) == 0 && (d.Min < -maxIntegerDraw || d.Max > maxIntegerDraw) {
		return "an integer entry whose min or max is beyond a 64-bit integer's range"
	}
	return ""
}

// MaxCommandBytes is about the largest command the shape builds from
// what its file declares (values sampled from a collection counted at a
// fixed value's size): what a worker holds per call, for the sweep's
// memory estimate.
func (s *Shape) MaxCommandBytes() int64 { return s.maxCommandBytes() }

// maxCommandBytes is about the largest command s builds: its documents
// with every placeholder at its largest declared value, an array's at
// its length. Values sampled from a collection are counted at a fixed
// value's size; Instantiate bounds what they add.
func (s *Shape) maxCommandBytes() int64 {
	var n int64 = 64 + int64(len(s.Collection)) + int64(len(s.Key))
	for _, sec := range s.sections() {
		n += s.valueBytes(sec.name, sec.v, 0)
		if n > MaxCommandBytes {
			return n
		}
	}
	return n
}

func (s *Shape) valueBytes(path string, v any, depth int) int64 {
	switch x := v.(type) {
	case bson.D:
		n := int64(5)
		for _, e := range x {
			n += int64(len(e.Key)) + 2 + s.valueBytes(path+"."+e.Key, e.Value, depth+1)
		}
		return n
	case bson.A:
		n := int64(5)
		for i, e := range x {
			n += 8 + s.valueBytes(fmt.Sprint(path, ".", i), e, depth+1)
		}
		return n
	case string:
		typ, elem, ok := ParsePlaceholder(x)
		if !ok {
			return int64(len(x)) + 5
		}
		d, has := s.Values[path]
		if typ != "array" {
			return d.largest(has)
		}
		if elem == "" {
			return 5
		}
		length := 1.0
		if has && d.Length != nil {
			length = math.Round(d.Length.P50)
		}
		return 5 + int64(length)*(8+d.largest(has))
	}
	return 16
}

// largest is about the BSON size of the largest value the distribution
// draws (a fixed value's when there is none to draw from).
func (d *Distribution) largest(has bool) int64 {
	n := int64(16)
	if !has {
		return n
	}
	for _, v := range d.Values {
		if s, ok := v.(string); ok {
			n = max(n, int64(len(s))+5)
		}
	}
	return n
}

// Check says what is wrong with one shape, naming the field, by the
// rules Validate holds each shape of a file to: a shape derived from an
// operation is checked before it is counted, so that an operation whose
// shape no file could hold is left out on its own.
func (s *Shape) Check() error {
	if err := s.validate(); err != nil {
		return err
	}
	return nil
}

// CheckLiteral says what is wrong with a literal a file's values could
// not hold (a string that is not UTF-8, an array longer than
// MaxArrayLength), or "".
func CheckLiteral(l Literal) string {
	if l.Array && len(l.Values) > MaxArrayLength {
		return fmt.Sprintf("an array of more than %d elements", MaxArrayLength)
	}
	for _, v := range l.Values {
		if s, ok := v.(string); ok && !utf8.ValidString(s) {
			return "a string that is not UTF-8"
		}
	}
	return ""
}
