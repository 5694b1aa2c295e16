package sweep

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/poolsweep/poolsweep/results"
)

// The driver keeps one pool per server it talks to: per member of a
// replica set (all of them, whatever the read preference), per mongos.
// maxPoolSize bounds each, so "how many connections" is a question per
// host. Its pool events name the server (PoolEvent.Address); hostPools
// keeps the step's numbers per server from them, and primaryWatch the
// servers' roles from the clients' server monitors.

// hostStripes spread one server's checkout waits over this many
// histograms, as the step's own are (recorder.go), so that workers
// checking out of one pool do not queue on one lock.
const hostStripes = 4

// hostPool is the step's pools to one server, summed over its clients.
type hostPool struct {
	open, maxOpen, inUse, inUseMax atomic.Int64
	created, lost                  atomic.Int64
	checkouts, failed              atomic.Int64
	s                              [hostStripes]struct {
		mu sync.Mutex
		h  *hdr.Histogram
	}
}

// hostPools are the step's pools by server address.
type hostPools struct {
	m         sync.Map // address → *hostPool
	measuring *atomic.Bool
}

func (hp *hostPools) get(addr string) *hostPool {
	if p, ok := hp.m.Load(addr); ok {
		return p.(*hostPool)
	}
	p := &hostPool{}
	for i := range p.s {
		p.s[i].h = hdr.New(1, 600_000_000, 3)
	}
	actual, _ := hp.m.LoadOrStore(addr, p)
	return actual.(*hostPool)
}

// raise sets m to n when n is larger.
func raise(m *atomic.Int64, n int64) {
	for {
		v := m.Load()
		if n <= v || m.CompareAndSwap(v, n) {
			return
		}
	}
}

// event adds one pool event to its server's numbers.
func (hp *hostPools) event(e *event.PoolEvent) {
	p := hp.get(e.Address) // "" would be a server the event did not name

	measuring := hp.measuring.Load()
	switch e.Type {
	case event.ConnectionCreated:
		n := p.open.Add(1)
		if measuring {
			p.created.Add(1)
			raise(&p.maxOpen, n)
		}
	case event.ConnectionClosed:
		p.open.Add(-1)
		if measuring && (e.Reason == event.ReasonError || e.Reason == event.ReasonStale || e.Reason == event.ReasonConnectionErrored) {
			p.lost.Add(1)
		}
	case event.ConnectionCheckedOut:
		n := p.inUse.Add(1)
		if measuring {
			raise(&p.inUseMax, n)
			p.checkouts.Add(1)
			us := min(max(int64(e.Duration/time.Microsecond), 1), 600_000_000)
			s := &p.s[uint64(e.ConnectionID)%hostStripes]
			s.mu.Lock()
			s.h.RecordValue(us)
			s.mu.Unlock()
		}
	case event.ConnectionCheckedIn:
		p.inUse.Add(-1)
	case event.ConnectionCheckOutFailed:
		if measuring {
			p.failed.Add(1)
		}
	}
}

// openWindow starts the window's counts from what is open now.
func (hp *hostPools) openWindow() {
	hp.m.Range(func(_, v any) bool {
		p := v.(*hostPool)
		p.maxOpen.Store(p.open.Load())
		p.inUseMax.Store(p.inUse.Load())
		return true
	})
}

// summary is the window's numbers per server, sorted by address; open is
// what was open per server when the window opened, roles what each was then.
func (hp *hostPools) summary(open map[string]int, roles map[string]string) []results.HostPool {
	var out []results.HostPool
	hp.m.Range(func(k, v any) bool {
		addr, p := k.(string), v.(*hostPool)
		if addr == "" {
			return true
		}
		h := hdr.New(1, 600_000_000, 3)
		p.mergeInto(h)
		out = append(out, results.HostPool{Host: addr, Role: roles[addr], ConnectionsOpen: open[addr],
			ConnectionsMax: int(p.maxOpen.Load()), InUseMax: int(p.inUseMax.Load()),
			ConnectionsCreated: p.created.Load(), ConnectionsLost: p.lost.Load(),
			Checkouts: p.checkouts.Load(), CheckoutFailed: p.failed.Load(), CheckoutWait: results.NewQuantiles(h)})
		return true
	})
	slices.SortFunc(out, func(a, b results.HostPool) int { return strings.Compare(a.Host, b.Host) })
	return out
}

// mergeInto adds the server's checkout waits to h.
func (p *hostPool) mergeInto(h *hdr.Histogram) {
	for i := range p.s {
		p.s[i].mu.Lock()
		h.Merge(p.s[i].h)
		p.s[i].mu.Unlock()
	}
}

// histogram is the window's checkout waits over every server: the step's,
// kept only per server so that each checkout is recorded once.
func (hp *hostPools) histogram() *hdr.Histogram {
	h := hdr.New(1, 600_000_000, 3)
	hp.m.Range(func(_, v any) bool {
		v.(*hostPool).mergeInto(h)
		return true
	})
	return h
}

// openNow is the connections open per server now.
func (hp *hostPools) openNow() map[string]int {
	out := map[string]int{}
	hp.m.Range(func(k, v any) bool {
		out[k.(string)] = int(v.(*hostPool).open.Load())
		return true
	})
	return out
}
