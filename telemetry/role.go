package telemetry

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// askRole decides, once per host, whether the host is a mongos router:
// from hello (isMaster on a server before 4.4, which has no hello), where
// a router answers msg:"isdbgrid", as drivers decide. Never from
// serverStatus.process: a Windows service reports its executable's path
// there (C:\Program Files\MongoDB\Server\7.0\bin\mongos.exe), and the
// name says nothing the server did not choose to say. A host that does
// not answer is asked again at its next sample.
func (h *hostSampler) askRole(ctx context.Context, timeout time.Duration) error {
	if h.roleKnown {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	admin := h.client.Database("admin")
	raw, err := admin.RunCommand(cctx, bson.D{{Key: "hello", Value: 1}}).Raw()
	if err != nil {
		var err2 error
		if raw, err2 = admin.RunCommand(cctx, bson.D{{Key: "isMaster", Value: 1}}).Raw(); err2 != nil {
			return fmt.Errorf("hello on %s: %w", h.host, err)
		}
	}
	h.router = isRouter(raw)
	h.roleKnown = true
	return nil
}

// isRouter says whether a hello (or isMaster) reply is a mongos's.
func isRouter(hello bson.Raw) bool {
	return newReply("hello", hello).str("msg") == "isdbgrid"
}
