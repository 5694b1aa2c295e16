package inspect

import (
	"context"
	"fmt"
	"io"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/sweep/failpoint"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// PendingRestore is a server parameter a sweep changed (--server-param)
// and has not set back: its process was killed, or could not reach the
// server at its end. The run's --resume sets it back.
type PendingRestore struct {
	Host      string    `json:"host"`
	Parameter string    `json:"parameter"`
	Original  string    `json:"original"` // extended JSON, its BSON type kept
	RunID     string    `json:"run_id"`
	SetAt     time.Time `json:"set_at"`
	Process   string    `json:"process"`
}

// pendingRestores reads the parameter records of poolsweep's meta
// collection (in poolsweep's default database) that are not done. The
// meta collection may be absent or unreadable to this user: the answer
// is then said, never guessed.
func pendingRestores(ctx context.Context, uri string) ([]PendingRestore, error) {
	c, err := mongo.Connect(topology.ClientOptions(uri).SetTimeout(10 * time.Second))
	if err != nil {
		return nil, err
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = c.Disconnect(dctx)
	}()
	meta := c.Database(workload.DefaultWorkload().Database).Collection(workload.MetaCollection)
	recs, err := failpoint.PendingParams(ctx, meta, "")
	if err != nil {
		return nil, err
	}
	out := make([]PendingRestore, 0, len(recs))
	for _, r := range recs {
		p := PendingRestore{Host: r.Host, Parameter: r.Name, RunID: r.RunID, SetAt: r.SetAt, Process: r.Process}
		if v, err := r.Original.LookupErr("v"); err == nil {
			p.Original = v.String()
		}
		out = append(out, p)
	}
	return out, nil
}

// writePending says each pending restore on one line, or why they could
// not be read.
func writePending(w io.Writer, pending []PendingRestore, readErr string) {
	if readErr != "" {
		fmt.Fprintf(w, "pending restores: not known (%s)\n", textfmt.Line(readErr))
		return
	}
	for _, p := range pending {
		fmt.Fprintf(w, "pending restore: %s on %s was changed by run %s at %s (%s) and not set back; its original is %s, which that run's --resume sets back\n",
			textfmt.Escape(p.Parameter), textfmt.Escape(p.Host), textfmt.Escape(p.RunID), p.SetAt.Local().Format(time.DateTime), textfmt.Escape(p.Process), textfmt.Escape(p.Original))
	}
}
