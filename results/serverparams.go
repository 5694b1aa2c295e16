package results

import (
	"strings"
)

// ServerParam is a server parameter's value on a --server-param axis
// (sweep --server-param NAME=V1,V2): the series runs with Name set to
// Value on every host it was set on. Read is what getParameter read back
// on each host after setting it, before the step's first window (absent
// in the series' definition, present in a step's record).
type ServerParam struct {
	Name  string            `json:"name"`
	Value string            `json:"value"`
	Read  []ServerParamRead `json:"read,omitempty"`
}

// ServerParamRead is one host's value of a parameter as getParameter
// answered it, in its extended-JSON text.
type ServerParamRead struct {
	Host  string `json:"host"`
	Value string `json:"value"`
}

// ParamLabel is the label words of a series that runs with params:
// " NAME=V" each, in the order given.
func ParamLabel(params []ServerParam) string {
	var b strings.Builder
	for _, p := range params {
		b.WriteString(" " + p.Name + "=" + p.Value)
	}
	return b.String()
}

// AxisServerParam is the series axis of server parameter name.
func AxisServerParam(name string) Axis { return Axis("server parameter " + name) }

// serverParamName is the parameter an axis names, or "".
func (a Axis) serverParamName() string {
	name, _ := strings.CutPrefix(string(a), "server parameter ")
	if name == string(a) {
		return ""
	}
	return name
}

// paramValue is the step's value of server parameter name, or "".
func (s *StepResult) paramValue(name string) string {
	for _, p := range s.ServerParams {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// parseParamAxis reads "NAME=V" as a value of a server parameter's axis:
// a name of letters, digits, '.' and '_' (the server's parameter names),
// and a value with no space.
func parseParamAxis(s string) (Axis, string, bool) {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" || value == "" || strings.ContainsAny(value, " \t") {
		return "", "", false
	}
	for _, r := range name {
		if !(r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "", "", false
		}
	}
	return AxisServerParam(name), value, true
}
