package knee

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Bounds of the CSV input. A concurrency or client count beyond these
// cannot be a real measurement and would only overflow what is derived
// from it (connections = clients × concurrency).
const (
	maxCSVConcurrency = 10_000_000
	maxCSVClients     = 1_000_000
	maxCSVText        = 200 // runes in a target, workload or pool label
)

// InputError locates a problem in a CSV input: the file, the 1-based line
// (0 when the problem is the whole file), and the column when one is at
// fault. It prints as "file:line: column: problem", with any non-printing
// character of the file name or column escaped.
type InputError struct {
	File   string
	Line   int
	Column string
	Err    error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(textfmt.Escape(e.File))
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Column != "" {
		b.WriteString(textfmt.Escape(e.Column) + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

// Errors that ReadCSV wraps in an InputError, for errors.Is.
var (
	errNotNumber     = errors.New("not a number")
	errMissingColumn = errors.New("missing column")
	errNoRows        = errors.New("no data rows")
)

// ReadCSV reads a table with a header row: `concurrency` (or
// `connections`) and `qps` are required; `p99_ms`, `target`, `pool`,
// `trial`, `clients` and `workload` are optional; other columns are
// ignored so a spreadsheet export works as is. Rows group into series by
// target × workload × pool × clients; a missing target is name.
//
// Every field a column it reads holds is checked, and the first bad one is
// an *InputError naming the line and column: numbers are decimal (no hex,
// no Inf or NaN), counts are whole and in range, labels are printable text
// and a pool is "match" or a size. No error quotes what the file holds (a
// cell, a header's names): a file that is not a table of steps, a symlink
// to a password file say, shows nothing of itself. Columns are named by
// the names ReadCSV reads, or by their number.
func ReadCSV(r io.Reader, name string) ([]Series, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = false
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &InputError{File: name, Line: 1, Err: fmt.Errorf("%w: the file is empty, want a header row", errNoRows)}
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
		if j, dup := col[h]; dup {
			if slices.Contains(csvColumns, h) {
				return nil, &InputError{File: name, Line: 1, Column: h, Err: errors.New("appears twice in the header")}
			}
			return nil, &InputError{File: name, Line: 1, Err: fmt.Errorf("columns %d and %d of the header have one name", j+1, i+1)}
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
			return nil, &InputError{File: name, Line: 1, Err: fmt.Errorf("%w %s: not among the header's %s", errMissingColumn, want, plural(len(header), "column"))}
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
		row := csvRow{rec: rec, col: col}
		bad := func(c string, err error) error { return &InputError{File: name, Line: line, Column: c, Err: err} }

		p := Point{}
		if p.Concurrency, err = wholeNumber(row.cell(xcol), 1, maxCSVConcurrency); err != nil {
			return nil, bad(xcol, err)
		}
		if v, ok := row.get("connections"); ok && xcol != "connections" && v != "" {
			if p.Connections, err = wholeNumber(v, 1, maxCSVConcurrency); err != nil {
				return nil, bad("connections", err)
			}
		}
		if p.QPS, err = nonNegative(row.cell("qps")); err != nil {
			return nil, bad("qps", err)
		}
		if v, ok := row.get("p99_ms"); ok && v != "" {
			if p.P99Ms, err = nonNegative(v); err != nil {
				return nil, bad("p99_ms", err)
			}
			p.HasP99 = true
		}
		if v, ok := row.get("trial"); ok && v != "" {
			if p.Trial, err = wholeNumber(v, 0, math.MaxInt32); err != nil {
				return nil, bad("trial", errors.New("not a trial number"))
			}
		}
		k := key{target: name, clients: 1}
		if v, ok := row.get("target"); ok && v != "" {
			if k.target, err = label(v); err != nil {
				return nil, bad("target", err)
			}
		}
		if v, ok := row.get("workload"); ok {
			if k.workload, err = label(v); err != nil {
				return nil, bad("workload", err)
			}
		}
		if v, ok := row.get("pool"); ok {
			if k.pool, err = poolLabel(v); err != nil {
				return nil, bad("pool", err)
			}
		}
		if v, ok := row.get("clients"); ok && v != "" {
			if k.clients, err = wholeNumber(v, 1, maxCSVClients); err != nil {
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
		return nil, &InputError{File: name, Line: 2, Err: fmt.Errorf("%w after the header", errNoRows)}
	}
	out := make([]Series, 0, len(order))
	for _, k := range order {
		out = append(out, *by[k])
	}
	return out, nil
}

// plural is "1 column", "2 columns".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// csvColumns are the columns ReadCSV reads, the only names of a header
// an error may say.
var csvColumns = []string{"concurrency", "connections", "qps", "p99_ms", "target", "pool", "trial", "clients", "workload"}

// csvRow reads the cells of one record by column name.
type csvRow struct {
	rec []string
	col map[string]int
}

// get is the trimmed cell of column c; ok is false when the header has no
// such column.
func (r csvRow) get(c string) (string, bool) {
	i, ok := r.col[c]
	if !ok || i >= len(r.rec) {
		return "", false
	}
	return strings.TrimSpace(r.rec[i]), true
}

func (r csvRow) cell(c string) string { v, _ := r.get(c); return v }

// csvError keeps encoding/csv's line (and column) in our format.
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		ie := &InputError{File: name, Line: pe.Line, Err: pe.Err}
		if pe.Column > 0 && !errors.Is(pe.Err, csv.ErrFieldCount) {
			ie.Column = "column " + strconv.Itoa(pe.Column)
		}
		return ie
	}
	return &InputError{File: name, Err: err}
}

// decimal reports whether s is written as a plain decimal number: digits,
// one point, an exponent, a sign. ParseFloat alone would also take hex
// floats, underscores, "Inf" and "NaN", none of which a table of
// measurements should hold.
func decimal(s string) bool {
	if s == "" {
		return false
	}
	digits := false
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-':
		default:
			return false
		}
	}
	return digits
}

// wholeNumber parses a whole number in [lo, hi]. Spreadsheets write whole
// numbers as "64.0", which is accepted.
func wholeNumber(s string, lo, hi int) (int, error) {
	if s == "" {
		return 0, errors.New("missing value")
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if !decimal(s) || ferr != nil || f != math.Trunc(f) || math.Abs(f) > float64(math.MaxInt32) {
			return 0, errors.New("not a whole number")
		}
		n = int(f)
	}
	switch {
	case n < lo && lo == 1:
		return 0, errors.New("must be at least 1")
	case n < lo:
		return 0, fmt.Errorf("must not be below %d", lo)
	case n > hi:
		return 0, fmt.Errorf("larger than %d", hi)
	}
	return n, nil
}

// nonNegative parses a finite decimal number ≥ 0.
func nonNegative(s string) (float64, error) {
	if s == "" {
		return 0, errors.New("missing value")
	}
	f, err := strconv.ParseFloat(s, 64)
	if !decimal(s) || err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errNotNumber
	}
	if f < 0 {
		return 0, errors.New("must not be negative")
	}
	return f, nil
}

// label checks a target or workload name: printable and not too long.
func label(s string) (string, error) {
	if !textfmt.IsPrintable(s) {
		return "", errors.New("holds a non-printing character")
	}
	if n := len([]rune(s)); n > maxCSVText {
		return "", fmt.Errorf("%d characters is longer than %d", n, maxCSVText)
	}
	return s, nil
}

// poolLabel checks a pool setting: "match", a pool size, or empty.
func poolLabel(s string) (string, error) {
	if s == "" || s == "match" {
		return s, nil
	}
	if _, err := wholeNumber(s, 1, maxCSVConcurrency); err != nil {
		return "", errors.New(`not "match" or a pool size`)
	}
	return s, nil
}
