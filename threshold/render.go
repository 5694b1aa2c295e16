package threshold

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// WriteText writes the outcomes, one line per check: pass or FAIL, the
// threshold, where it was checked and the measured value (or why there
// is none).
func WriteText(w io.Writer, os []results.ThresholdOutcome) error {
	passed := 0
	for _, o := range os {
		if o.Pass {
			passed++
		}
	}
	if _, err := fmt.Fprintf(w, "thresholds: %d of %d passed\n", passed, len(os)); err != nil {
		return err
	}
	width := 0
	for _, o := range os {
		width = max(width, len(textfmt.Escape(o.Threshold)))
	}
	for _, o := range os {
		for _, c := range o.Checks {
			verdict := "pass"
			if !c.Pass {
				verdict = "FAIL"
			}
			if _, err := fmt.Fprintf(w, "  %s  %-*s  %s\n", verdict, width, textfmt.Escape(o.Threshold), checkText(o.Unit, c)); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkText says where a check was made and what it found: "sim read
// pool=match C=64: 12.3 ms (median of 3 trials)".
func checkText(unit string, c results.ThresholdCheck) string {
	where := c.Series
	switch {
	case c.Rate > 0:
		where += fmt.Sprintf(" rate=%d trial %d", c.Rate, c.Trial)
	case c.Trial > 0:
		where += fmt.Sprintf(" C=%d trial %d", c.Concurrency, c.Trial)
	case c.Concurrency > 0 && unit != "workers":
		where += fmt.Sprintf(" C=%d", c.Concurrency)
	}
	if where != "" {
		where += ": "
	}
	if c.Value == nil {
		return where + c.Note
	}
	s := where + fmtValue(*c.Value, unit) + " " + unit
	if c.Trials > 1 {
		s += fmt.Sprintf(" (median of %d trials)", c.Trials)
	}
	return s
}

// fmtValue writes a measured value to about four significant figures
// without an exponent (5235, 12.34, 0.035), and a count or a level of
// unit as the whole number it is.
func fmtValue(v float64, unit string) string {
	if (unit == "workers" || unit == "connections" || unit == "errors") && v == math.Trunc(v) && max(v, -v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	decimals := 3
	switch a := max(v, -v); {
	case a >= 100:
		decimals = 0
	case a >= 10:
		decimals = 1
	case a >= 1:
		decimals = 2
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}
