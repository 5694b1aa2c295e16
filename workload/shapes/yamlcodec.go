package shapes

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
	"gopkg.in/yaml.v3"
)

// shapeYAML is Shape as the file spells it: the documents are kept as
// YAML nodes so that their key order (which MongoDB reads: a sort's keys,
// a pipeline's stages) survives the round trip.
type shapeYAML struct {
	ID             string                  `yaml:"id"`
	Name           string                  `yaml:"name"`
	Database       string                  `yaml:"database"`
	Collection     string                  `yaml:"collection"`
	Command        string                  `yaml:"command"`
	Share          float64                 `yaml:"share"`
	Count          int64                   `yaml:"count"`
	Filter         yaml.Node               `yaml:"filter,omitempty"`
	Projection     yaml.Node               `yaml:"projection,omitempty"`
	Sort           yaml.Node               `yaml:"sort,omitempty"`
	Limit          *int64                  `yaml:"limit,omitempty"`
	Skip           *int64                  `yaml:"skip,omitempty"`
	Pipeline       yaml.Node               `yaml:"pipeline,omitempty"`
	Update         yaml.Node               `yaml:"update,omitempty"`
	UpdatePipeline yaml.Node               `yaml:"update_pipeline,omitempty"`
	Multi          bool                    `yaml:"multi,omitempty"`
	Upsert         bool                    `yaml:"upsert,omitempty"`
	Remove         bool                    `yaml:"remove,omitempty"`
	Key            string                  `yaml:"key,omitempty"`
	InsertDocs     int                     `yaml:"insert_docs,omitempty"`
	Values         map[string]Distribution `yaml:"values,omitempty"`
	DocBytes       *Summary                `yaml:"doc_bytes,omitempty"`
	Observed       Observed                `yaml:"observed"`
}

type fileYAML struct {
	Kind    string      `yaml:"kind"`
	Version int         `yaml:"version"`
	Source  Source      `yaml:"source"`
	Caveats []string    `yaml:"caveats,omitempty"`
	Shapes  []shapeYAML `yaml:"shapes"`
}

// Marshal is the file as YAML, the bytes the CLI writes through
// internal/outfile. It validates first: a file that would not read back
// is never written.
func (f *File) Marshal() ([]byte, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	fy := fileYAML{Kind: f.Kind, Version: f.Version, Source: f.Source, Caveats: f.Caveats}
	for i := range f.Shapes {
		sy, err := toYAML(&f.Shapes[i])
		if err != nil {
			return nil, fmt.Errorf("shapes[%d]: %w", i, err)
		}
		fy.Shapes = append(fy.Shapes, sy)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&fy); err != nil {
		return nil, err // the caller names the file
	}
	if err := enc.Close(); err != nil {
		return nil, err // the caller names the file
	}
	return buf.Bytes(), nil
}

func toYAML(s *Shape) (shapeYAML, error) {
	sy := shapeYAML{ID: s.ID, Name: s.Name, Database: s.Database, Collection: s.Collection, Command: s.Command,
		Share: s.Share, Count: s.Count, Limit: s.Limit, Skip: s.Skip, Multi: s.Multi, Upsert: s.Upsert,
		Remove: s.Remove, Key: s.Key, InsertDocs: s.InsertDocs, Values: s.Values, DocBytes: s.DocBytes,
		Observed: s.Observed}
	var err error
	doc := func(d bson.D, name string) yaml.Node {
		if d == nil || err != nil {
			return yaml.Node{}
		}
		var n *yaml.Node
		if n, err = toNode(d, 0); err != nil {
			err = fmt.Errorf("%s: %w", name, err)
			return yaml.Node{}
		}
		return *n
	}
	stages := func(p []bson.D, name string) yaml.Node {
		if p == nil || err != nil {
			return yaml.Node{}
		}
		a := make(bson.A, len(p))
		for i := range p {
			a[i] = p[i]
		}
		var n *yaml.Node
		if n, err = toNode(a, 0); err != nil {
			err = fmt.Errorf("%s: %w", name, err)
			return yaml.Node{}
		}
		n.Style = 0 // one stage a line reads better than one long line
		return *n
	}
	sy.Filter = doc(s.Filter, "filter")
	sy.Projection = doc(s.Projection, "projection")
	sy.Sort = doc(s.Sort, "sort")
	sy.Update = doc(s.Update, "update")
	sy.Pipeline = stages(s.Pipeline, "pipeline")
	sy.UpdatePipeline = stages(s.UpdatePipeline, "update_pipeline")
	return sy, err
}

var errDepth = errors.New("nested deeper than the format allows")

// toNode is a document or value as a YAML node, in flow style so that a
// filter reads as it would in the shell.
func toNode(v any, depth int) (*yaml.Node, error) {
	if depth > MaxDepth {
		return nil, errDepth
	}
	switch x := v.(type) {
	case bson.D:
		n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		for _, e := range x {
			val, err := toNode(e.Value, depth+1)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e.Key}, val)
		}
		return n, nil
	case bson.A:
		return seqNode([]any(x), depth)
	case []any:
		return seqNode(x, depth)
	case string, bool, nil, int, int32, int64, float64:
		if f, ok := x.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return nil, errors.New("a number that is not finite")
		}
		n := &yaml.Node{}
		if err := n.Encode(x); err != nil {
			return nil, err
		}
		return n, nil
	}
	return nil, fmt.Errorf("a value of type %T, which a shape does not hold (literals are placeholders)", v)
}

func seqNode(a []any, depth int) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, e := range a {
		val, err := toNode(e, depth+1)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, val)
	}
	return n, nil
}

// lineError is an error at a line of the file being parsed.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return e.msg }

// fromNode is a YAML node as a BSON value: mappings are bson.D (order
// kept), sequences bson.A, integers int64, other numbers float64.
func fromNode(n *yaml.Node, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, &lineError{n.Line, errDepth.Error()}
	}
	switch n.Kind {
	case yaml.MappingNode:
		d := make(bson.D, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!null" {
				return nil, &lineError{k.Line, "a key that is not a string"}
			}
			v, err := fromNode(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			d = append(d, bson.E{Key: k.Value, Value: v})
		}
		return d, nil
	case yaml.SequenceNode:
		a := make(bson.A, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := fromNode(c, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		return a, nil
	case yaml.ScalarNode:
		var err error
		switch n.ShortTag() {
		case "!!str":
			return n.Value, nil
		case "!!int":
			var i int64
			if err = n.Decode(&i); err == nil {
				return i, nil
			}
		case "!!float":
			var f float64
			if err = n.Decode(&f); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f, nil
			}
		case "!!bool":
			var b bool
			if err = n.Decode(&b); err == nil {
				return b, nil
			}
		case "!!null":
			return nil, nil
		}
		return nil, &lineError{n.Line, "a value a shape cannot hold (strings, finite numbers, booleans and null)"}
	case yaml.AliasNode:
		return nil, &lineError{n.Line, "an alias (a shape's documents are written out in full)"}
	}
	return nil, &lineError{n.Line, "a value a shape cannot hold"}
}

func docFromNode(n *yaml.Node) (bson.D, error) {
	if n.Kind == 0 {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, &lineError{n.Line, "not a document (a mapping)"}
	}
	v, err := fromNode(n, 0)
	if err != nil {
		return nil, err
	}
	return v.(bson.D), nil
}

func stagesFromNode(n *yaml.Node) ([]bson.D, error) {
	if n.Kind == 0 {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, &lineError{n.Line, "not a list of stages"}
	}
	out := make([]bson.D, 0, len(n.Content))
	for _, c := range n.Content {
		d, err := docFromNode(c)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// MarshalYAML writes a distribution's values and weights on one line
// each: a thousand values a line apiece would bury the file's shapes.
func (d Distribution) MarshalYAML() (any, error) {
	type plain Distribution
	var n yaml.Node
	if err := n.Encode(plain(d)); err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k == "values" || k == "weights" {
			n.Content[i+1].Style = yaml.FlowStyle
		}
	}
	return &n, nil
}
