package shared

import "github.com/poolsweep/poolsweep/plot"

// CheckSteadyStep checks a --steady value as it is parsed.
func CheckSteadyStep(s string) error {
	_, err := plot.ParseSteadyStep(s)
	return err
}

// SteadyOption is the --steady step to draw, nil when not asked for.
func SteadyOption(s string) *plot.SteadyStep {
	if s == "" {
		return nil
	}
	sel, _ := plot.ParseSteadyStep(s) // checked as the flag was parsed (CheckSteadyStep)
	return &sel
}
