package results

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/poolsweep/poolsweep/internal/infile"
)

// maxRecordBytes bounds one line of results.jsonl (a step with histograms
// stays far below it).
const maxRecordBytes = 64 << 20

// MaxFileBytes bounds a results file: a plan's 100,000 steps of a few KiB
// each fit; a file that never ends does not.
const MaxFileBytes = 1 << 30

// Results is a decoded results.jsonl.
type Results struct {
	Path   string
	Header RunHeader
	Steps  []StepResult
	End    *EndRecord // nil when the run never wrote its closing record
	// Warnings are what a reader should be told about the file: a cut-off
	// last line that was left out, or a run without its end record.
	Warnings []string
}

// ErrNotResults is returned when a file is not a poolsweep results file.
var ErrNotResults = errors.New("not a poolsweep results file")

// LineError locates a decoding problem in a results file.
type LineError struct {
	Path string
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ReadResultsFile decodes path (see ReadFile), to the end whatever comes.
func ReadResultsFile(path string) (*Results, error) {
	return ReadFile(context.Background(), path)
}

// ReadFile decodes path: a regular file of at most MaxFileBytes (a FIFO,
// device or directory is refused before anything can block on it), read
// until ctx ends. Every error names path.
func ReadFile(ctx context.Context, path string) (*Results, error) {
	f, err := infile.Open(ctx, path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadResults(f, path)
}

// ReadResults decodes and validates a results stream. Every record's
// fields are checked and a bad one is an error naming its line. The one
// exception is a last line cut off mid-record (a run killed, or a full
// disk, while writing): it is left out with a warning, so the complete
// records before it stay usable. Unknown keys are ignored.
func ReadResults(r io.Reader, name string) (*Results, error) {
	res := &Results{Path: name}
	br := bufio.NewReaderSize(r, 64<<10)
	line := 0
	for {
		b, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			if errors.Is(err, errLineTooLong) {
				return nil, &LineError{name, line + 1, err}
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		last := errors.Is(err, io.EOF)
		if len(b) == 0 && last {
			break
		}
		line++
		terminated := len(b) > 0 && b[len(b)-1] == '\n'
		b = bytes.TrimRight(b, "\r\n")
		if len(bytes.TrimSpace(b)) > 0 {
			if derr := res.decode(b, name, line); derr != nil {
				// A final line without its newline that does not decode
				// is a record cut off while being written.
				var le *LineError
				if !terminated && line > 1 && errors.As(derr, &le) && errors.Is(le.Err, errNotJSON) {
					res.Warnings = append(res.Warnings, fmt.Sprintf("%s:%d: the last line is cut off (a run killed or a disk full while writing); it was left out and the %d complete records before it are used", name, line, line-1))
					break
				}
				return nil, derr
			}
		}
		if last {
			break
		}
	}
	if line == 0 {
		return nil, &LineError{name, 1, fmt.Errorf("%w: the file is empty", ErrNotResults)}
	}
	if res.Header.Kind != KindRun {
		return nil, &LineError{name, 1, fmt.Errorf("%w: no run header", ErrNotResults)}
	}
	if res.End == nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s: no end record: the run stopped without closing the file (killed?); its %d step(s) are used", name, len(res.Steps)))
	}
	return res, nil
}

var (
	errLineTooLong = fmt.Errorf("a line is longer than %d MiB", maxRecordBytes>>20)
	errNotJSON     = errors.New("not a JSON record")
)

// readLine returns the next line with its newline, bounded in length.
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > maxRecordBytes {
			return nil, errLineTooLong
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return out, err
	}
}

// decode adds one line's record to res.
func (res *Results) decode(b []byte, name string, line int) error {
	lineErr := func(err error) error { return &LineError{name, line, err} }
	var probe struct {
		Kind   string `json:"kind"`
		Schema int    `json:"schema"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		if line == 1 {
			return lineErr(ErrNotResults)
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return lineErr(fmt.Errorf("%w (truncated file?): %v", errNotJSON, err))
		}
		return lineErr(fieldError("record", err))
	}
	if line == 1 && probe.Kind != KindRun {
		return lineErr(fmt.Errorf("%w: first line has kind %q, want \"run\"", ErrNotResults, probe.Kind))
	}
	switch probe.Kind {
	case KindRun:
		if line != 1 {
			return lineErr(errors.New("a second run header; concatenated files are not supported"))
		}
		if probe.Schema < 1 || probe.Schema > SchemaVersion {
			return lineErr(fmt.Errorf("schema %d is not supported (this poolsweep reads 1..%d)", probe.Schema, SchemaVersion))
		}
		if err := json.Unmarshal(b, &res.Header); err != nil {
			return lineErr(fieldError("run header", err))
		}
	case KindStep:
		s, err := decodeStep(b)
		if err != nil {
			return lineErr(err)
		}
		res.Steps = append(res.Steps, s)
	case KindEnd:
		var e EndRecord
		if err := json.Unmarshal(b, &e); err != nil {
			return lineErr(fieldError("end record", err))
		}
		switch e.Status {
		case StatusComplete, StatusPartial, StatusInterrupted, StatusFailed:
		default:
			return lineErr(fmt.Errorf("end record: status %q is not complete, partial, interrupted or failed", e.Status))
		}
		res.End = &e
	default:
		return lineErr(fmt.Errorf("unknown record kind %q", probe.Kind))
	}
	return nil
}

// fieldError says a JSON type error in the user's words: which field, and
// what it held.
func fieldError(what string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s: field %s holds a %s, want a %s", what, te.Field, te.Value, te.Type)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// decodeStep decodes a step record and checks that the fields every
// analysis relies on are present and possible: a step with no ops_per_s,
// concurrency 0 or a negative rate would otherwise be read as a
// measurement and steer the knee.
func decodeStep(b []byte) (StepResult, error) {
	var s StepResult
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fieldError("step", err)
	}
	var present struct {
		Target      *string  `json:"target"`
		Concurrency *int     `json:"concurrency"`
		MaxPoolSize *int     `json:"max_pool_size"`
		OpsPerS     *float64 `json:"ops_per_s"`
		CallsPerS   *float64 `json:"calls_per_s"`
		DurationS   *float64 `json:"duration_s"`
	}
	_ = json.Unmarshal(b, &present) // types were checked above
	switch {
	case present.Target == nil || *present.Target == "":
		return s, errors.New("step: target is missing")
	case present.Concurrency == nil:
		return s, errors.New("step: concurrency is missing")
	case present.MaxPoolSize == nil:
		return s, errors.New("step: max_pool_size is missing")
	case present.OpsPerS == nil:
		return s, errors.New("step: ops_per_s is missing")
	}
	if s.PoolSetting == "" {
		s.PoolSetting = strconv.Itoa(s.MaxPoolSize)
	}
	if s.Clients == 0 {
		s.Clients = 1 // files from before --clients
	}
	if s.Trial == 0 {
		s.Trial = 1
	}
	checks := []struct {
		name string
		v    float64
		min  float64
	}{
		{"concurrency", float64(s.Concurrency), 1},
		{"max_pool_size", float64(s.MaxPoolSize), 1},
		{"clients", float64(s.Clients), 1},
		{"trial", float64(s.Trial), 1},
		{"ops_per_s", s.OpsPerS, 0},
		{"calls_per_s", s.CallsPerS, 0},
		{"duration_s", s.DurationS, 0},
		{"ops", float64(s.Ops), 0},
		{"calls", float64(s.Calls), 0},
		{"connections", float64(s.Connections), 0},
		{"errors.timeout", float64(s.Errors.Timeout), 0},
		{"errors.network", float64(s.Errors.Network), 0},
		{"errors.server", float64(s.Errors.Server), 0},
		{"latency_ms.mean", s.Latency.Mean, 0},
		{"latency_ms.p50", s.Latency.P50, 0},
		{"latency_ms.p99", s.Latency.P99, 0},
		{"latency_ms.max", s.Latency.Max, 0},
		{"pool.checkout_wait_ms.mean", s.Pool.CheckoutWait.Mean, 0},
		{"pool.checkout_wait_ms.p99", s.Pool.CheckoutWait.P99, 0},
	}
	for _, c := range checks {
		if math.IsNaN(c.v) || math.IsInf(c.v, 0) || c.v < c.min {
			if c.min > 0 {
				return s, fmt.Errorf("step: %s is %v; it must be at least %v", c.name, c.v, c.min)
			}
			return s, fmt.Errorf("step: %s is %v; it must not be negative", c.name, c.v)
		}
	}
	return s, nil
}
