package topology

// Hosts is the host list of a connection string as the driver parses it
// (host:port each; for mongodb+srv the SRV name, which is resolved only on
// connect: this makes no DNS lookup). It never returns credentials.
func Hosts(uri string) ([]string, error) {
	cs, _, err := parseOffline(uri)
	if err != nil {
		return nil, driverError(err, uri)
	}
	return cs.Hosts, nil
}
