package main

import (
	"context"
	"errors"
	"github.com/poolsweep/poolsweep/internal/errext"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/workload"
)

// TestSweepRefusesForeignDocuments: another client's documents in the
// usertable a sweep created are never dropped or measured. A sweep with
// another --records (a reload), the same --records (a reuse), --drop, and
// --spawn each exit 2 with one line that counts them, after connecting
// and before anything is dropped or written (no results, the documents
// and poolsweep_meta as they were); a sweep of two targets is refused
// before it loads the clean one; --drop-foreign proceeds and drops them.
// On the simulator and on embedded FerretDB.
func TestSweepRefusesForeignDocuments(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps the simulator and FerretDB")
	}
	for _, server := range []struct {
		name string
		args []string // of serve
	}{
		{"sim", []string{"--sim", "slots=4,service=1ms"}},
		{"ferretdb", nil},
	} {
		t.Run(server.name, func(t *testing.T) {
			t.Parallel()
			uri, _ := startServe(t, server.args...)
			dir := t.TempDir()
			sweepArgs := func(out string, extra ...string) []string {
				return append([]string{"sweep", "--uri", uri, "--concurrency", "1", "--warmup", "200ms", "--duration", "1s",
					"--no-plot", "--out", filepath.Join(dir, out)}, extra...)
			}
			if code, _, stderr := runCLI(t, sweepArgs("first", "--records", "20")...); code != 0 {
				t.Fatalf("first sweep: exit %d\n%s", code, stderr)
			}
			other := testsrv.Connect(t, uri) // another client, with a driver of its own
			coll := other.Database("poolsweep").Collection("usertable")
			theirs := []any{
				bson.D{{Key: "name", Value: "theirs"}}, // an ObjectId _id
				bson.D{{Key: "_id", Value: 7}, {Key: "name", Value: "theirs"}},
				bson.D{{Key: "_id", Value: "order-1"}, {Key: "name", Value: "theirs"}},
				bson.D{{Key: "_id", Value: "user"}, {Key: "name", Value: "theirs"}},
				bson.D{{Key: "_id", Value: "zz"}, {Key: "name", Value: "theirs"}},
			}
			if _, err := coll.InsertMany(context.Background(), theirs); err != nil {
				t.Fatal(err)
			}
			meta := metaDocs(t, other, "poolsweep")

			cases := []struct{ name, out string }{{"another size", "resize"}, {"same size", "same"}, {"--drop", "drop"}, {"--spawn", "spawn"}}
			extra := [][]string{{"--records", "30"}, {"--records", "20"}, {"--records", "20", "--drop"}, {"--records", "20", "--spawn", "2"}}
			for i, tc := range cases {
				code, stdout, stderr := runCLI(t, sweepArgs(tc.out, extra[i]...)...)
				lines := strings.Split(strings.TrimSpace(stderr), "\n")
				last := lines[len(lines)-1]
				if code != errext.ExitUsage || !strings.Contains(last, "holds 5 documents poolsweep did not write (of 25)") || !strings.Contains(last, "--drop-foreign") {
					t.Errorf("%s: exit %d, last line %q; want 2 and one line with the count\nstdout:\n%s\nstderr:\n%s", tc.name, code, last, stdout, stderr)
				}
				if n := strings.Count(stderr, "did not write"); n != 1 {
					t.Errorf("%s: %d lines say so, want one:\n%s", tc.name, n, stderr)
				}
				if strings.Contains(stderr, "reloading") || strings.Contains(stderr, "reusing") || strings.Contains(stderr, "spawned") {
					t.Errorf("%s: went on:\n%s", tc.name, stderr)
				}
				if _, err := os.Stat(filepath.Join(dir, tc.out)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s: the output directory was made (%v)", tc.name, err)
				}
				checkCounts(t, tc.name, other, "poolsweep", 5, 25)
				if after := metaDocs(t, other, "poolsweep"); after != meta {
					t.Errorf("%s: poolsweep_meta changed:\nbefore %s\nafter  %s", tc.name, meta, after)
				}
			}

			if server.name == "sim" {
				// Two targets, the first clean: refused before it is loaded.
				clean := testsrv.Sim(t, "slots=4,service=1ms").URI()
				code, _, stderr := runCLI(t, "sweep", "--target", "clean="+clean, "--target", "theirs="+uri, "--concurrency", "1",
					"--warmup", "200ms", "--duration", "1s", "--records", "20", "--no-plot", "--out", filepath.Join(dir, "two"))
				if code != errext.ExitUsage || !strings.Contains(stderr, "target theirs: poolsweep.usertable holds 5 documents poolsweep did not write") {
					t.Errorf("two targets: exit %d; want 2 naming target theirs\n%s", code, stderr)
				}
				checkCounts(t, "two targets, the clean one", testsrv.Connect(t, clean), "poolsweep", 0, 0)
				if got := metaDocs(t, testsrv.Connect(t, clean), "poolsweep"); got != "" {
					t.Errorf("two targets: the clean one's poolsweep_meta was written: %s", got)
				}
			}

			// Named: dropped with the collection, which is loaded anew.
			code, _, stderr := runCLI(t, sweepArgs("taken", "--records", "20", "--drop-foreign")...)
			if code != 0 || !strings.Contains(stderr, "5 documents poolsweep did not write dropped") {
				t.Errorf("--drop-foreign: exit %d; want 0 and a reload that says it dropped 5\n%s", code, stderr)
			}
			checkCounts(t, "--drop-foreign", other, "poolsweep", 0, 20)
		})
	}
}

// checkCounts checks db.usertable's documents: theirs (name "theirs")
// and all.
func checkCounts(t *testing.T, name string, c *mongo.Client, db string, theirs, all int64) {
	t.Helper()
	if n, err := countDocs(c, db, "usertable", bson.D{{Key: "name", Value: "theirs"}}); err != nil || n != theirs {
		t.Errorf("%s: %d of their documents (%v), want %d", name, n, err, theirs)
	}
	if n, err := countDocs(c, db, "usertable", nil); err != nil || n != all {
		t.Errorf("%s: %d documents (%v), want %d", name, n, err, all)
	}
}

// countDocs counts the documents of db.coll that query matches.
func countDocs(c *mongo.Client, db, coll string, query bson.D) (int64, error) {
	return workload.Count(context.Background(), c.Database(db), coll, query)
}

// metaDocs is db.poolsweep_meta as extended JSON, every document.
func metaDocs(t *testing.T, c *mongo.Client, db string) string {
	t.Helper()
	cur, err := c.Database(db).Collection(workload.MetaCollection).Find(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(context.Background(), &docs); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, d := range docs {
		b.WriteString(d.String())
	}
	return b.String()
}

// TestSweepRefusesForeignDocumentsInReplayCopy: a replay's copy for its
// writes is poolsweep's by the rule of its usertable. Another client's
// documents in it make a sweep of the workload file, with or without
// --drop, exit 2 with one line that counts them, before anything is
// dropped or written; --drop-foreign proceeds, drops them with the copy
// and replays on a copy built anew, whose delete {} leaves the user's
// collection as it was.
func TestSweepRefusesForeignDocumentsInReplayCopy(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps the simulator")
	}
	uri, _ := startServe(t, "--sim", "slots=4,service=1ms")
	dir := t.TempDir()
	ctx := context.Background()
	other := testsrv.Connect(t, uri) // another client, with a driver of its own
	users := make([]any, 50)
	for i := range users {
		users[i] = bson.D{{Key: "_id", Value: i}, {Key: "email", Value: "u@x"}}
	}
	if _, err := other.Database("app").Collection("users").InsertMany(ctx, users); err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, dir, "w.yaml", "kind: poolsweep-workload\nversion: 1\nsource: {format: mongod-log, files: 1, lines: 2, operations: 2, complete: true}\nshapes:\n"+
		"  - {id: all, database: app, collection: users, command: delete, multi: true, filter: {}, share: 0.5, count: 1}\n"+
		"  - {id: one, database: app, collection: users, command: find, filter: {_id: {$eq: '?number'}}, share: 0.5, count: 1}\n")
	sweepArgs := func(out string, extra ...string) []string {
		return append([]string{"sweep", "--uri", uri, "--workload-file", file, "--concurrency", "1", "--warmup", "200ms", "--duration", "1s",
			"--no-plot", "--out", filepath.Join(dir, out)}, extra...)
	}
	if code, _, stderr := runCLI(t, sweepArgs("first")...); code != 0 {
		t.Fatalf("first sweep: exit %d\n%s", code, stderr)
	}
	copyColl := other.Database("poolsweep").Collection("replay.app.users")
	theirs := []any{
		bson.D{{Key: "name", Value: "theirs"}},
		bson.D{{Key: "_id", Value: 1000}, {Key: "name", Value: "theirs"}},
		bson.D{{Key: "_id", Value: "order-1"}, {Key: "name", Value: "theirs"}},
	}
	if _, err := copyColl.InsertMany(ctx, theirs); err != nil {
		t.Fatal(err)
	}
	meta := metaDocs(t, other, "poolsweep")
	countTheirs := func() int64 {
		n, err := countDocs(other, "poolsweep", "replay.app.users", bson.D{{Key: "name", Value: "theirs"}})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, tc := range []struct {
		name  string
		extra []string
	}{{"reuse", nil}, {"--drop", []string{"--drop"}}} {
		code, stdout, stderr := runCLI(t, sweepArgs(tc.name, tc.extra...)...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		last := lines[len(lines)-1]
		if code != errext.ExitUsage || !strings.Contains(last, "poolsweep.replay.app.users holds 3 documents poolsweep did not write (of ") || !strings.Contains(last, "--drop-foreign") {
			t.Errorf("%s: exit %d, last line %q; want 2 and one line with the count\nstdout:\n%s\nstderr:\n%s", tc.name, code, last, stdout, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, tc.name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: the output directory was made (%v)", tc.name, err)
		}
		if n := countTheirs(); n != 3 {
			t.Errorf("%s: %d of their 3 documents are left", tc.name, n)
		}
		if after := metaDocs(t, other, "poolsweep"); after != meta {
			t.Errorf("%s: poolsweep_meta changed:\nbefore %s\nafter  %s", tc.name, meta, after)
		}
	}
	code, _, stderr := runCLI(t, sweepArgs("taken", "--drop-foreign")...)
	if code != 0 || !strings.Contains(stderr, "3 documents poolsweep did not write dropped") {
		t.Errorf("--drop-foreign: exit %d; want 0 and a rebuild that says it dropped 3\n%s", code, stderr)
	}
	if n := countTheirs(); n != 0 {
		t.Errorf("--drop-foreign: %d of their documents are left", n)
	}
	if n, err := countDocs(other, "app", "users", nil); err != nil || n != 50 {
		t.Errorf("the user's collection holds %d documents (%v), want its 50", n, err)
	}
}
