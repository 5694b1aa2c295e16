package knee

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/sweep"
)

// FromResults turns decoded results files into series, one per target ×
// workload × pool setting × clients, in the order they first appear.
// Interrupted steps are left out (their window was cut short) and said so
// in the series' warnings.
func FromResults(rs []*sweep.Results) []Series {
	type key struct {
		target, workload, pool string
		clients                int
	}
	var order []key
	by := map[key]*Series{}
	files := map[key]map[string]bool{}
	skipped := map[key]int{}
	for _, res := range rs {
		if res == nil {
			continue
		}
		targets := map[string]sweep.TargetHeader{}
		for _, t := range res.Header.Targets {
			targets[t.Name] = t
		}
		for _, st := range res.Steps {
			k := key{st.Target, st.Workload, st.PoolSetting, max(st.Clients, 1)}
			s, ok := by[k]
			if !ok {
				s = &Series{Target: st.Target, Workload: st.Workload, Pool: st.PoolSetting, Clients: k.clients, Hosts: 1}
				if t, ok := targets[st.Target]; ok {
					s.Topology = t.Topology
					s.Hosts = max(len(t.Hosts), 1)
				}
				by[k] = s
				files[k] = map[string]bool{}
				order = append(order, k)
			}
			files[k][res.Path] = true
			if st.Interrupted {
				skipped[k]++
				continue
			}
			sif, hasSIF := serverInFlight(&st)
			s.Points = append(s.Points, Point{
				ServerInFlight:    sif,
				HasServerInFlight: hasSIF,
				Concurrency:       st.Concurrency,
				Connections:       st.Connections,
				QPS:               st.OpsPerS,
				CallsPerS:         st.CallsPerS,
				P99Ms:             st.Latency.P99,
				HasP99:            st.Calls > 0,
				PoolWaitP99Ms:     st.Pool.CheckoutWait.P99,
				MeanLatencyMs:     st.Latency.Mean,
				MaxPoolSize:       st.MaxPoolSize,
				Trial:             st.Trial,
				Bound:             st.Bound,
				BoundReason:       st.BoundReason,
			})
		}
	}
	out := make([]Series, 0, len(order))
	for _, k := range order {
		s := by[k]
		if n := skipped[k]; n > 0 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%d interrupted step(s) left out", n))
		}
		if n := len(files[k]); n > 1 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("steps from %d files were combined as trials of one series", n))
		}
		out = append(out, *s)
	}
	return out
}

// InputError locates a problem in a CSV input: the file, the 1-based line
// (0 when the problem is the whole file), and the column when one is at
// fault. It prints as "file:line: column: problem".
type InputError struct {
	File   string
	Line   int
	Column string
	Err    error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Column != "" {
		b.WriteString(e.Column + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

// Errors that ReadCSV wraps in an InputError, for errors.Is.
var (
	ErrNotNumber     = errors.New("not a number")
	ErrMissingColumn = errors.New("missing column")
	ErrNoRows        = errors.New("no data rows")
)

// ReadCSV reads a table with a header row: `concurrency` (or
// `connections`) and `qps` are required; `p99_ms`, `target`, `pool`,
// `trial`, `clients` and `workload` are optional; other columns are
// ignored so a spreadsheet export works as is. Rows group into series by
// target × workload × pool × clients; a missing target is name.
func ReadCSV(r io.Reader, name string) ([]Series, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = false
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &InputError{File: name, Line: 1, Err: fmt.Errorf("%w: the file is empty, want a header row", ErrNoRows)}
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if h == "" {
			continue
		}
		if _, dup := col[h]; dup {
			return nil, &InputError{File: name, Line: 1, Column: h, Err: errors.New("appears twice in the header")}
		}
		col[h] = i
	}
	xcol := "concurrency"
	if _, ok := col[xcol]; !ok {
		xcol = "connections"
	}
	for _, c := range []string{xcol, "qps"} {
		if _, ok := col[c]; !ok {
			want := c
			if c == "connections" {
				want = "concurrency (or connections)"
			}
			return nil, &InputError{File: name, Line: 1, Err: fmt.Errorf("%w %s (header has %s)", ErrMissingColumn, want, strings.Join(header, ","))}
		}
	}

	type key struct {
		target, workload, pool string
		clients                int
	}
	var order []key
	by := map[key]*Series{}
	rows := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		cell := func(c string) (string, bool) {
			i, ok := col[c]
			if !ok || i >= len(rec) {
				return "", false
			}
			return strings.TrimSpace(rec[i]), true
		}
		bad := func(c string, err error) error { return &InputError{File: name, Line: line, Column: c, Err: err} }

		p := Point{}
		v, _ := cell(xcol)
		if p.Concurrency, err = positiveInt(v); err != nil {
			return nil, bad(xcol, err)
		}
		if v, ok := cell("connections"); ok && xcol != "connections" && v != "" {
			if p.Connections, err = positiveInt(v); err != nil {
				return nil, bad("connections", err)
			}
		}
		v, _ = cell("qps")
		if p.QPS, err = nonNegative(v); err != nil {
			return nil, bad("qps", err)
		}
		if v, ok := cell("p99_ms"); ok && v != "" {
			if p.P99Ms, err = nonNegative(v); err != nil {
				return nil, bad("p99_ms", err)
			}
			p.HasP99 = true
		}
		if v, ok := cell("trial"); ok && v != "" {
			if p.Trial, err = strconv.Atoi(v); err != nil || p.Trial < 0 {
				return nil, bad("trial", fmt.Errorf("%q is not a trial number", v))
			}
		}
		k := key{target: name, clients: 1}
		if v, ok := cell("target"); ok && v != "" {
			k.target = v
		}
		if v, ok := cell("workload"); ok {
			k.workload = v
		}
		if v, ok := cell("pool"); ok {
			k.pool = v
		}
		if v, ok := cell("clients"); ok && v != "" {
			if k.clients, err = positiveInt(v); err != nil {
				return nil, bad("clients", err)
			}
		}
		s, ok := by[k]
		if !ok {
			s = &Series{Target: k.target, Workload: k.workload, Pool: k.pool, Clients: k.clients, Hosts: 1}
			by[k] = s
			order = append(order, k)
		}
		s.Points = append(s.Points, p)
		rows++
	}
	if rows == 0 {
		return nil, &InputError{File: name, Line: 2, Err: fmt.Errorf("%w after the header", ErrNoRows)}
	}
	out := make([]Series, 0, len(order))
	for _, k := range order {
		out = append(out, *by[k])
	}
	return out, nil
}

// csvError keeps encoding/csv's line number in our format.
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &InputError{File: name, Line: pe.Line, Err: pe.Err}
	}
	return &InputError{File: name, Err: err}
}

func positiveInt(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		// Spreadsheets write whole numbers as "64.0".
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1e9 {
			return 0, fmt.Errorf("%q is not a whole number", s)
		}
		n = int(f)
	}
	if n <= 0 {
		return 0, fmt.Errorf("%q must be at least 1", s)
	}
	return n, nil
}

func nonNegative(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is %w", s, ErrNotNumber)
	}
	if f < 0 {
		return 0, fmt.Errorf("%q must not be negative", s)
	}
	return f, nil
}
