package failpoint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// What is asked of a server before an event is fired into its load, so
// that a run that cannot perform its events is refused before it loads
// anything. Each answer comes from the server: nothing is guessed from
// its version or kind.

// ErrNoTestCommands says the server's test commands are off: it has no
// configureFailPoint command, so a fail point cannot be set.
var ErrNoTestCommands = errors.New("test commands are not enabled (getParameter enableTestCommands is false); a fail point needs a server started with --setParameter enableTestCommands=1")

// ErrNoPrivilege says the user poolsweep connects as lacks a privilege.
var ErrNoPrivilege = errors.New("the user lacks the privilege")

// Error codes real servers answer with.
const (
	codeUnauthorized   = 13 // the user may not run the command
	codeInvalidOptions = 72 // getParameter: "no option found to get"
)

// TestCommands asks the server client reaches whether its test commands
// are enabled: getParameter enableTestCommands, a startup parameter that
// real servers report as a boolean (false unless started with
// --setParameter enableTestCommands=1). A server that has no such
// parameter (getParameter answers "no option found to get") has no test
// commands. nil means they are on; ErrNoTestCommands (wrapped) that they
// are off; any other error that the server could not be asked, which
// must refuse the fail point as well: never guessed.
func TestCommands(ctx context.Context, client *mongo.Client) error {
	raw, err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: "enableTestCommands", Value: 1}}).Raw()
	var ce mongo.CommandError
	switch {
	case errors.As(err, &ce) && ce.Code == codeInvalidOptions:
		return fmt.Errorf("%w (the server has no enableTestCommands parameter)", ErrNoTestCommands)
	case errors.As(err, &ce) && ce.Code == codeUnauthorized:
		return fmt.Errorf("whether test commands are enabled cannot be asked: getParameter was refused (%s); the user needs the getParameter privilege on the cluster", ce.Name)
	case err != nil:
		return fmt.Errorf("whether test commands are enabled cannot be asked: getParameter enableTestCommands: %w", err)
	}
	v, err := raw.LookupErr("enableTestCommands")
	if err != nil {
		return errors.New("whether test commands are enabled cannot be asked: getParameter's reply has no enableTestCommands")
	}
	on, ok := v.BooleanOK()
	if !ok {
		return fmt.Errorf("whether test commands are enabled cannot be asked: getParameter answered enableTestCommands as a %s, not a boolean", v.Type)
	}
	if !on {
		return ErrNoTestCommands
	}
	return nil
}

// Cluster actions poolsweep's events need.
const (
	// ActionStepDown is replSetStepDown's (clusterManager has it).
	ActionStepDown = "replSetStateChange"
)

// HasClusterAction says whether the user client is authenticated as may
// perform action on the cluster, from connectionStatus with
// showPrivileges: a privilege on {cluster: true} or {anyResource: true}
// naming the action, or anyAction. configureFailPoint needs none: real
// servers let anyone run it where test commands are enabled.
//
// A connection with no authenticated user is either on a server without
// access control (everything is allowed) or one that allows nothing; the
// server says which by its answer to serverStatus, which needs a
// privilege where access control is on.
func HasClusterAction(ctx context.Context, client *mongo.Client, action string) error {
	var st connectionStatus
	err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "connectionStatus", Value: 1}, {Key: "showPrivileges", Value: true}}).Decode(&st)
	if err != nil {
		return fmt.Errorf("whether the user may run %s cannot be asked: connectionStatus: %w", action, err)
	}
	if len(st.AuthInfo.Users) == 0 {
		err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Err()
		var ce mongo.CommandError
		switch {
		case err == nil:
			return nil // no access control
		case errors.As(err, &ce) && ce.Code == codeUnauthorized:
			return fmt.Errorf("%w %s on the cluster: no user is authenticated and the server requires one", ErrNoPrivilege, action)
		}
		return fmt.Errorf("whether the server has access control cannot be asked: serverStatus: %w", err)
	}
	if st.allows(action) {
		return nil
	}
	return fmt.Errorf("%w %s on the cluster (connectionStatus lists no such privilege for %s)", ErrNoPrivilege, action, st.users())
}

// connectionStatus is the part of connectionStatus's reply read here.
type connectionStatus struct {
	AuthInfo struct {
		Users []struct {
			User string `bson:"user"`
			DB   string `bson:"db"`
		} `bson:"authenticatedUsers"`
		Privileges []struct {
			Resource struct {
				Cluster     bool `bson:"cluster"`
				AnyResource bool `bson:"anyResource"`
			} `bson:"resource"`
			Actions []string `bson:"actions"`
		} `bson:"authenticatedUserPrivileges"`
	} `bson:"authInfo"`
}

// allows says whether the privileges listed allow action on the cluster.
func (s connectionStatus) allows(action string) bool {
	for _, p := range s.AuthInfo.Privileges {
		if !p.Resource.Cluster && !p.Resource.AnyResource {
			continue
		}
		if slices.Contains(p.Actions, action) || slices.Contains(p.Actions, "anyAction") {
			return true
		}
	}
	return false
}

// users names the authenticated users (names only: never a credential).
func (s connectionStatus) users() string {
	out := ""
	for i, u := range s.AuthInfo.Users {
		if i > 0 {
			out += ", "
		}
		out += u.User + "@" + u.DB
	}
	return out
}

// CheckHost asks host, through a client of its own (client, DirectTo's),
// whether a fail point can be set there: TestCommands's answer. It is
// what an event's check runs once the targets answer, before anything
// is loaded.
func CheckHost(ctx context.Context, client HostClient, host string) error {
	c, err := mongo.Connect(client(host))
	if err != nil {
		return fmt.Errorf("whether test commands are enabled on %s cannot be asked: %w", host, err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = c.Disconnect(dctx)
	}()
	if err := TestCommands(ctx, c); err != nil {
		return fmt.Errorf("on %s: %w", host, err)
	}
	return nil
}
