package topology

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Replies are what one server answered to the commands poolsweep sends
// (inspect --save-replies), with secrets removed, ready to be written as
// files named like the corpus of real replies (testdata/servers) so that a
// user can attach them to a bug report and they can join the corpus.
type Replies struct {
	// Process is "mongod" or "mongos"; Role is "standalone",
	// "replset-primary" or "replset-secondary" for a mongod, "" for a
	// mongos; Version is buildInfo's.
	Process, Role, Version string
	// Replies in the order asked: hello (isMaster before 4.4), buildInfo,
	// serverStatus, hostInfo and, on a router, connPoolStats, listShards and
	// getParameter of its pool settings (RouterPoolParams).
	Replies []Reply
}

// RouterPoolParams are the getParameter names of a mongos's pools to its
// shards: their size limit, how many each opens at once, and how many
// pools it keeps per shard host.
var RouterPoolParams = []string{"ShardingTaskExecutorPoolMaxSize", "ShardingTaskExecutorPoolMaxConnecting", "taskExecutorPoolSize"}

// Reply is one command's reply.
type Reply struct {
	Command string
	Doc     bson.Raw
}

// CaptureReplies connects to uri with one connection and asks the server
// what poolsweep asks it. A command the server refuses (hostInfo without
// the privilege) is left out; hello, buildInfo and serverStatus must
// answer. Every reply is scrubbed (ScrubReply) before it is returned.
func CaptureReplies(ctx context.Context, uri string) (Replies, error) {
	RegisterURI(uri)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	client, err := mongo.Connect(ClientOptions(uri).SetMaxPoolSize(1))
	if err != nil {
		return Replies{}, fmt.Errorf("connect: %s", RedactError(err))
	}
	defer client.Disconnect(context.Background())
	admin := client.Database("admin")
	run := func(name string) (bson.Raw, error) {
		raw, err := admin.RunCommand(ctx, bson.D{{Key: name, Value: 1}}).Raw()
		if err != nil {
			return nil, fmt.Errorf("%s: %s", name, RedactError(err))
		}
		return raw, nil
	}
	var out Replies
	add := func(name string, raw bson.Raw) error {
		doc, err := ScrubReply(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out.Replies = append(out.Replies, Reply{Command: name, Doc: doc})
		return nil
	}

	helloName := "hello"
	hello, err := run("hello")
	if err != nil {
		// Servers before 4.4.2 / 5.0 know only isMaster.
		helloName = "isMaster"
		if hello, err = run("isMaster"); err != nil {
			return Replies{}, err
		}
	}
	out.Process, out.Role = processRole(helloName, hello)
	if err := add(helloName, hello); err != nil {
		return Replies{}, err
	}
	build, err := run("buildInfo")
	if err != nil {
		return Replies{}, err
	}
	out.Version, _ = build.Lookup("version").StringValueOK()
	if err := add("buildInfo", build); err != nil {
		return Replies{}, err
	}
	status, err := run("serverStatus")
	if err != nil {
		return Replies{}, err
	}
	if err := add("serverStatus", status); err != nil {
		return Replies{}, err
	}
	optional := []string{"hostInfo"}
	if out.Process == "mongos" {
		optional = append(optional, "connPoolStats", "listShards")
	}
	for _, name := range optional {
		raw, err := run(name)
		if err != nil {
			continue // not this user's privilege, or not this server's command
		}
		if err := add(name, raw); err != nil {
			return Replies{}, err
		}
	}
	if out.Process == "mongos" {
		// The router's pools to its shards, as the router_pool rule reads
		// them each window; refused without the privilege, or on a server
		// that lacks one of the names.
		cmd := bson.D{{Key: "getParameter", Value: 1}}
		for _, name := range RouterPoolParams {
			cmd = append(cmd, bson.E{Key: name, Value: 1})
		}
		if raw, err := admin.RunCommand(ctx, cmd).Raw(); err == nil {
			if err := add("getParameter", raw); err != nil {
				return Replies{}, err
			}
		}
	}
	return out, nil
}

// processRole says from a hello (or isMaster) reply which process answered
// and, for a mongod, its role, in the corpus's words.
func processRole(command string, hello bson.Raw) (process, role string) {
	if msg, _ := hello.Lookup("msg").StringValueOK(); msg == "isdbgrid" {
		return "mongos", ""
	}
	if set, _ := hello.Lookup("setName").StringValueOK(); set == "" {
		return "mongod", "standalone"
	}
	key := "isWritablePrimary"
	if command != "hello" {
		key = "ismaster"
	}
	if primary, _ := hello.Lookup(key).BooleanOK(); primary {
		return "mongod", "replset-primary"
	}
	return "mongod", "replset-secondary"
}

// ScrubReply removes from a reply what may be secret, so that it can be
// written to a file and shared: $clusterTime's signature (an HMAC and its
// key id), saslSupportedMechs (which says a user exists) and
// speculativeAuthenticate (a SASL exchange), every field whose name says
// password, secret, token, credential or signature, or ends in uri (a
// connection string's place; wiredTiger.uri goes too); and in
// every string, the secrets of the URIs poolsweep was given and anything
// shaped like a connection string with credentials (Redact). Host names
// are not secrets and stay. It fails, rather than return a reply that
// still holds a secret Redact would change.
func ScrubReply(doc bson.Raw) (bson.Raw, error) {
	var d bson.D
	if err := bson.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("reply: %w", err)
	}
	scrubbed := scrubDoc(d)
	out, err := bson.Marshal(scrubbed)
	if err != nil {
		return nil, fmt.Errorf("reply: %w", err)
	}
	text, err := bson.MarshalExtJSON(bson.Raw(out), true, false)
	if err != nil {
		return nil, fmt.Errorf("reply: %w", err)
	}
	if Redact(string(text)) != string(text) {
		return nil, errors.New("reply: a secret could not be removed; nothing written")
	}
	return out, nil
}

// secretField reports whether a field's name says its value is secret.
func secretField(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"password", "passwd", "secret", "token", "credential", "signature"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return strings.HasSuffix(n, "uri") || n == "saslsupportedmechs" || n == "speculativeauthenticate"
}

// scrubDoc drops the secret fields of d ($clusterTime keeps its time: only
// its signature goes) and scrubs the values of the others.
func scrubDoc(d bson.D) bson.D {
	out := make(bson.D, 0, len(d))
	for _, e := range d {
		if secretField(e.Key) {
			continue
		}
		out = append(out, bson.E{Key: e.Key, Value: scrubValue(e.Value)})
	}
	return out
}

func scrubValue(v any) any {
	switch x := v.(type) {
	case bson.D:
		return scrubDoc(x)
	case bson.A:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = scrubValue(e)
		}
		return out
	case string:
		return Redact(x)
	}
	return v
}
