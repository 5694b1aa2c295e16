package querylog

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestRealOwnWork reads lines of two members of a real 6.0.14 replica set
// (testdata/real, from simagix/hatchet, Apache-2.0): the logical-session
// refresh and reap, the HMAC key monitor, an index build, tenant
// migration, a member's oplog fetch, a time-series collection's bucket
// update and an admin aggregation are the server's own work; only the
// application's (Keyhole Lib's) insert, update and count are kept, and
// every one left out is counted by its kind.
func TestRealOwnWork(t *testing.T) {
	rows := []struct {
		file    string
		ops     map[string]int
		skipped map[string]int64
		inserts InsertsLogged
	}{
		{"testdata/real/hatchet-replica-rs1-6.0.14.log",
			map[string]int{"insert testdb.lookups": 1, "update testdb.dealers": 1, "count testdb.favorites": 1},
			// monitoring-keys-for-HMAC, IndexBuildsCoordinatorMongod-0,
			// OplogFetcher; system.buckets.ts_seconds, admin; replSetInitiate.
			map[string]int64{skipThread: 3, skipInternal: 2, skipOther: 1},
			InsertsLogged{None: 1}},
		{"testdata/real/hatchet-replica-rs2-6.0.14.log",
			map[string]int{"insert testdb.lookups": 1, "update testdb.dealers": 1},
			// LogicalSessionCacheRefresh's statement, batch and index,
			// LogicalSessionCacheReap, TenantMigrationDonorService-1; a
			// member's update of config.system.sessions on a client
			// connection.
			map[string]int64{skipThread: 5, skipInternal: 1},
			InsertsLogged{None: 1}},
	}
	for _, r := range rows {
		ops, rep, err := readAll(t, Options{}, r.file)
		if err != nil {
			t.Fatalf("%s: %v", r.file, err)
		}
		got := map[string]int{}
		for _, op := range ops {
			got[op.Command+" "+op.Database+"."+op.Collection]++
		}
		if fmt.Sprint(got) != fmt.Sprint(r.ops) {
			t.Errorf("%s: ops %v, want %v", r.file, got, r.ops)
		}
		if fmt.Sprint(rep.Skipped) != fmt.Sprint(r.skipped) {
			t.Errorf("%s: left out %v, want %v", r.file, rep.Skipped, r.skipped)
		}
		if rep.Inserts != r.inserts || len(rep.Warnings) != 0 {
			t.Errorf("%s: inserts %+v (want %+v), warnings %v", r.file, rep.Inserts, r.inserts, rep.Warnings)
		}
	}
}

// entry is a slow-query line in mongod's documented format, with ctx,
// appName (none when "") and the attributes' type, ns and command; extra
// is appended to the entry's top level (after attr).
func entry(ctx, app, typ, ns, command, extra string) string {
	a := ""
	if app != "" {
		a = fmt.Sprintf(`"appName":%q,`, app)
	}
	return fmt.Sprintf(`{"t":{"$date":"2025-03-01T10:00:00.000+00:00"},"s":"I","c":"COMMAND","id":51803,"ctx":%q,"msg":"Slow query",`+
		`"attr":{"type":%q,"ns":%q,%s"command":%s,"planSummary":"COLLSCAN","docsExamined":3,"nreturned":1,"reslen":100,"durationMillis":120}%s}`,
		ctx, typ, ns, a, command, extra)
}

const appFind = `{"find":"orders","filter":{"status":"A"},"$db":"shop"}`

// TestOwnWork: every operation the server or its tools run on their own
// behalf is left out and counted by its kind; the application's beside
// it are kept. Built from mongod's documented log format, one row per
// case of the class.
func TestOwnWork(t *testing.T) {
	rows := []struct {
		name string
		line string
		app  string // --app
		kind string // "" when the operation is kept
	}{
		{"client connection", entry("conn12", "shop", "command", "shop.orders", appFind, ""), "", ""},
		{"no ctx said", strings.Replace(entry("conn1", "", "command", "shop.orders", appFind, ""), `"ctx":"conn1",`, "", 1), "", ""},
		// The server's own threads.
		{"session refresh update", entry("LogicalSessionCacheRefresh", "", "update", "config.system.sessions",
			`{"q":{"_id":{"id":{"$uuid":"6712143d-c644-4e18-a627-555ac42f35e5"}}},"u":[{"$set":{"lastUse":"$$NOW"}}],"multi":false,"upsert":true}`, ""), "", skipThread},
		{"session reap remove", entry("LogicalSessionCacheReap", "", "remove", "config.system.sessions", `{"q":{"lastUse":{"$lt":1}},"limit":0}`, ""), "", skipThread},
		{"TTL monitor on a user collection", entry("TTLMonitor", "", "remove", "shop.carts", `{"q":{"at":{"$lt":1}},"limit":0}`, ""), "", skipThread},
		{"secondary's oplog applier", entry("ReplWriterWorker-3", "", "update", "shop.orders", `{"q":{"_id":1},"u":{"$set":{"a":1}}}`, ""), "", skipThread},
		{"ctx conn without a number", entry("connpool", "", "command", "shop.orders", appFind, ""), "", skipThread},
		{"a member's oplog fetcher", entry("conn9", "OplogFetcher", "command", "shop.orders", appFind, ""), "", skipThread},
		// Internal namespaces, whoever runs on them, writes too.
		{"update on config from a client", entry("conn39", "", "update", "config.system.sessions", `{"q":{"_id":1},"u":{"$set":{"a":1}}}`, ""), "", skipInternal},
		{"remove on local", entry("conn3", "", "remove", "local.things", `{"q":{"a":1},"limit":1}`, ""), "", skipInternal},
		{"find on admin", entry("conn3", "", "command", "admin.users", `{"find":"users","filter":{},"$db":"admin"}`, ""), "", skipInternal},
		{"system.profile", entry("conn3", "", "command", "shop.system.profile", `{"find":"system.profile","filter":{},"$db":"shop"}`, ""), "", skipInternal},
		{"time-series buckets", entry("conn3", "app", "update", "shop.system.buckets.metrics", `{"q":{"_id":{"$oid":"65f78400e7793629208b625f"}},"multi":false,"upsert":false}`, ""), "", skipInternal},
		{"system.js through $cmd", entry("conn3", "", "command", "shop.$cmd", `{"insert":"system.js","$db":"shop"}`, ""), "", skipInternal},
		// Tools.
		{"Compass", entry("conn5", "MongoDB Compass 1.42.0", "command", "shop.orders", appFind, ""), "", skipTool},
		{"Automation Agent", entry("conn5", "MongoDB Automation Agent v13.10.0 (git: x)", "command", "shop.orders", appFind, ""), "", skipTool},
		{"Monitoring Module", entry("conn5", "MongoDB Monitoring Module v2.10.1", "command", "shop.orders", appFind, ""), "", skipTool},
		{"mongodump", entry("conn5", "mongodump", "command", "shop.orders", appFind, ""), "", skipTool},
		{"Atlas Search", entry("conn5", "mongot steady state", "command", "shop.orders", appFind, ""), "", skipTool},
		{"--app names the tool", entry("conn5", "MongoDB Compass", "command", "shop.orders", appFind, ""), "MongoDB Compass", ""},
		// Statistics, whoever sends them.
		{"mongosh $collStats", entry("conn5", "mongosh 2.0.1", "command", "shop.orders",
			`{"aggregate":"orders","pipeline":[{"$collStats":{"storageStats":{}}}],"cursor":{},"$db":"shop"}`, ""), "", skipStats},
		{"$indexStats", entry("conn5", "", "command", "shop.orders", `{"aggregate":"orders","pipeline":[{"$indexStats":{}},{"$match":{"name":"a_1"}}],"cursor":{},"$db":"shop"}`, ""), "", skipStats},
		{"$planCacheStats", entry("conn5", "", "command", "shop.orders", `{"aggregate":"orders","pipeline":[{"$planCacheStats":{}}],"cursor":{},"$db":"shop"}`, ""), "", skipStats},
		{"an application's $match", entry("conn5", "", "command", "shop.orders", `{"aggregate":"orders","pipeline":[{"$match":{"a":1}},{"$collStats":{}}],"cursor":{},"$db":"shop"}`, ""), "", ""},
		// Commands mongod cut in its log.
		{"cut pipeline", entry("conn5", "", "command", "shop.orders", `{"aggregate":"orders","pipeline":[{"$match":{"$expr":{"$eq":[]}}}],"cursor":{},"$db":"shop"}`,
			`,"truncated":{"command":{"pipeline":{"0":{"$match":{"$expr":{"$eq":{"1":{"type":"array","size":64000}}}}}}}},"size":{"command":64281}`), "", skipTruncated},
		{"cut, said inside attr", strings.Replace(entry("conn5", "", "command", "shop.orders", appFind, ""), `"durationMillis":120`, `"durationMillis":120,"truncated":{"command":{}}`, 1), "", skipTruncated},
		{"cut truncated unreadable", entry("conn5", "", "command", "shop.orders", appFind, `,"truncated":"x"`), "", skipTruncated},
		{"another attribute cut", entry("conn5", "", "command", "shop.orders", appFind, `,"truncated":{"errMsg":{"type":"string","size":20000}},"size":{"errMsg":20000}`), "", ""},
		{"cut server thread", entry("TTLMonitor", "", "command", "shop.orders", appFind, `,"truncated":{"command":{}}`), "", skipThread},
	}
	for _, r := range rows {
		ops, rep, err := readAll(t, Options{App: r.app}, write(t, "mongod.log", r.line+"\n"+slowLine+"\n"))
		if r.app != "" && r.kind == "" {
			if err != nil || len(ops) != 1 || ops[0].App != r.app {
				t.Errorf("%s: %d ops, %v", r.name, len(ops), err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		wantOps := 2
		if r.kind != "" {
			wantOps = 1
		}
		if len(ops) != wantOps || (r.kind != "" && rep.Skipped[r.kind] != 1) || len(rep.Warnings) != 0 {
			t.Errorf("%s: %d ops (want %d), left out %v (want 1 %s), warnings %v", r.name, len(ops), wantOps, rep.Skipped, r.kind, rep.Warnings)
		}
	}
}

// TestProfileOwnWork: the class holds for system.profile documents too
// (no ctx; the appName, the namespace, the pipeline and the profiler's
// own cut, {$truncated: …}).
func TestProfileOwnWork(t *testing.T) {
	doc := func(ns, app, command string) string {
		return fmt.Sprintf(`{"op":"command","ns":%q,"appName":%q,"command":%s,"millis":3}`, ns, app, command)
	}
	rows := []struct{ name, doc, kind string }{
		{"Compass", doc("shop.orders", "MongoDB Compass", appFind), skipTool},
		{"$collStats", doc("shop.orders", "app", `{"aggregate":"orders","pipeline":[{"$collStats":{"count":{}}}]}`), skipStats},
		{"config", doc("config.system.sessions", "app", `{"find":"system.sessions"}`), skipInternal},
		{"cut by the profiler", doc("shop.orders", "app", `{"$truncated":"{ aggregate: \"orders\", pipeline: [ { $match: { a: ..."}`), skipTruncated},
	}
	kept := doc("shop.orders", "app", appFind)
	for _, r := range rows {
		ops, rep, err := readAll(t, Options{}, write(t, "p.json", r.doc+"\n"+kept+"\n"))
		if err != nil || len(ops) != 1 || rep.Skipped[r.kind] != 1 {
			t.Errorf("%s: %d ops, left out %v, %v; want 1 %s", r.name, len(ops), rep.Skipped, err, r.kind)
		}
	}
}

// TestInsertPayloads: what an insert's line holds of its documents is read
// from the line itself: whole (sent in the command's body), a number, or
// nothing but ninserted (a document sequence).
func TestInsertPayloads(t *testing.T) {
	whole := entry("conn5", "", "command", "shop.events", `{"insert":"events","documents":[{"_id":1,"a":"x"},{"_id":2,"a":"y"}],"ordered":true,"$db":"shop"}`, "")
	count := entry("conn5", "", "command", "shop.events", `{"insert":"events","documents":3,"ordered":true,"$db":"shop"}`, "")
	none := strings.Replace(entry("conn5", "", "command", "shop.events", `{"insert":"events","ordered":true,"$db":"shop"}`, ""), `"reslen":100`, `"ninserted":5,"reslen":100`, 1)
	ops, rep, err := readAll(t, Options{}, write(t, "mongod.log", strings.Join([]string{whole, count, none, none}, "\n")+"\n"))
	if err != nil || len(ops) != 4 {
		t.Fatalf("%d ops, %v", len(ops), err)
	}
	if want := (InsertsLogged{Whole: 1, Count: 1, None: 2}); rep.Inserts != want {
		t.Errorf("inserts %+v, want %+v", rep.Inserts, want)
	}
	if ops[0].InsertDocs != 2 || ops[2].InsertDocs != 5 {
		t.Errorf("documents per command %d and %d, want 2 and 5", ops[0].InsertDocs, ops[2].InsertDocs)
	}
}

// TestPreamble: lines a wrapper printed before the first JSON line are
// skipped and counted, within a bound; a file that is not a log is still
// refused at its first line.
func TestPreamble(t *testing.T) {
	docker := "about to fork child process, waiting until server is ready for connections.\nforked process: 28\n\n"
	many := strings.Repeat("SECRET install step\n", maxPreamble)
	rows := []struct {
		name, content string
		skipped       int64
		err           string // the error's end after the file's name, or "" when read
	}{
		{"nohup", "nohup: ignoring input\n" + slowLine + "\n", 1, ""},
		{"install script", "running install.sh\nSECRET $ ./mongod --config /etc/mongod.conf\n" + slowLine + "\n", 2, ""},
		{"docker's fork lines", docker + slowLine + "\n", 2, ""},
		{"as many as the bound", many + slowLine + "\n", maxPreamble, ""},
		{"one more than the bound", many + "SECRET\n" + slowLine + "\n", 0, ":1: not JSON"},
		{"bytes over the bound", strings.Repeat("SECRET"+strings.Repeat("x", 9<<10)+"\n", 8) + slowLine + "\n", 0, ":1: not JSON"},
		{"text only", "SECRET\nmore SECRET\n", 0, ":1: not JSON"},
		{"one text line without a newline", "SECRET", 0, ":1: not JSON"},
		{"a 4.2 log after a wrapper's line", "nohup: ignoring input\n2020-01-26T18:51:06.573+0000 I  CONTROL  [initandlisten] SECRET\n", 0, ":2: a mongod log in the text format"},
		{"a cut first JSON line", "nohup: ignoring input\n" + slowLine[:50], 0, ":2: its first JSON line is cut short"},
		{"an array after a banner", "exported by a script\n[" + `{"op":"query","ns":"shop.orders","command":{"find":"orders","filter":{}},"millis":3}` + "]\n", 1, ""},
	}
	for _, r := range rows {
		path := write(t, "d4.log", r.content)
		ops, rep, err := readAll(t, Options{}, path)
		noSecret(t, rep, err)
		if r.err != "" {
			var ie *InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), path+r.err) {
				t.Errorf("%s: error %v, want %s%s", r.name, err, path, r.err)
			}
			continue
		}
		if err != nil || len(ops) != 1 || rep.Preamble != r.skipped {
			t.Errorf("%s: %d ops, %d skipped (want %d), %v", r.name, len(ops), rep.Preamble, r.skipped, err)
			continue
		}
		want := fmt.Sprintf("%s:1: %d lines before the first JSON line are not JSON", path, r.skipped)
		if len(rep.Warnings) != 1 || !strings.HasPrefix(rep.Warnings[0].String(), want) {
			t.Errorf("%s: warnings %v, want %q", r.name, rep.Warnings, want)
		}
	}
}

// TestOwnWorkOnly: a log whose slow-query lines are all the server's own
// work (a secondary's, here built from the documented format) is refused
// as holding no workload, and says what its lines were.
func TestOwnWorkOnly(t *testing.T) {
	log := entry("LogicalSessionCacheRefresh", "", "update", "config.system.sessions", `{"q":{"_id":1},"u":{"$set":{"a":1}}}`, "") + "\n" +
		entry("conn3", "", "command", "admin.$cmd", `{"replSetHeartbeat":"rs","$db":"admin"}`, "") + "\n"
	_, _, err := readAll(t, Options{}, write(t, "mongod.log", log))
	if !errors.Is(err, ErrNoOps) || !strings.Contains(err.Error(), "of a workload's operations (2 were read: 1 the server's own or its tools' work, 1 server commands, getMores or batches). ") {
		t.Errorf("error %v", err)
	}
}
