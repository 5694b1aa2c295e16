package sim

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// configureFailPoint's failCommand and getParameter, through the Go
// driver, answered as the server's source answers them.

func TestFailPointNeedsTestCommands(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, tc := range []struct {
		spec    string
		enabled bool
	}{{"service=0s", false}, {"service=0s,test_commands=true", true}, {"shards=1,service=0s", false}, {"shards=1,service=0s,test_commands=true", true}} {
		c := connect(t, startSim(t, tc.spec).URI(), 1)
		admin := c.Database("admin")
		r, err := admin.RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: "enableTestCommands", Value: 1}}).Raw()
		if err != nil {
			t.Fatalf("%s: getParameter: %v", tc.spec, err)
		}
		if got, ok := r.Lookup("enableTestCommands").BooleanOK(); !ok || got != tc.enabled {
			t.Errorf("%s: getParameter enableTestCommands = %v, want %v", tc.spec, r.Lookup("enableTestCommands"), tc.enabled)
		}
		err = admin.RunCommand(ctx, bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}}).Err()
		var ce mongo.CommandError
		switch {
		case !tc.enabled && (!errors.As(err, &ce) || ce.Code != 59):
			t.Errorf("%s: configureFailPoint without test commands: %v, want CommandNotFound", tc.spec, err)
		case tc.enabled && err != nil:
			t.Errorf("%s: configureFailPoint with test commands: %v", tc.spec, err)
		}
	}
	// A parameter the simulator does not have is one the server lacks.
	c := connect(t, startSim(t, "service=0s").URI(), 1)
	err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: "noSuchParameter", Value: 1}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 72 || ce.Message != "no option found to get" {
		t.Errorf("getParameter of an unknown name: %v, want InvalidOptions", err)
	}
}

// TestFailCommandBlockAndError: blockConnection delays the matching
// commands blockTimeMS, {times: n} spends itself, errorCode fails with
// the server's message and code name, closeConnection closes the
// connection, and the reply's count is the times entered before.
func TestFailCommandBlockAndError(t *testing.T) {
	t.Parallel()
	d := startSim(t, "service=0s,test_commands=true")
	ctx := t.Context()
	c := connect(t, d.URI(), 2)
	admin := c.Database("admin")
	coll := c.Database("db").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	set := func(mode any, data bson.D) bson.Raw {
		t.Helper()
		cmd := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: mode}}
		if data != nil {
			cmd = append(cmd, bson.E{Key: "data", Value: data})
		}
		r, err := admin.RunCommand(ctx, cmd).Raw()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	find := func() (time.Duration, error) {
		t0 := time.Now()
		err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Err()
		return time.Since(t0), err
	}
	r := set(bson.D{{Key: "times", Value: 2}}, bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: 300}})
	if v, ok := r.Lookup("count").Int32OK(); !ok || v != 0 {
		t.Errorf("configureFailPoint reply %v, want count 0 (int32)", r)
	}
	for i := range 3 {
		took, err := find()
		if err != nil {
			t.Fatal(err)
		}
		if blocked := took >= 300*time.Millisecond; blocked != (i < 2) {
			t.Errorf("find %d took %v with {times: 2} and blockTimeMS 300", i+1, took)
		}
	}
	// An error code: the message and name the server gives; a find is not
	// a retryable write, so no label. (A state-change code such as 91
	// would also make the driver mark the server Unknown and wait for its
	// monitor, as with a real server.)
	r = set("alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "errorCode", Value: 50}})
	if v := r.Lookup("count").Int32(); v != 2 {
		t.Errorf("count %d after two activations, want 2", v)
	}
	_, err := find()
	var ce mongo.ServerError
	if !errors.As(err, &ce) || !ce.HasErrorCode(50) || !ce.HasErrorMessage("Failing command via 'failCommand' failpoint") {
		t.Errorf("find with errorCode 50: %v", err)
	}
	raw, _ := c.Database("db").RunCommand(ctx, bson.D{{Key: "find", Value: "c"}}).Raw()
	if raw.Lookup("codeName").StringValue() != "MaxTimeMSExpired" || raw.Lookup("ok").Double() != 0 {
		t.Errorf("the failed find's reply %v", raw)
	}
	set("alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "errorCode", Value: 12345}})
	raw, _ = c.Database("db").RunCommand(ctx, bson.D{{Key: "find", Value: "c"}}).Raw()
	if raw.Lookup("codeName").StringValue() != "Location12345" {
		t.Errorf("an unnamed code's reply %v, want codeName Location12345", raw)
	}
	// closeConnection: no reply, the connection closed.
	set(bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "failCommands", Value: bson.A{"ping"}}, {Key: "closeConnection", Value: true}})
	if err := c.Ping(ctx, nil); !mongo.IsNetworkError(err) {
		t.Errorf("ping with closeConnection: %v, want a network error", err)
	}
	set("off", nil)
	if _, err := find(); err != nil {
		t.Errorf("find with the fail point off: %v", err)
	}
	// appName: only that application's connections.
	set("alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "errorCode", Value: 2}, {Key: "appName", Value: "victim"}})
	if _, err := find(); err != nil {
		t.Errorf("a find of another application failed: %v", err)
	}
	v, err := mongo.Connect(options.Client().ApplyURI(d.URI()).SetAppName("victim").SetTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer disconnect(v)
	if err := v.Database("db").Collection("c").FindOne(ctx, bson.D{}).Err(); !errors.As(err, &ce) || !ce.HasErrorCode(2) {
		t.Errorf("the named application's find: %v, want code 2", err)
	}
	set("off", nil)
}

func TestConfigureFailPointRefusals(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := connect(t, startSim(t, "service=0s,test_commands=true").URI(), 1)
	for _, tc := range []struct {
		cmd      bson.D
		db       string
		code     int32
		codeName string
	}{
		{bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}}, "db", 13, "Unauthorized"},
		{bson.D{{Key: "configureFailPoint", Value: "failCommand"}}, "admin", 20, "IllegalOperation"},
		{bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "sometimes"}}, "admin", 2, "BadValue"},
		{bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "times", Value: -1}}}}, "admin", 2, "BadValue"},
		{bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: 1}}, "admin", 14, "TypeMismatch"},
		{bson.D{{Key: "configureFailPoint", Value: "noSuchFailPoint"}, {Key: "mode", Value: "off"}}, "admin", 266, "FailPointSetFailed"},
	} {
		raw, _ := c.Database(tc.db).RunCommand(ctx, tc.cmd).Raw()
		if raw.Lookup("code").Int32() != tc.code || raw.Lookup("codeName").StringValue() != tc.codeName {
			t.Errorf("%v on %s: %v, want %d %s", tc.cmd, tc.db, raw, tc.code, tc.codeName)
		}
	}
	// The reply has count (int32) from 4.4, none before: the handler
	// itself, as the Go driver v2 does not talk to 4.2.
	for _, v := range []string{"4.2", "4.4"} {
		version, _ := versionOf(v)
		f := &frontend{d: &Deployment{version: version, spec: Spec{TestCommands: true}}}
		body, _ := bson.Marshal(bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}})
		reply, err := cmdConfigureFailPoint(f, ctx, &connState{}, &cmd{name: "configureFailPoint", db: "admin", body: body})
		if err != nil {
			t.Fatal(err)
		}
		if hasCount := len(reply) == 1 && reply[0].Key == "count"; hasCount != (v == "4.4") {
			t.Errorf("%s: configureFailPoint reply %v", v, reply)
		}
	}
}

// TestFailCommandBlockLittle: blockConnection holds each matching
// command's connection for blockTimeMS B, so at an arrival rate λ a
// client holds about λ·(B + s) connections in use (Little's law), as the
// slow event's λ·F·s: with λ = 100/s, B = 190 ms and s = 10 ms, 20.
func TestFailCommandBlockLittle(t *testing.T) {
	t.Parallel()
	const (
		rate    = 100.0
		service = 10 * time.Millisecond
		block   = 190 * time.Millisecond
	)
	d := startSim(t, "slots=64,service=10ms,test_commands=true")
	var u inUse
	c, err := mongo.Connect(options.Client().ApplyURI(d.URI()).SetMaxPoolSize(200).SetTimeout(10 * time.Second).SetPoolMonitor(u.monitor()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disconnect(c) })
	ctx := t.Context()
	if err := c.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var sent, errs atomic.Int64
	var lat latencies
	wg := openLoop(ctx, c.Database("db").Collection("c"), rate, stop, &sent, &errs, &lat)
	time.Sleep(time.Second) // the pool reaches its steady state first
	err = connect(t, d.URI(), 1).Database("admin").RunCommand(ctx, bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "alwaysOn"},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: block.Milliseconds()}}}}).Err()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(block + service + 250*time.Millisecond)
	var peak float64
	n0, t0 := sent.Load(), time.Now()
	for range 4 {
		u.start()
		time.Sleep(250 * time.Millisecond)
		m, _ := u.end()
		peak = max(peak, m)
	}
	t1 := time.Now()
	arrivals := float64(sent.Load()-n0) / t1.Sub(t0).Seconds()
	close(stop)
	wg.Wait()
	held := block + service
	want := arrivals * held.Seconds()
	// As in TestSimEventSlowLittle: the simulator is judged by the median
	// read (B + s), the pool by Little's law for the latency measured on
	// this host.
	meanW, medianW := lat.within(t0, t1)
	little := arrivals * max(held, meanW).Seconds()
	t.Logf("arrivals %.0f/s: peak interval mean in use %.1f; λ·(B+s) %.1f, λ·W %.1f (W %v, median %v)", arrivals, peak, want, little, meanW, medianW)
	if medianW < held || medianW > held*115/100 {
		t.Errorf("median find latency %v with blockTimeMS %v, want B + s = %v (+15%%)", medianW, block, held)
	}
	if peak < 0.85*want || peak > 1.15*little {
		t.Errorf("peak interval mean in use %.1f with blockTimeMS %v at %.0f/s, want λ·(B+s) = %.1f (λ·W = %.1f on this host) ±15%%", peak, block, arrivals, want, little)
	}
	if errs.Load() > 0 {
		t.Errorf("%d finds failed; a block without an error code fails none", errs.Load())
	}
}

// TestFailCommandRetryableWrite: on a replica set, a retryable write that
// the fail point fails with a retryable code carries RetryableWriteError
// (4.4+), as a real server labels it, and the driver's retry succeeds;
// errorLabels given in the data replace the server's.
func TestFailCommandRetryableWrite(t *testing.T) {
	t.Parallel()
	d := startSim(t, "rs=3,service=0s,test_commands=true")
	ctx := t.Context()
	var failed failures
	c, _ := connectWatched(t, d.URI(), 2, options.Client().SetMonitor(failed.monitor()))
	primary, err := d.waitPrimary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	direct := connect(t, "mongodb://"+primary+"/?directConnection=true", 1)
	set := func(data bson.D) {
		t.Helper()
		err := direct.Database("admin").RunCommand(ctx, bson.D{{Key: "configureFailPoint", Value: "failCommand"},
			{Key: "mode", Value: bson.D{{Key: "times", Value: 1}}}, {Key: "data", Value: data}}).Err()
		if err != nil {
			t.Fatal(err)
		}
	}
	coll := c.Database("db").Collection("c")
	set(bson.D{{Key: "failCommands", Value: bson.A{"insert"}}, {Key: "errorCode", Value: 262}})
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatalf("the retried insert: %v", err)
	}
	set(bson.D{{Key: "failCommands", Value: bson.A{"insert"}}, {Key: "errorCode", Value: 262}, {Key: "errorLabels", Value: bson.A{}}})
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err == nil {
		t.Error("an insert failed without labels was retried to success")
	}
	failed.mu.Lock()
	defer failed.mu.Unlock()
	if len(failed.codes) != 2 || failed.codes[0] != 262 || !failed.retry[0] || failed.retry[1] {
		t.Errorf("failures the driver saw: codes %v, RetryableWriteError %v; want 262 labelled, then 262 not", failed.codes, failed.retry)
	}
}
