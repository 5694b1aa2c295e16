package progress

import (
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/loadprofile"
	"github.com/poolsweep/poolsweep/plan"
)

// TestStepLengthsProfile: the plan line says a profile step lasts its
// profile, not a warm-up and window it does not have.
func TestStepLengthsProfile(t *testing.T) {
	prof, err := loadprofile.Parse("idle:30s,rate:2000:1m", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Plan{Warmup: 0, Duration: prof.Duration(), OpTimeout: time.Second, Profile: &prof}
	if got := StepLengths(p); !strings.Contains(got, "the profile's 1m30s") || strings.Contains(got, "window +") {
		t.Errorf("step lengths %q", got)
	}
	p.Profile = nil
	if got := StepLengths(p); got != "0s warm-up + 1m30s window" {
		t.Errorf("steady step lengths %q", got)
	}
}
