package results

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

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
	// Storms are the connection storms of a storm run (poolsweep storm).
	Storms []StormResult
	End    *EndRecord // nil when the run never wrote its closing record
	// Warnings are what a reader should be told about the file: a cut-off
	// last line that was left out, or a run without its end record.
	Warnings []string
	// Skipped counts the records a lenient reader left out.
	Skipped int
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

// ReadOptions say how a reader treats records that break the schema.
type ReadOptions struct {
	// Lenient skips a step (or an end record) that breaks the schema,
	// with a warning naming its line and field, instead of refusing the
	// file. The run header is never skipped: without it nothing can be
	// read.
	Lenient bool
}

// ReadResultsFile decodes path (see ReadFile), to the end whatever comes.
func ReadResultsFile(path string) (*Results, error) {
	return ReadFileWith(context.Background(), path, ReadOptions{})
}

// ReadFile decodes path strictly (ReadFileWith).
func ReadFile(ctx context.Context, path string) (*Results, error) {
	return ReadFileWith(ctx, path, ReadOptions{})
}

// ReadFileWith decodes path with o: a regular file of at most
// MaxFileBytes (a FIFO, device or directory is refused before anything
// can block on it), read until ctx ends. Every error names path.
func ReadFileWith(ctx context.Context, path string, o ReadOptions) (*Results, error) {
	f, err := infile.Open(ctx, path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadResultsWith(f, path, o)
}

// ReadResults decodes and validates a results stream (ReadResultsWith,
// strictly).
func ReadResults(r io.Reader, name string) (*Results, error) {
	return ReadResultsWith(r, name, ReadOptions{})
}

// ReadResultsWith decodes and validates a results stream. Every record is
// checked (ValidateHeader, ValidateStep, ValidateEnd) and a bad one is an
// error naming its line and field; with o.Lenient a bad step or end
// record is skipped with a warning instead. The one exception is a last
// line cut off mid-record (a run killed, or a full disk, while writing):
// it is left out with a warning, so the complete records before it stay
// usable. A step recorded twice (a resumed run measured it again) keeps
// its later record. Unknown keys are ignored.
func ReadResultsWith(r io.Reader, name string, o ReadOptions) (*Results, error) {
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
				if !o.Lenient || line == 1 || errors.Is(derr, errSecondHeader) {
					return nil, derr
				}
				res.Skipped++
				res.Warnings = append(res.Warnings, derr.Error()+"; skipped (--lenient)")
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
	res.Steps = latestRecords(res.Steps)
	if res.End == nil {
		res.Warnings = append(res.Warnings, NoEndWarning(name, len(res.Steps)))
	}
	return res, nil
}

// latestRecords keeps the last record of each step, in the order of those
// records: a resumed run that measured a step again (it was interrupted,
// or the target failed during it) replaces the earlier record.
func latestRecords(steps []StepResult) []StepResult {
	last := make(map[string]int, len(steps))
	for i := range steps {
		last[steps[i].Key()] = i
	}
	if len(last) == len(steps) {
		return steps
	}
	out := make([]StepResult, 0, len(last))
	for i := range steps {
		if last[steps[i].Key()] == i {
			out = append(out, steps[i])
		}
	}
	return out
}

var (
	errLineTooLong  = fmt.Errorf("a line is longer than %d MiB", maxRecordBytes>>20)
	errNotJSON      = errors.New("not a JSON record")
	errSecondHeader = errors.New("a second run header; concatenated files are not supported")
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
			// encoding/json's text quotes the character it met: what the
			// file holds is never shown, only where.
			return lineErr(fmt.Errorf("%w (truncated file?): broken at byte %d", errNotJSON, se.Offset))
		}
		return lineErr(fieldError("record", err))
	}
	if line == 1 && probe.Kind != KindRun {
		return lineErr(fmt.Errorf("%w: the first line's kind is not \"run\"", ErrNotResults))
	}
	switch probe.Kind {
	case KindRun:
		if line != 1 {
			return lineErr(errSecondHeader)
		}
		if probe.Schema < 1 || probe.Schema > SchemaVersion {
			return lineErr(fmt.Errorf("schema %d is not supported (this poolsweep reads 1..%d)", probe.Schema, SchemaVersion))
		}
		if err := json.Unmarshal(b, &res.Header); err != nil {
			return lineErr(fieldError("run", err))
		}
		if err := ValidateHeader(&res.Header); err != nil {
			return lineErr(err)
		}
	case KindStep:
		s, err := decodeStep(b)
		if err == nil {
			err = ValidateStep(&s, &res.Header)
		}
		if err != nil {
			return lineErr(err)
		}
		res.Steps = append(res.Steps, s)
	case KindStorm:
		var s StormResult
		if err := json.Unmarshal(b, &s); err != nil {
			return lineErr(fieldError("storm", err))
		}
		if err := ValidateStorm(&s, &res.Header); err != nil {
			return lineErr(err)
		}
		res.Storms = append(res.Storms, s)
	case KindEnd:
		var e EndRecord
		if err := json.Unmarshal(b, &e); err != nil {
			return lineErr(fieldError("end", err))
		}
		if err := ValidateEnd(&e); err != nil {
			return lineErr(err)
		}
		res.End = &e
	default:
		return lineErr(fmt.Errorf("a record of an unknown kind (this poolsweep reads %s, %s, %s and %s)", KindRun, KindStep, KindStorm, KindEnd))
	}
	return nil
}

// fieldError says a JSON type error in the user's words: which field of
// which record, and what kind of value it held, never the value (a
// time's parse error quotes it whole).
func fieldError(what string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		// te.Value is "number 1e400" for a number: the kind, then the
		// file's own text, which an error never repeats.
		held, _, _ := strings.Cut(te.Value, " ")
		want := jsonType(te.Type.Kind())
		msg := fmt.Sprintf("holds a %s, want a %s", held, want)
		if held == "number" && (want == "number" || want == "whole number") {
			// A number that does not fit: too large, or not whole.
			msg = fmt.Sprintf("holds a number that is not a %s within range", want)
		}
		return &FieldError{Field: what + "." + te.Field, Msg: msg}
	}
	var pe *time.ParseError
	if errors.As(err, &pe) {
		return &FieldError{Field: what, Msg: "a time that is not RFC 3339 (2026-01-02T15:04:05Z)"}
	}
	return &FieldError{Field: what, Msg: "a value that does not decode"}
}

// jsonType names a Go kind as JSON does.
func jsonType(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "whole number"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return "object"
}

// decodeStep decodes a step record, with the defaults of files from
// before clients, trial and pool_setting were recorded.
func decodeStep(b []byte) (StepResult, error) {
	var s StepResult
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fieldError("step", err)
	}
	if err := checkStepKeys(b); err != nil {
		return s, err
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
	return s, nil
}
