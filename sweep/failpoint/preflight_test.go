package failpoint

import (
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/testkit/testferret"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
)

// connectionStatus replies in the shape real servers give with
// showPrivileges (authInfo.authenticatedUserPrivileges: resource and
// actions), read for the cluster action replSetStepDown needs.
func TestConnectionStatusAllows(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		want        bool
	}{
		// clusterManager's privilege on the cluster names the action.
		{"cluster", `{"authInfo": {"authenticatedUsers": [{"user": "ops", "db": "admin"}], "authenticatedUserRoles": [{"role": "clusterManager", "db": "admin"}],
			"authenticatedUserPrivileges": [{"resource": {"cluster": true}, "actions": ["replSetGetStatus", "replSetStateChange"]}]}, "ok": 1}`, true},
		// __system's anyAction on anyResource allows everything.
		{"anyAction", `{"authInfo": {"authenticatedUsers": [{"user": "s", "db": "local"}],
			"authenticatedUserPrivileges": [{"resource": {"anyResource": true}, "actions": ["anyAction"]}]}, "ok": 1}`, true},
		// readWrite on a database: no cluster privilege.
		{"database only", `{"authInfo": {"authenticatedUsers": [{"user": "app", "db": "admin"}],
			"authenticatedUserPrivileges": [{"resource": {"db": "poolsweep", "collection": ""}, "actions": ["find", "insert", "replSetStateChange"]}]}, "ok": 1}`, false},
		// clusterMonitor's cluster privilege lacks the action.
		{"monitor", `{"authInfo": {"authenticatedUsers": [{"user": "m", "db": "admin"}],
			"authenticatedUserPrivileges": [{"resource": {"cluster": true}, "actions": ["serverStatus", "replSetGetStatus"]}]}, "ok": 1}`, false},
	} {
		var raw bson.Raw
		if err := bson.UnmarshalExtJSON([]byte(tc.reply), false, &raw); err != nil {
			t.Fatal(tc.name, err)
		}
		var st connectionStatus
		if err := bson.Unmarshal(raw, &st); err != nil {
			t.Fatal(tc.name, err)
		}
		if got := st.allows(ActionStepDown); got != tc.want {
			t.Errorf("%s: allows %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FerretDB answers getParameter enableTestCommands as a real server
// answers a parameter it does not have ("no option found to get"): no
// test commands. Its connectionStatus names no user and its serverStatus
// needs none: no access control, so the action is allowed.
func TestPreflightAsksTheServer(t *testing.T) {
	uri := testferret.Start(t)
	ferret := testsrv.Connect(t, uri)
	if err := TestCommands(t.Context(), ferret); !errors.Is(err, ErrNoTestCommands) {
		t.Errorf("FerretDB test commands: %v, want ErrNoTestCommands", err)
	}
	if err := HasClusterAction(t.Context(), ferret, ActionStepDown); err != nil {
		t.Errorf("FerretDB without access control: %v", err)
	}
	host := testsrv.Host(t, uri)
	if err := CheckHost(t.Context(), DirectTo(plainClients()), host); !errors.Is(err, ErrNoTestCommands) || !strings.Contains(err.Error(), host) {
		t.Errorf("CheckHost on FerretDB: %v, want ErrNoTestCommands naming %s", err, host)
	}
}
