package results

import (
	"encoding"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// schemaDoc is the user's description of every record and field.
const schemaDoc = "../docs/results-schema.md"

// The document's convention, which TestSchemaDocumented holds it to:
//
//   - A section that documents a Go type starts with the line
//     <!-- type: Name --> (Name as in this package); its rows run to the
//     next such line.
//   - A row is a Markdown table row whose first cell is the field's JSON
//     path in backticks, relative to that type: `plan.concurrency`,
//     `targets[].name` (an element of an array), `ops_by_type.<op>.count`
//     (the value under any key of an object; the word in <> is free).
//   - Every row has five cells: path, type, unit, when null or absent,
//     meaning; the last is never empty.
//   - A field whose type has a section of its own (say LatencySummary) has
//     a row of its own; its fields are in that type's section, not repeated.
var (
	typeMarker = regexp.MustCompile(`^<!-- type: (\w+) -->$`)
	pathCell   = regexp.MustCompile("^\\| `([^`]+)` \\|")
	mapKey     = regexp.MustCompile(`<[^>]*>`)
)

// docRow is one documented field: its cells, and where it is.
type docRow struct {
	cells []string
	line  int
}

// readSchemaDoc parses the document into rows by type and path.
func readSchemaDoc(t *testing.T) map[string]map[string]docRow {
	t.Helper()
	b, err := os.ReadFile(schemaDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string]map[string]docRow{}
	var section string
	for i, line := range strings.Split(string(b), "\n") {
		if m := typeMarker.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			section = m[1]
			if doc[section] != nil {
				t.Errorf("%s:%d: a second section for type %s", schemaDoc, i+1, section)
			}
			doc[section] = map[string]docRow{}
			continue
		}
		m := pathCell.FindStringSubmatch(line)
		if m == nil || section == "" {
			continue
		}
		path := mapKey.ReplaceAllString(m[1], "<key>")
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		if _, dup := doc[section][path]; dup {
			t.Errorf("%s:%d: %s %s is documented twice", schemaDoc, i+1, section, path)
		}
		doc[section][path] = docRow{cells: cells, line: i + 1}
	}
	return doc
}

// schemaField is one JSON field as the types define it.
type schemaField struct {
	section, path string
}

// schemaFields walks the record types by reflection: every JSON field of
// every struct reachable from them, as the paths the document must have.
// Types with a section of their own are walked from their own root.
func schemaFields(sections map[string]map[string]docRow) []schemaField {
	var out []schemaField
	done := map[reflect.Type]bool{}
	var walkType func(section string, t reflect.Type)
	var walkStruct func(section, prefix string, t reflect.Type)
	walkStruct = func(section, prefix string, t reflect.Type) {
		for f := range t.Fields() {
			if f.Anonymous && f.Tag.Get("json") == "" && f.Type.Kind() == reflect.Struct {
				// encoding/json writes an embedded struct's fields as the
				// outer one's.
				walkStruct(section, prefix, f.Type)
				continue
			}
			name := jsonName(f)
			if name == "" {
				continue
			}
			path := prefix + name
			out = append(out, schemaField{section, path})
			et, suffix := f.Type, ""
			for {
				switch et.Kind() {
				case reflect.Pointer:
					et = et.Elem()
					continue
				case reflect.Slice, reflect.Array:
					et, suffix = et.Elem(), suffix+"[]"
					continue
				case reflect.Map:
					et, suffix = et.Elem(), suffix+".<key>"
					continue
				}
				break
			}
			if et.Kind() != reflect.Struct || isLeaf(et) {
				continue
			}
			if _, own := sections[et.Name()]; own && et.PkgPath() == t.PkgPath() {
				walkType(et.Name(), et)
				continue
			}
			walkStruct(section, path+suffix+".", et)
		}
	}
	walkType = func(section string, t reflect.Type) {
		if done[t] {
			return
		}
		done[t] = true
		walkStruct(section, "", t)
	}
	for _, rec := range []any{RunHeader{}, StepResult{}, StormResult{}, EndRecord{}} {
		t := reflect.TypeOf(rec)
		walkType(t.Name(), t)
	}
	return out
}

// jsonName is the key a field is written under, "" when it is not.
func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	if name, _, _ := strings.Cut(tag, ","); name != "" {
		return name
	}
	return f.Name
}

// isLeaf says a struct is written as one JSON value (time.Time).
func isLeaf(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(reflect.TypeFor[json.Marshaler]()) || p.Implements(reflect.TypeFor[encoding.TextMarshaler]())
}

// TestSchemaDocumented: every JSON field of every record is in
// docs/results-schema.md with its type, unit, when it is null and what it
// means, and the document describes no field that does not exist.
func TestSchemaDocumented(t *testing.T) {
	doc := readSchemaDoc(t)
	for _, rec := range []string{"RunHeader", "StepResult", "StormResult", "EndRecord"} {
		if doc[rec] == nil {
			t.Fatalf("%s has no section <!-- type: %s -->", schemaDoc, rec)
		}
	}
	fields := schemaFields(doc)
	have := map[schemaField]bool{}
	for _, f := range fields {
		have[f] = true
		row, ok := doc[f.section][f.path]
		if !ok {
			t.Errorf("%s: field %s of %s is not documented (add a row | `%s` | type | unit | null/absent | meaning |)", schemaDoc, f.path, f.section, f.path)
			continue
		}
		if len(row.cells) != 5 || row.cells[4] == "" {
			t.Errorf("%s:%d: %s %s: want 5 cells (path, type, unit, null/absent, meaning), the last not empty; have %q", schemaDoc, row.line, f.section, f.path, row.cells)
		}
	}
	for section, rows := range doc {
		for path, row := range rows {
			if !have[schemaField{section, path}] {
				t.Errorf("%s:%d: %s documents %s, which %s does not have", schemaDoc, row.line, section, path, section)
			}
		}
	}
	if len(fields) < 150 {
		t.Errorf("the walk found %d fields; the record types have more", len(fields))
	}
	if testing.Verbose() {
		var lines []string
		for _, f := range fields {
			lines = append(lines, fmt.Sprintf("%s %s", f.section, f.path))
		}
		slices.Sort(lines)
		t.Log("fields:\n" + strings.Join(lines, "\n"))
	}
}
