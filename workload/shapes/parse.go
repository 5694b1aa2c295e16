package shapes

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// ParseError is a workload file's error at a line: the file, the line and
// what was wrong, never what the line held.
type ParseError struct {
	File  string
	Line  int // 0 when the error is of the whole file
	Field string
	Msg   string
}

func (e *ParseError) Error() string { return textfmt.At(e.File, e.Line, e.Field) + e.Msg }

var yamlLine = regexp.MustCompile(`line (\d+)`)

// Parse reads a workload file's bytes (name is the file's name, for
// errors) and validates it. YAML's own messages quote what they could not
// read, so they are replaced by the line and a description.
func Parse(data []byte, name string) (*File, error) {
	if len(data) > MaxFileBytes {
		return nil, &ParseError{File: name, Msg: fmt.Sprintf("larger than %d MiB", MaxFileBytes>>20)}
	}
	// A byte-order mark (an editor's) is not content; YAML's reader
	// would take it for a key's first character.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &ParseError{File: name, Line: yamlErrLine(err), Msg: "not valid YAML"}
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, &ParseError{File: name, Msg: "not a workload file (a YAML mapping with kind: " + Kind + ")"}
	}
	var fy fileYAML
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&fy); err != nil {
		msg := "a value of the wrong type"
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			if strings.Contains(te.Errors[0], "not found in type") {
				msg = "a key the format does not have"
			}
			return nil, &ParseError{File: name, Line: yamlErrLine(errors.New(te.Errors[0])), Msg: msg}
		}
		return nil, &ParseError{File: name, Line: yamlErrLine(err), Msg: "not valid YAML"}
	}
	f := &File{Kind: fy.Kind, Version: fy.Version, Source: fy.Source, Caveats: fy.Caveats}
	shapeNodes := childSeq(root.Content[0], "shapes")
	for i := range fy.Shapes {
		s, err := fromYAML(&fy.Shapes[i])
		if err != nil {
			var le *lineError
			if errors.As(err, &le) {
				return nil, &ParseError{File: name, Line: le.line, Field: fmt.Sprintf("shapes[%d]", i), Msg: le.msg}
			}
			return nil, &ParseError{File: name, Field: fmt.Sprintf("shapes[%d]", i), Msg: err.Error()}
		}
		if i < len(shapeNodes) {
			s.line = shapeNodes[i].Line
		}
		f.Shapes = append(f.Shapes, s)
	}
	if err := f.Validate(); err != nil {
		pe := &ParseError{File: name, Msg: err.Error()}
		var fe *FieldError
		if errors.As(err, &fe) {
			pe.Field, pe.Msg, pe.Line = fe.Field, fe.Msg, fe.Line
		}
		return nil, pe
	}
	return f, nil
}

func yamlErrLine(err error) int {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// childSeq is the items of the sequence under key in mapping m.
func childSeq(m *yaml.Node, key string) []*yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i+1].Kind == yaml.SequenceNode {
			return m.Content[i+1].Content
		}
	}
	return nil
}

func fromYAML(sy *shapeYAML) (Shape, error) {
	s := Shape{ID: sy.ID, Name: sy.Name, Database: sy.Database, Collection: sy.Collection, Command: sy.Command,
		Share: sy.Share, Count: sy.Count, Limit: sy.Limit, Skip: sy.Skip, Multi: sy.Multi, Upsert: sy.Upsert,
		Remove: sy.Remove, Key: sy.Key, InsertDocs: sy.InsertDocs, Values: sy.Values, DocBytes: sy.DocBytes,
		Observed: sy.Observed}
	var err error
	if s.Filter, err = docFromNode(&sy.Filter); err != nil {
		return s, err
	}
	if s.Projection, err = docFromNode(&sy.Projection); err != nil {
		return s, err
	}
	if s.Sort, err = docFromNode(&sy.Sort); err != nil {
		return s, err
	}
	if s.Update, err = docFromNode(&sy.Update); err != nil {
		return s, err
	}
	if s.Pipeline, err = stagesFromNode(&sy.Pipeline); err != nil {
		return s, err
	}
	if s.UpdatePipeline, err = stagesFromNode(&sy.UpdatePipeline); err != nil {
		return s, err
	}
	for k, d := range s.Values {
		for i, v := range d.Values {
			d.Values[i] = normalizeNumber(v)
		}
		s.Values[k] = d
	}
	return s, nil
}

// normalizeNumber makes YAML's int an int64, the one integer type shapes hold.
func normalizeNumber(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case uint64:
		return float64(x)
	}
	return v
}
