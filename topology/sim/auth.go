package sim

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The simulator accepts any PLAIN credentials, as FerretDB does, so that
// connection strings with a user and password (and what poolsweep prints
// about them) can be tested against it. Other mechanisms fail as mongod
// fails an unknown user: the simulator keeps no users to check against.

// errAuthFailed is mongod's reply to credentials it does not accept.
var errAuthFailed = &cmdError{Code: 18, Name: "AuthenticationFailed", Msg: "Authentication failed."}

// cmdSaslStart accepts a PLAIN conversation in one step.
func cmdSaslStart(_ *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	mech, err := c.str("mechanism")
	if err != nil {
		return nil, err
	}
	if mech != "PLAIN" {
		return nil, errAuthFailed
	}
	return saslDone(), nil
}

// cmdSaslContinue ends any conversation: PLAIN is done after saslStart.
func cmdSaslContinue(*frontend, context.Context, *connState, *cmd) (bson.D, error) {
	return saslDone(), nil
}

func saslDone() bson.D {
	return bson.D{
		{Key: "conversationId", Value: int32(1)},
		{Key: "done", Value: true},
		{Key: "payload", Value: bson.Binary{Data: []byte{}}},
	}
}
