package sim

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestConnCostSpec parses conn_mem and max_conns, prints them back, and
// refuses what a real server would not take.
func TestConnCostSpec(t *testing.T) {
	for _, tt := range []struct {
		in, canon string
		mem       int64
		max       int
	}{
		// Binary units, printed in the largest unit that divides.
		{"conn_mem=1MiB", "conn_mem=1MiB", 1 << 20, 0},
		{"conn_mem=256KiB,max_conns=50", "conn_mem=256KiB,max_conns=50", 256 << 10, 50},
		{"conn_mem=1000", "conn_mem=1000", 1000, 0},
		{"conn_mem=2048", "conn_mem=2KiB", 2048, 0},
		// 0 is the default: nothing added, nothing printed.
		{"conn_mem=0", "", 0, 0},
		{"max_conns=1000000", "max_conns=1000000", 0, 1000000},
		{"hello_cost=50us,conn_mem=1KiB", "conn_mem=1KiB,hello_cost=50us", 1 << 10, 0},
	} {
		s, err := ParseSpec(tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if s.ConnMem != tt.mem || s.MaxConns != tt.max {
			t.Errorf("%s: conn_mem %d, max_conns %d; want %d, %d", tt.in, s.ConnMem, s.MaxConns, tt.mem, tt.max)
		}
		if got := strings.Join(s.connCostString(), ","); got != tt.canon {
			t.Errorf("%s prints %q, want %q", tt.in, got, tt.canon)
		}
		if again, err := ParseSpec(s.String()); err != nil || again != s {
			t.Errorf("round trip of %s: %+v, %v", s.String(), again, err)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"conn_mem=1GB", "conn_mem=1GB: not a size"},
		{"conn_mem=1KB", "conn_mem=1KB: not a size"},
		{"conn_mem=-1", "conn_mem=-1: not a size"},
		{"conn_mem=2000MiB", "conn_mem=2000MiB: not a size"},
		{"max_conns=0", "max_conns=0: must be at least 1"},
		{"max_conns=1000001", "max_conns=1000001: must be between 1 and 1000000"},
		{"max_conns=ten", "max_conns=ten: not an integer"},
		{"hello_cost=2s", "hello_cost=2s: must be between 0s and 1s"},
		{"hello_cost=fast", "hello_cost=fast: not a duration"},
	} {
		_, err := ParseSpec(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.in, err, tt.want)
		}
	}
}

// dialHello opens a connection to host and waits for its hello's answer,
// so that the server has counted it; it returns the connection, or the
// error a refused one ends with.
func dialHello(t *testing.T, host string) (net.Conn, error) {
	t.Helper()
	c, err := net.DialTimeout("tcp", host, 10*time.Second)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(opMsg(t, bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}}, 0, false)); err != nil {
		c.Close()
		return nil, err
	}
	if _, err := readMessage(bufio.NewReader(c)); err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return c, nil
}

// statusNum reads a number from f's serverStatus.
func statusNum(t *testing.T, f *frontend, path ...string) (int64, bool) {
	t.Helper()
	raw := bson.Raw(mustMarshal(t, f.serverStatus()))
	v, err := raw.LookupErr(path...)
	if err != nil {
		return 0, false
	}
	n, ok := v.AsInt64OK()
	return n, ok
}

// TestConnMemAndLimit holds the ground truth of a connection sweep: with
// conn_mem=1MiB, mem.resident (whole MB, as a real server's) grows by one
// MB per open connection; with max_conns=N, connections.current +
// available is N, the (N+1)-th connection is closed unanswered and
// counted in connections.rejected, as a real server refuses one past
// net.maxIncomingConnections.
func TestConnMemAndLimit(t *testing.T) {
	const limit = 40
	d := startSim(t, "service=0s,version=8.0,conn_mem=1MiB,max_conns=40")
	f := d.fronts[0]
	host := d.Hosts()[0]
	base, ok := statusNum(t, f, "mem", "resident")
	if !ok {
		t.Fatal("serverStatus has no mem.resident with conn_mem set")
	}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 1; i <= limit; i++ {
		c, err := dialHello(t, host)
		if err != nil {
			t.Fatalf("connection %d of %d: %v", i, limit, err)
		}
		conns = append(conns, c)
		if i%10 != 0 {
			continue
		}
		res, _ := statusNum(t, f, "mem", "resident")
		cur, _ := statusNum(t, f, "connections", "current")
		avail, _ := statusNum(t, f, "connections", "available")
		if res-base != cur {
			t.Errorf("%d connections: mem.resident grew by %d MB, want %d (1MiB each)", cur, res-base, cur)
		}
		if cur+avail != limit {
			t.Errorf("%d connections: current %d + available %d = %d, want the limit %d", i, cur, avail, cur+avail, limit)
		}
	}
	if c, err := dialHello(t, host); err == nil {
		c.Close()
		t.Fatalf("connection %d past max_conns=%d was answered", limit+1, limit)
	}
	rej, ok := statusNum(t, f, "connections", "rejected")
	if !ok || rej != 1 {
		t.Errorf("connections.rejected = %d (reported %v), want 1", rej, ok)
	}
	// Closing connections gives their memory back.
	for _, c := range conns[:20] {
		c.Close()
	}
	conns = conns[20:]
	deadline := time.Now().Add(10 * time.Second)
	for {
		cur, _ := statusNum(t, f, "connections", "current")
		res, _ := statusNum(t, f, "mem", "resident")
		if cur == 20 && res-base == 20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after closing 20 of 40: current %d, resident grew by %d MB; want 20 and 20", cur, res-base)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestConnMemLeftOut: without conn_mem, a simulator inside the load's
// process reports no mem at all (its process's memory is the client's
// too), as before.
func TestConnMemLeftOut(t *testing.T) {
	d := startSim(t, "service=0s")
	if _, ok := statusNum(t, d.fronts[0], "mem", "resident"); ok {
		t.Error("mem.resident reported without conn_mem by a simulator in the load's process")
	}
}

// TestHelloCost: with hello_cost=1ms each hello a server answers adds
// 1 ms to the CPU time it reports (extra_info.user_time_us, reported by a
// simulator alone in its process), beside the process's own: 200 hellos
// add 200 ms more than this process spent meanwhile. Without it hellos
// add nothing of their own.
func TestHelloCost(t *testing.T) {
	for _, tt := range []struct {
		spec string
		want time.Duration
	}{{"service=0s,hello_cost=1ms", 200 * time.Millisecond}, {"service=0s", 0}} {
		d := startAlone(t, tt.spec)
		f := d.fronts[0]
		read := func() (reported, own int64) {
			ru, ok := selfUsage()
			if !ok {
				t.Skip("no getrusage here")
			}
			u, _ := statusNum(t, f, "extra_info", "user_time_us")
			s, _ := statusNum(t, f, "extra_info", "system_time_us")
			return u + s, ru.userMicros + ru.systemMicros
		}
		r0, o0 := read()
		c, err := dialHello(t, d.Hosts()[0]) // the first of 200 hellos
		if err != nil {
			t.Fatal(err)
		}
		hello := opMsg(t, bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}}, 0, false)
		br := bufio.NewReader(c)
		for range 199 {
			if _, err := c.Write(hello); err != nil {
				t.Fatal(err)
			}
			if _, err := readMessage(br); err != nil {
				t.Fatal(err)
			}
		}
		c.Close()
		r1, o1 := read()
		// The process's own time is read just after the server's: the
		// server's share of it can lag by what the last read cost.
		extra := time.Duration(r1-r0-(o1-o0)) * time.Microsecond
		if extra < tt.want-20*time.Millisecond || extra > tt.want+20*time.Millisecond {
			t.Errorf("%s: 200 hellos added %s beyond the process's own CPU, want %s", tt.spec, extra, tt.want)
		}
	}
}
