package telemetry

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
)

// TestRoleFromHello samples simulated servers that answer as Windows
// services do, whose serverStatus.process is the executable's path
// (C:\Program Files\MongoDB\Server\8.0\bin\mongos.exe). The router must
// be told from its hello (msg:"isdbgrid"): its connPoolStats read and its
// shards found through listShards, no replSetGetStatus asked of it. The
// mongod must not be taken for one. Windows' extra_info has no CPU time:
// CPU is not reported (nil), never zero, while mem gives the RSS.
func TestRoleFromHello(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, spec string
		router     bool
	}{
		{"router", "shards=1,service=0s,os=windows", true},
		{"standalone", "service=0s,os=windows", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := testsrv.SimChild(t, tc.spec)
			host := testsrv.Host(t, srv.URI)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			status, err := testsrv.Connect(t, srv.URI).Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
			if err != nil {
				t.Fatal(err)
			}
			if p, _ := status.Lookup("process").StringValueOK(); !strings.HasPrefix(p, `C:\Program Files\MongoDB\`) {
				t.Fatalf("process %q: the simulator should answer as a Windows service", p)
			}

			s, err := NewServerSampler([]string{host}, SamplerOptions{Interval: 50 * time.Millisecond, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(ctx)
			if err := s.Start(ctx); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			st := s.Stop()
			if st.SamplerErrors != 0 {
				t.Errorf("%d sampler errors (%s)", st.SamplerErrors, st.SamplerError)
			}
			h := st.Hosts[host]
			if h == nil || h.Samples < 2 {
				t.Fatalf("host sample %+v", h)
			}
			if got := h.ConnPool != nil; got != tc.router {
				t.Errorf("connPoolStats read: %v, want %v (a router: %v)", got, tc.router, tc.router)
			}
			if got := len(st.Shards) == 1; got != tc.router {
				t.Errorf("shards %v: listShards asked of a router only", st.Shards)
			}
			if h.CPUPct != nil {
				t.Errorf("CPU %v%%: Windows reports no CPU time in extra_info, want not reported (nil)", *h.CPUPct)
			}
			if h.RSSMB == nil {
				t.Error("RSS not read from mem.resident")
			}
		})
	}
}

// TestIsRouterCorpus: every hello and isMaster reply of the corpus
// (testdata/servers) says router exactly when a mongos gave it.
func TestIsRouterCorpus(t *testing.T) {
	n := 0
	for _, f := range corpusFiles(t) {
		if f.Command != "hello" && f.Command != "isMaster" {
			continue
		}
		n++
		if got := isRouter(loadCorpus(t, f.Name)); got != (f.Process == "mongos") {
			t.Errorf("%s: router %v", f.Name, got)
		}
	}
	if n < 10 {
		t.Errorf("only %d hello replies in the corpus", n)
	}
}

// TestViewHostRouterFromHello: inspect --replies decides a router as the
// sampler does, from hello, whatever serverStatus.process says.
func TestViewHostRouterFromHello(t *testing.T) {
	raw := func(d bson.D) bson.Raw {
		b, err := bson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	winMongos := raw(bson.D{{Key: "process", Value: `C:\Program Files\MongoDB\Server\7.0\bin\mongos.exe`}, {Key: "version", Value: "7.0.14"}})
	for _, tc := range []struct {
		name    string
		replies map[string]bson.Raw
		router  bool
	}{
		// A Windows service's path names no "mongos" prefix; hello decides.
		{"windows router", map[string]bson.Raw{"serverStatus": winMongos, "hello": raw(bson.D{{Key: "msg", Value: "isdbgrid"}})}, true},
		// A process that calls itself mongos but answers hello as a mongod.
		{"named mongos, hello of a mongod", map[string]bson.Raw{"serverStatus": raw(bson.D{{Key: "process", Value: "mongos"}}), "hello": raw(bson.D{{Key: "isWritablePrimary", Value: true}})}, false},
		// Before 4.4: isMaster.
		{"isMaster of a router", map[string]bson.Raw{"isMaster": raw(bson.D{{Key: "ismaster", Value: true}, {Key: "msg", Value: "isdbgrid"}})}, true},
		// No hello (an FTDC folder): only a mongos collects connPoolStats.
		{"ftdc router", map[string]bson.Raw{"serverStatus": winMongos, "connPoolStats": raw(bson.D{{Key: "totalInUse", Value: int32(0)}})}, true},
		{"ftdc mongod", map[string]bson.Raw{"serverStatus": raw(bson.D{{Key: "process", Value: `C:\mongodb\bin\mongod.exe`}})}, false},
	} {
		if got := ViewHost(tc.replies); got.Router != tc.router || (got.Role == RoleMongos) != tc.router {
			t.Errorf("%s: router %v role %q, want router %v", tc.name, got.Router, got.Role, tc.router)
		}
	}
}
