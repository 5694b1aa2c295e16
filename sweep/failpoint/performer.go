package failpoint

import (
	"context"
	"fmt"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/results"
)

// WorkloadCommands are the commands a fail point acts on: every command
// poolsweep's workloads send, and nothing the driver's monitors send
// (hello), so that the server stays selectable while it is slow.
var WorkloadCommands = []string{"find", "getMore", "insert", "update", "delete", "findAndModify", "aggregate", "count", "distinct"}

// Performer fires the slow and freeze events of a profile step into a
// real server through the failCommand fail point, on one host: the
// replica set's primary, the standalone, or a router. Its fail points go
// through Guard, so each is recorded before it is set, and switched off
// when its event ends (or at the run's end, at the latest).
type Performer struct {
	Guard *Guard
	// Host is where the fail point is set.
	Host string
	// AppName is the measured clients' appName: only their commands are
	// held.
	AppName string
	// ServiceTime is the server's time per command in the steady state
	// before the event: slow=F holds each command (F−1)×ServiceTime, so
	// that it takes F times as long. Zero refuses slow.
	ServiceTime time.Duration
	// Ended, when set, is told when an event's switch-off is done, with
	// its error (a fail point that may still be on).
	Ended func(event results.EventSpec, err error)
}

// Perform sets the fail point for event and schedules its switch-off
// after the event's duration. It returns the host it acted on and the
// event's length on the step's clock (from its firing until its trigger
// is gone). A freeze holds each command that arrives during it for the
// whole freeze: the server answers nothing new for D, and a command that
// arrived at its end is answered up to D later.
func (p *Performer) Perform(ctx context.Context, event results.EventSpec) (string, time.Duration, error) {
	d := time.Duration(event.DurationS * float64(time.Second))
	if d <= 0 {
		return p.Host, 0, fmt.Errorf("%s: a fail point needs a duration", event.Spec)
	}
	var block time.Duration
	switch event.Action {
	case results.EventFreeze:
		block = d
	case results.EventSlow:
		if p.ServiceTime <= 0 || event.Factor <= 1 || math.IsInf(event.Factor, 0) {
			return p.Host, 0, fmt.Errorf("%s: slowing by a fail point needs the steady service time and a factor above 1", event.Spec)
		}
		block = time.Duration((event.Factor - 1) * float64(p.ServiceTime))
		block = max(block.Round(time.Millisecond), time.Millisecond)
	default:
		return p.Host, 0, fmt.Errorf("%s: %s is not performed by a fail point", event.Spec, event.Action)
	}
	id, err := p.Guard.Set(ctx, p.Host, Command{FailCommands: WorkloadCommands, BlockConnection: true, BlockTime: block, AppName: p.AppName})
	if err != nil {
		return p.Host, 0, err
	}
	p.Guard.OffAfter(id, d, func(err error) {
		if p.Ended != nil {
			p.Ended(event, err)
		}
	})
	return p.Host, d, nil
}

// MeasuredAppName is the appName of the clients newClient builds (the
// URI's, else poolsweep's own): the one a fail point is limited to.
func MeasuredAppName(newClient func() *options.ClientOptions) string {
	if o := newClient(); o.AppName != nil {
		return *o.AppName
	}
	return ""
}
