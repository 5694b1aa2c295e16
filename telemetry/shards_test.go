package telemetry

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
)

// TestShardUnreachable: a shard the load host cannot reach is said once,
// the steps say shards_sampled false with the reason, no sampling error is
// counted for it, and the next window does not try again.
func TestShardUnreachable(t *testing.T) {
	t.Parallel()
	d := testsrv.Sim(t, "version=6.0,shards=2,slots=4,service=1ms")
	if err := d.CloseShardListener(1); err != nil {
		t.Fatal(err)
	}
	ss, err := NewServerSampler(d.Hosts(), SamplerOptions{Interval: 100 * time.Millisecond, ShardTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ss.Close(context.Background()) }()
	for window := range 2 {
		begin := time.Now()
		if err := ss.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		took := time.Since(begin)
		time.Sleep(200 * time.Millisecond)
		st := ss.Stop()
		if st.ShardsSampled == nil || *st.ShardsSampled || len(st.ShardHosts) != 0 {
			t.Fatalf("window %d: shards sampled %v, hosts %v: want false and none", window, st.ShardsSampled, st.ShardHosts)
		}
		want := fmt.Sprintf("shard shard1 (%s) could not be reached from this host within 1s", d.ShardHosts()[1])
		if !strings.Contains(st.ShardsNotSampled, want) {
			t.Errorf("window %d: reason %q, want it to contain %q", window, st.ShardsNotSampled, want)
		}
		if st.SamplerErrors != 0 {
			t.Errorf("window %d: %d sampler errors (%s): an unreachable shard is said once, not counted", window, st.SamplerErrors, st.SamplerError)
		}
		if window == 1 && took > 500*time.Millisecond {
			t.Errorf("second window took %v to start: the shards were looked for again", took)
		}
	}
}
