package topology

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/corpus"
)

// TestScrubReply: what may be secret in a reply goes, the rest keeps its
// values and BSON types (so a scrubbed capture can join the corpus).
func TestScrubReply(t *testing.T) {
	const uri = "mongodb://alice:s3cr3tPa55@db1.example.invalid:27017/?authSource=admin"
	RegisterURI(uri)
	raw, err := bson.Marshal(bson.D{
		{Key: "ismaster", Value: true},
		{Key: "setName", Value: "rs0"},
		{Key: "hosts", Value: bson.A{"db1.example.invalid:27017"}},
		{Key: "saslSupportedMechs", Value: bson.A{"SCRAM-SHA-256"}},
		{Key: "speculativeAuthenticate", Value: bson.D{{Key: "payload", Value: bson.Binary{Data: []byte("x")}}}},
		{Key: "connections", Value: bson.D{{Key: "current", Value: int32(3)}, {Key: "totalCreated", Value: int64(9)}}},
		{Key: "note", Value: "seen " + uri},
		{Key: "sharding", Value: bson.D{{Key: "mongoUri", Value: uri}, {Key: "configsvrConnectionString", Value: "cfg/c1:27019,c2:27019"}}},
		{Key: "security", Value: bson.D{{Key: "keyFilePassword", Value: "hunter2"}, {Key: "SSLServerSubjectName", Value: "CN=db1"}}},
		{Key: "$clusterTime", Value: bson.D{
			{Key: "clusterTime", Value: bson.Timestamp{T: 1, I: 2}},
			{Key: "signature", Value: bson.D{{Key: "hash", Value: bson.Binary{Data: []byte("hmac")}}, {Key: "keyId", Value: int64(7)}}},
		}},
		{Key: "ok", Value: 1.0},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ScrubReply(raw)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := bson.MarshalExtJSON(got, true, false)
	for _, secret := range []string{"s3cr3tPa55", "hunter2", "SCRAM-SHA-256", "hmac", "aG1hYw", "speculativeAuthenticate", "keyId", "mongoUri"} {
		if strings.Contains(string(text), secret) {
			t.Errorf("%q survived: %s", secret, text)
		}
	}
	for path, want := range map[string]string{
		"setName":                            `"rs0"`,
		"hosts":                              `["db1.example.invalid:27017"]`,
		"connections.current":                `{"$numberInt":"3"}`,
		"connections.totalCreated":           `{"$numberLong":"9"}`,
		"sharding.configsvrConnectionString": `"cfg/c1:27019,c2:27019"`,
		"security.SSLServerSubjectName":      `"CN=db1"`,
		"$clusterTime.clusterTime":           `{"$timestamp":{"t":1,"i":2}}`,
	} {
		v, err := got.LookupErr(strings.Split(path, ".")...)
		if err != nil {
			t.Errorf("%s: gone, want it kept", path)
			continue
		}
		if s := v.String(); s != want {
			t.Errorf("%s = %s, want %s", path, s, want)
		}
	}
	if note, _ := got.Lookup("note").StringValueOK(); !strings.Contains(note, "***@db1.example.invalid") {
		t.Errorf("note = %q: want the URI redacted as everywhere (password masked), its host kept", note)
	}
}

// TestScrubCorpusUnchanged: the corpus's captures hold nothing secret, so
// scrubbing one keeps every field poolsweep reads.
func TestScrubCorpusUnchanged(t *testing.T) {
	paths, err := corpus.ReadPaths()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"serverStatus.mongod-4.2.8.json", "isMaster.mongod-replset-primary-4.2.json", "connPoolStats.mongos-unknown-2020.json", "hostInfo.mongod-unknown-2024.json"} {
		raw, err := corpus.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ScrubReply(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f, _ := corpus.ParseName(name)
		for _, p := range paths {
			if p.Command != f.Command || strings.Contains(p.String(), "*") {
				continue
			}
			a, errA := raw.LookupErr(p.Path...)
			b, errB := got.LookupErr(p.Path...)
			if (errA == nil) != (errB == nil) || (errA == nil && !a.Equal(b)) {
				t.Errorf("%s %s: %v → %v", name, p, a, b)
			}
		}
	}
}
