package derive

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/workload/shapes"
)

// TestCaveatsOwnWork derives the workload of a real replica-set member's
// lines (querylog/testdata/real, hatchet, Apache-2.0): the shapes are the
// application's only; the caveats and source.left_out (in YAML and JSON)
// count what was left out as the server's own work, by kind; the insert
// caveat says what the lines held.
func TestCaveatsOwnWork(t *testing.T) {
	log, err := os.ReadFile("../../querylog/testdata/real/hatchet-replica-rs2-6.0.14.log")
	if err != nil {
		t.Fatal(err)
	}
	f := deriveLog(t, string(log))
	if got := strings.Join(names(f), "; "); len(f.Shapes) != 2 || strings.Contains(got, "system.sessions") {
		t.Errorf("shapes %s: want the application's update and insert only", got)
	}
	want := map[string]int64{"server-thread": 5, "internal-namespace": 1}
	if fmt.Sprint(f.Source.LeftOut) != fmt.Sprint(want) {
		t.Errorf("source.left_out %v, want %v", f.Source.LeftOut, want)
	}
	all := strings.Join(f.Caveats, "\n")
	for _, w := range []string{
		"left out as the server's own or its tools' work, not the application's: 5 operations of the server's own threads and members",
		"; 1 operations on internal namespaces (admin, config, local, system.* collections)",
		"insert payloads are not in the entries (the clients sent the documents apart from the command",
	} {
		if !strings.Contains(all, w) {
			t.Errorf("caveats lack %q:\n%s", w, all)
		}
	}
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := shapes.Parse(data, "w.yaml")
	if err != nil || fmt.Sprint(back.Source.LeftOut) != fmt.Sprint(want) {
		t.Errorf("read back: left_out %v, %v", back.Source.LeftOut, err)
	}
	js, err := json.Marshal(f)
	if err != nil || !strings.Contains(string(js), `"left_out":{"internal-namespace":1,"server-thread":5}`) {
		t.Errorf("JSON: %s, %v", js, err)
	}
}

// TestInsertCaveat: the insert caveat says, line by line, what the
// inserts' entries held of their documents.
func TestInsertCaveat(t *testing.T) {
	line := func(command, extra string) string {
		return `{"t":{"$date":"2025-03-01T10:00:00.000+00:00"},"s":"I","c":"COMMAND","id":51803,"ctx":"conn5","msg":"Slow query",` +
			`"attr":{"type":"command","ns":"shop.events","command":` + command + extra + `,"reslen":45,"durationMillis":120}}` + "\n"
	}
	whole := line(`{"insert":"events","documents":[{"_id":1,"a":"x"}],"ordered":true,"$db":"shop"}`, `,"ninserted":1`)
	count := line(`{"insert":"events","documents":4,"ordered":true,"$db":"shop"}`, `,"ninserted":4`)
	none := line(`{"insert":"events","ordered":true,"$db":"shop"}`, `,"ninserted":5`)
	f := deriveLog(t, whole+whole+count+none)
	want := "of the 4 inserts' entries, 2 hold their documents whole (sent in the command's body), 1 hold only their number, " +
		"1 hold neither (sent as a document sequence; ninserted counts them): the shapes keep documents per command only"
	if all := strings.Join(f.Caveats, "\n"); !strings.Contains(all, want) || strings.Contains(all, "insert payloads are not in") {
		t.Errorf("caveats:\n%s\nwant %q", all, want)
	}
}
