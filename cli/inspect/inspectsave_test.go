package inspect

import (
	"testing"

	"github.com/poolsweep/poolsweep/internal/corpus"
)

// TestSavedReplyNames: every name inspect --save-replies writes has the
// shape checked before it connects (savedName), whatever the server says
// its role and version are.
func TestSavedReplyNames(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"hello", "isMaster", "buildInfo", "serverStatus", "hostInfo", "connPoolStats", "listShards"} {
		for _, pr := range [][2]string{{"mongod", "standalone"}, {"mongod", "replset-primary"}, {"mongod", "replset-secondary"}, {"mongos", ""}} {
			for _, v := range []string{"7.0.14", "8.0.0-poolsweep-sim", "unknown", "4.4.0-rc1"} {
				name := corpus.FileName(cmd, pr[0], pr[1], v, "")
				if !savedName.MatchString(name) {
					t.Errorf("%s is written by --save-replies but not checked before it connects", name)
				}
			}
		}
	}
	for _, name := range []string{"notes.txt", "results.jsonl", "hello.json", "serverStatus.mongodx-1.json", "hello.mongod-7.0.json.bak"} {
		if savedName.MatchString(name) {
			t.Errorf("%s is the user's, not a saved reply's name", name)
		}
	}
}
