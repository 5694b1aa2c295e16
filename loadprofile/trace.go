package loadprofile

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/internal/infile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// A rate trace is a CSV file of two columns, time and rate:
//
//	t_s,rate
//	0,120
//	1,135.5
//	2,0
//	30,900
//	31,0
//
// Time is seconds from the trace's start (decimals allowed), strictly
// increasing; rate is calls/s from that time until the next row's. The
// last row ends the trace: its time is the trace's length and its rate
// must be 0. The header line is optional (exactly t_s,rate); blank lines
// are skipped. Bounds: MaxTraceBytes and MaxTraceRows; times up to
// MaxDuration, rates up to MaxRate.
const (
	// TraceHeader is the trace's optional first line, as WriteTrace
	// writes it.
	TraceHeader = "t_s,rate"
	// MaxTraceBytes bounds a trace file: a day of one row a second, with
	// room for long decimals, is about 2 MiB.
	MaxTraceBytes = 8 << 20
	// MaxTraceRows bounds a trace's rows: a day of one row a second
	// (86,400) and its end row, with room to spare.
	MaxTraceRows = 100_000
)

// ReadTrace reads the trace file at path (see TraceHeader for the
// format) through infile: a regular file of at most MaxTraceBytes. Its
// errors name the file and line and never quote the file.
func ReadTrace(ctx context.Context, path string) ([]Point, error) {
	b, err := infile.ReadAll(ctx, path, MaxTraceBytes)
	if err != nil {
		return nil, err
	}
	return ParseTrace(path, b)
}

// TraceReaderFor is ReadTrace as Parse takes it, reading under ctx.
func TraceReaderFor(ctx context.Context) TraceReader {
	return func(path string) ([]Point, error) { return ReadTrace(ctx, path) }
}

// ParseTrace reads a trace's text; name is the file's, for errors.
func ParseTrace(name string, data []byte) ([]Point, error) {
	var pts []Point
	var prev float64
	last := 0 // the line of the last row
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, MaxTraceBytes)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff") // a byte-order mark
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		at := func(msg string, a ...any) error {
			return errors.New(textfmt.At(name, line, "") + fmt.Sprintf(msg, a...))
		}
		ts, rs, ok := strings.Cut(text, ",")
		if !ok || strings.Contains(rs, ",") {
			return nil, at("not a row of two fields, t_s,rate")
		}
		ts, rs = strings.TrimSpace(ts), strings.TrimSpace(rs)
		if len(pts) == 0 && last == 0 && strings.EqualFold(ts, "t_s") && strings.EqualFold(rs, "rate") {
			last = line
			continue // the header
		}
		if len(pts) == MaxTraceRows {
			return nil, at("more than %d rows, the most a trace may hold", MaxTraceRows)
		}
		t, err := strconv.ParseFloat(ts, 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(t):
			return nil, at("time is not a number of seconds")
		case t < 0:
			return nil, at("time %s is negative; times are seconds from the trace's start", num(t))
		case t > MaxDuration.Seconds():
			return nil, at("time %s is past the %s a profile may last", num(t), fmtHours(MaxDuration))
		case len(pts) > 0 && t <= prev:
			return nil, at("time %s is not after %s; times must increase", num(t), num(prev))
		}
		d := time.Duration(math.Round(t * 1e9))
		if len(pts) > 0 && d <= pts[len(pts)-1].At {
			return nil, at("time %s is within a nanosecond of %s", num(t), num(prev))
		}
		r, err := strconv.ParseFloat(rs, 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(r):
			return nil, at("rate is not a number of calls/s")
		case r < 0:
			return nil, at("rate %s is negative", num(r))
		case r > MaxRate:
			return nil, at("rate %s calls/s is above %s, the most one process issues (as --rate)", num(r), rate(MaxRate))
		}
		pts = append(pts, Point{At: d, Rate: r})
		prev, last = t, line
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, errors.New(textfmt.At(name, 0, "") + "a line longer than the file's limit")
		}
		return nil, fmt.Errorf("%s%w", textfmt.At(name, 0, ""), err)
	}
	switch {
	case len(pts) == 0:
		return nil, errors.New(textfmt.At(name, 0, "") + "no rows; a trace is rows of t_s,rate")
	case len(pts) == 1:
		return nil, errors.New(textfmt.At(name, last, "") + "one row; a trace needs at least two, the last one's time ending it")
	case pts[len(pts)-1].Rate != 0:
		return nil, errors.New(textfmt.At(name, last, "") + "the last row ends the trace, so its rate must be 0 (add a row T,0 at the time it ends)")
	}
	return pts, nil
}

// num is a number read from a trace, as an error says it back: the
// value parsed, not the text the file holds.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 12, 64) }

// WriteTrace writes pts as a trace file ReadTrace reads: the header and
// one row a point, times in seconds.
func WriteTrace(w io.Writer, pts []Point) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, TraceHeader)
	for _, pt := range pts {
		fmt.Fprintf(bw, "%s,%s\n", strconv.FormatFloat(pt.At.Seconds(), 'f', -1, 64), rate(pt.Rate))
	}
	return bw.Flush()
}

// PerSecond is the trace of counts per second: second i at counts[i]
// calls/s, rows only where the rate changes, and the end row after the
// last second. Zero seconds at the start or end stay in: they are the
// trace's quiet spells.
func PerSecond(counts []float64) []Point {
	var pts []Point
	for i, c := range counts {
		if len(pts) > 0 && pts[len(pts)-1].Rate == c {
			continue
		}
		pts = append(pts, Point{At: time.Duration(i) * time.Second, Rate: c})
	}
	return append(pts, Point{At: time.Duration(len(counts)) * time.Second})
}
