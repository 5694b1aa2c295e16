package main

import "github.com/poolsweep/poolsweep/runner/progress"

// The tables print rates and latencies as the progress lines do
// (runner/progress renders the run).

func fmtRate(v float64) string { return progress.Rate(v) }

// fmtMs is milliseconds as the tables print them ("2.33ms").
func fmtMs(v float64) string { return progress.Ms(v) }
