package sweep

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/poolsweep/poolsweep/plan"
)

func (r *runner) prewarmTimeout() time.Duration {
	if r.PrewarmTimeout > 0 {
		return r.PrewarmTimeout
	}
	return 60 * time.Second
}

// prewarm pings from want×hosts goroutines per client until the pools hold
// want connections per client per host, the count stops growing for 5 s,
// or the bound passes. Every host's pool is filled: the driver spreads the
// workers over all mongos, so each pool grows toward want during the run
// anyway, and filling them first keeps the connection count steady over
// the window (and comparable between steps). Pings use no workload data.
// The driver opens at most maxConnecting connections at a time per pool,
// so large pools take a while.
func (r *runner) prewarm(ctx context.Context, spec plan.StepSpec, clients []*mongo.Client, pool *poolRecorder, want, hosts int) error {
	need := int64(want * len(clients) * hosts)
	deadline := time.Now().Add(r.prewarmTimeout())
	pctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var (
		wg       sync.WaitGroup
		firstErr atomic.Pointer[error]
		stop     atomic.Bool
	)
	ping := bson.D{{Key: "ping", Value: 1}}
	for _, c := range clients {
		admin := c.Database("admin")
		for i := 0; i < want*hosts; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() && pctx.Err() == nil {
					if err := pingWithin(pctx, admin, ping); err != nil && pctx.Err() == nil {
						// A slow or stuck server is what some steps measure:
						// note the error, back off, and let the step decide.
						firstErr.CompareAndSwap(nil, &err)
						time.Sleep(50 * time.Millisecond)
					}
				}
			}()
		}
	}
	// Let in-flight pings finish before cancelling: the driver closes a
	// connection whose operation is cancelled, which would undo the warm-up.
	defer func() { stop.Store(true); wg.Wait(); cancel() }()

	start := time.Now()
	lastGrowth, last := time.Now(), int64(-1)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		open := pool.open.Load()
		if open >= need {
			return nil
		}
		if open == 0 {
			// Not one connection, and a ping already failed: the server
			// cannot be reached (server selection gave up). Waiting out
			// the pre-warm bound would only delay saying so.
			if e := firstErr.Load(); e != nil {
				return fmt.Errorf("pre-warm: no connection could be opened: %w", *e)
			}
		}
		if open > last {
			last, lastGrowth = open, time.Now()
		}
		if time.Since(lastGrowth) > 5*time.Second && open > 0 {
			return nil
		}
		if r.Progress != nil {
			r.Progress(Progress{Step: spec, Phase: PhasePrewarm, Elapsed: time.Since(start), Open: int(open)})
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-pctx.Done():
			if open == 0 {
				if e := firstErr.Load(); e != nil {
					return fmt.Errorf("pre-warm: no connection could be opened within %s: %w", r.prewarmTimeout(), *e)
				}
				return fmt.Errorf("pre-warm: no connection could be opened within %s", r.prewarmTimeout())
			}
			return nil
		case <-tick.C:
		}
	}
}

// prewarmPingBound bounds one pre-warm ping: server selection and checkout
// as the driver's default server-selection timeout did before connect
// turned it off for the step's clients, so an unreachable server is
// reported as soon as before, and a ping waiting for a new connection is
// not cancelled (which would close the connection it gets).
const prewarmPingBound = 30 * time.Second

// The pings go to the nearest server, which on a replica set is any member
// (every member the read preference may send the workload to needs its
// pool), and makes no difference to a standalone or the mongos.
func pingWithin(ctx context.Context, admin *mongo.Database, ping bson.D) error {
	ctx, cancel := context.WithTimeout(ctx, prewarmPingBound)
	defer cancel()
	return admin.RunCommand(ctx, ping, anyMember).Err()
}

var anyMember = options.RunCmd().SetReadPreference(readpref.Nearest())
