package telemetry

// NotReported is the wording for a field the server did not report, e.g.
// "not reported by ferretdb". serverKind is TargetHeader.ServerKind.
func NotReported(serverKind string) string {
	if serverKind == "" {
		serverKind = "this server"
	}
	return "not reported by " + serverKind
}
