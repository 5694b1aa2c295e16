package sim

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestAuthPlainAcceptedOthersRefused(t *testing.T) {
	d := startSim(t, "slots=2,service=0s")
	host := d.Hosts()[0]
	// PLAIN: any user and password, as FerretDB.
	c := connect(t, "mongodb://alice:s3cret@"+host+"/?authMechanism=PLAIN", 1)
	if err := c.Database("admin").RunCommand(t.Context(), bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatalf("PLAIN: %v", err)
	}
	// SCRAM (the driver's default): refused like an unknown user.
	c = connect(t, "mongodb://alice:s3cret@"+host+"/?serverSelectionTimeoutMS=2000", 1)
	err := c.Database("admin").RunCommand(t.Context(), bson.D{{Key: "ping", Value: 1}}).Err()
	if err == nil || !strings.Contains(err.Error(), "AuthenticationFailed") {
		t.Fatalf("SCRAM: %v, want AuthenticationFailed", err)
	}
}
