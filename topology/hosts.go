package topology

import (
	"errors"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
)

// Hosts is the host list of a connection string as the driver parses it
// (host:port each; for mongodb+srv the SRV name, which is resolved only on
// connect). It never returns credentials.
func Hosts(uri string) ([]string, error) {
	cs, err := connstring.Parse(uri)
	if err != nil {
		return nil, errors.New(Redact(err.Error()))
	}
	return cs.Hosts, nil
}
