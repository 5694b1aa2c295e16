package plot

import (
	"strings"
	"testing"
)

// TestTrialsCaptionSaysWhatTheBarsAre: the caption under the throughput
// figure names the bars the knee analysis drew: none for one trial
// without an interval, the window's batch-means interval for one trial
// with one (an auto window), a bootstrap interval for 3+ trials, the
// range for 2.
func TestTrialsCaptionSaysWhatTheBarsAre(t *testing.T) {
	fc := func(bands ...band) *figContext {
		c := &curve{}
		for _, b := range bands {
			c.levels = append(c.levels, level{ops: b})
		}
		return &figContext{curves: []*curve{c}}
	}
	for _, tt := range []struct {
		name string
		fc   *figContext
		want string
	}{
		{"one trial, no interval", fc(band{Median: 100, Low: 100, High: 100, N: 1}), "no interval bars"},
		{"one trial, a batch-means interval", fc(band{Median: 100, Low: 100, High: 100, N: 1}, band{Median: 200, Low: 190, High: 210, N: 1}), "batch means"},
		{"three trials", fc(band{Median: 100, Low: 90, High: 110, N: 3}), "bootstrap"},
		{"two trials", fc(band{Median: 100, Low: 90, High: 110, N: 2}), "their range"},
	} {
		if got := tt.fc.trialsCaption(); !strings.Contains(got, tt.want) {
			t.Errorf("%s: caption %q, want it to say %q", tt.name, got, tt.want)
		}
	}
}
