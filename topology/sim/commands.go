package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Command dispatch: the handler table, running one request, rendering
// errors as mongod does, and reading a command's fields. The commands
// themselves are in info.go, hostinfo.go, auth.go, reads.go, cursors.go,
// writes.go, catalogue.go and telemetry.go.

// cmdError is a command failure sent as {ok:0, errmsg, code, codeName},
// with errorLabels when it has any.
type cmdError struct {
	Code   int32
	Name   string
	Msg    string
	Labels []string
}

func (e *cmdError) Error() string { return fmt.Sprintf("%s (%d): %s", e.Name, e.Code, e.Msg) }

func errBadValue(msg string) *cmdError { return &cmdError{Code: 2, Name: "BadValue", Msg: msg} }

func errCommandNotFound(name string) *cmdError {
	return &cmdError{Code: 59, Name: "CommandNotFound", Msg: fmt.Sprintf("no such command: '%s'", name)}
}

func errTypeMismatch(msg string) *cmdError {
	return &cmdError{Code: 14, Name: "TypeMismatch", Msg: msg}
}

// cmd is one command being handled.
type cmd struct {
	name string
	db   string
	body bsoncore.Document
	seqs map[string][]bsoncore.Document
}

// handler answers one command with the fields of its reply (ok is added).
type handler struct {
	fn   func(f *frontend, ctx context.Context, cs *connState, c *cmd) (bson.D, error)
	kind opKind // latency class; only data commands take slots, in fn
	// routerOnly commands are unknown to a standalone, as on mongod;
	// mongodOnly ones are unknown to a router, as on mongos.
	routerOnly, mongodOnly bool
	// testOnly commands exist only with test commands enabled
	// (test_commands=true), as a real server registers them only then.
	testOnly bool
}

// handlers is the command table; a name not in it is CommandNotFound.
var handlers = map[string]handler{
	"hello":       {fn: cmdHello},
	"isMaster":    {fn: cmdHello},
	"ismaster":    {fn: cmdHello},
	"ping":        {fn: cmdEmpty},
	"endSessions": {fn: cmdEmpty},
	"buildInfo":   {fn: cmdBuildInfo},
	"buildinfo":   {fn: cmdBuildInfo},
	"serverStatus": {fn: func(f *frontend, _ context.Context, _ *connState, _ *cmd) (bson.D, error) {
		return f.serverStatus(), nil
	}},
	"connPoolStats": {fn: func(f *frontend, _ context.Context, _ *connState, _ *cmd) (bson.D, error) {
		return f.connPoolStats(), nil
	}},
	"hostInfo":           {fn: cmdHostInfo},
	"saslStart":          {fn: cmdSaslStart},
	"saslContinue":       {fn: cmdSaslContinue},
	"listShards":         {fn: cmdListShards, routerOnly: true},
	"replSetGetStatus":   {fn: cmdReplSetGetStatus, mongodOnly: true},
	"replSetStepDown":    {fn: cmdReplSetStepDown, mongodOnly: true},
	"top":                {fn: cmdTop, mongodOnly: true},
	"find":               {fn: cmdFind, kind: kindRead},
	"getMore":            {fn: cmdGetMore, kind: kindRead},
	"killCursors":        {fn: cmdKillCursors},
	"count":              {fn: cmdCount, kind: kindRead},
	"insert":             {fn: cmdInsert, kind: kindWrite},
	"update":             {fn: cmdUpdate, kind: kindWrite},
	"delete":             {fn: cmdDelete, kind: kindWrite},
	"aggregate":          {fn: cmdAggregate, kind: kindRead},
	"distinct":           {fn: cmdDistinct, kind: kindRead},
	"findAndModify":      {fn: cmdFindAndModify, kind: kindWrite},
	"listCollections":    {fn: cmdListCollections},
	"listDatabases":      {fn: cmdListDatabases},
	"create":             {fn: cmdCreate},
	"createIndexes":      {fn: cmdCreateIndexes},
	"listIndexes":        {fn: cmdListIndexes},
	"drop":               {fn: cmdDrop},
	"dropDatabase":       {fn: cmdDropDatabase},
	"getParameter":       {fn: cmdGetParameter},
	"setParameter":       {fn: cmdSetParameter},
	"configureFailPoint": {fn: cmdConfigureFailPoint, testOnly: true},
	// simEventCommand, the simulator's own, is added by events.go's init:
	// it restarts listeners, which serve through this table.
}

// handle runs one request and returns the reply document. It never fails:
// every error becomes an {ok:0} reply on the same connection.
func (f *frontend) handle(ctx context.Context, cs *connState, req *request) bsoncore.Document {
	start := time.Now()
	f.tel.inFlight.Add(1)
	defer f.tel.inFlight.Add(-1)
	c := &cmd{db: req.db, body: req.body, seqs: req.seqs}
	if first, err := req.body.IndexErr(0); err == nil {
		c.name = first.Key()
	}
	h, ok := handlers[c.name]
	if !ok || (h.routerOnly && !f.router) || (h.mongodOnly && f.router) || (h.testOnly && !f.d.spec.TestCommands) {
		f.tel.command.Add(1)
		defer func() { f.tel.record(kindCommand, time.Since(start)) }()
		return errorReply(errCommandNotFound(c.name))
	}
	if f.shardServer && !shardServerCommands[c.name] {
		f.tel.command.Add(1)
		defer func() { f.tel.record(kindCommand, time.Since(start)) }()
		return errorReply(errShardServerOnly(c.name))
	}
	if f.router {
		// The shards count what this command sends them (onShard).
		ctx = withShardOp(ctx, shardOp{command: c.name, ns: topNamespace(c)})
	}
	switch c.name {
	case "find":
		f.tel.query.Add(1)
	case "getMore":
		f.tel.getmore.Add(1)
	case "insert", "update", "delete":
		// Counted per document or statement in the handler, as mongod does.
	default:
		f.tel.command.Add(1)
	}
	if cs.appName == "" && (c.name == "hello" || c.name == "isMaster" || c.name == "ismaster") {
		// The client's metadata, in its first hello: failCommand's appName.
		if v, err := c.body.LookupErr("client", "application", "name"); err == nil {
			cs.appName, _ = v.StringValueOK()
		}
	}
	if err := f.failCommand(ctx, cs, c); err != nil {
		f.tel.record(h.kind, time.Since(start))
		return errorReply(err)
	}
	var fields bson.D
	var err error
	if f.member != nil {
		fields, err = f.member.run(ctx, c, func(ctx context.Context) (bson.D, error) { return h.fn(f, ctx, cs, c) })
	} else {
		fields, err = h.fn(f, ctx, cs, c)
	}
	var reply bsoncore.Document
	if err == nil {
		fields = append(fields, bson.E{Key: "ok", Value: 1.0})
		reply, err = bson.Marshal(fields)
	}
	if err != nil {
		reply = errorReply(err)
	}
	elapsed := time.Since(start)
	f.tel.record(h.kind, elapsed)
	if !f.router {
		// A routed op is booked on its shard's server instead (onShard).
		f.tel.top.record(topNamespace(c), c.name, topStatements(c), elapsed)
	}
	return reply
}

// errorReply renders err as MongoDB does; errors that are not command
// errors (a cancelled wait at shutdown) are InternalError.
func errorReply(err error) bsoncore.Document {
	var ce *cmdError
	if !errors.As(err, &ce) {
		ce = &cmdError{Code: 1, Name: "InternalError", Msg: err.Error()}
		if errors.Is(err, context.Canceled) {
			ce = &cmdError{Code: 91, Name: "ShutdownInProgress", Msg: "the simulated server is shutting down"}
		}
	}
	d := bson.D{
		{Key: "ok", Value: 0.0},
		{Key: "errmsg", Value: ce.Msg},
		{Key: "code", Value: ce.Code},
		{Key: "codeName", Value: ce.Name},
	}
	if len(ce.Labels) > 0 {
		d = append(d, bson.E{Key: "errorLabels", Value: ce.Labels})
	}
	doc, _ := bson.Marshal(d)
	return doc
}

// Field accessors. Missing optional fields return the zero value; present
// fields of the wrong type are TypeMismatch errors.

func (c *cmd) str(key string) (string, error) {
	v, err := c.body.LookupErr(key)
	if err != nil {
		return "", nil
	}
	s, ok := v.StringValueOK()
	if !ok {
		return "", errTypeMismatch(fmt.Sprintf("%s.%s must be a string, not %s", c.name, key, v.Type))
	}
	return s, nil
}

// collName returns the collection the command names, which must be given.
func (c *cmd) collName() (string, error) {
	s, err := c.str(c.name)
	if err == nil && s == "" {
		err = errBadValue(c.name + " needs a collection name")
	}
	return s, err
}

// collDocs returns the collection a write (or createIndexes) names and its
// array of documents under key.
func (c *cmd) collDocs(key string) (string, []bsoncore.Document, error) {
	coll, err := c.collName()
	if err != nil {
		return "", nil, err
	}
	docs, err := c.docs(key)
	return coll, docs, err
}

// filter parses the query document under key (a missing one matches all).
func (c *cmd) filter(key string) (filter, error) {
	d, err := c.doc(key)
	if err != nil {
		return filter{}, err
	}
	return parseFilter(d)
}

// skipLimit returns a read's skip and limit, 0 when not given.
func (c *cmd) skipLimit() (skip, limit int64, err error) {
	if skip, _, err = c.int("skip"); err != nil {
		return 0, 0, err
	}
	limit, _, err = c.int("limit")
	return skip, limit, err
}

func (c *cmd) doc(key string) (bsoncore.Document, error) {
	v, err := c.body.LookupErr(key)
	if err != nil || v.Type == bsoncore.TypeNull {
		return nil, nil
	}
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errTypeMismatch(fmt.Sprintf("%s.%s must be a document, not %s", c.name, key, v.Type))
	}
	return d, nil
}

func (c *cmd) int(key string) (int64, bool, error) {
	v, err := c.body.LookupErr(key)
	if err != nil || v.Type == bsoncore.TypeNull {
		return 0, false, nil
	}
	n, ok := v.AsInt64OK()
	if !ok {
		return 0, false, errTypeMismatch(fmt.Sprintf("%s.%s must be a number, not %s", c.name, key, v.Type))
	}
	return n, true, nil
}

func (c *cmd) bool(key string, def bool) bool {
	v, err := c.body.LookupErr(key)
	if err != nil {
		return def
	}
	if b, ok := v.BooleanOK(); ok {
		return b
	}
	if n, ok := v.AsInt64OK(); ok {
		return n != 0
	}
	return def
}

// docs returns a document array given in the body or, as the driver sends
// it, as an OP_MSG document sequence.
func (c *cmd) docs(key string) ([]bsoncore.Document, error) {
	if seq, ok := c.seqs[key]; ok {
		return seq, nil
	}
	v, err := c.body.LookupErr(key)
	if err != nil {
		return nil, errBadValue(fmt.Sprintf("%s needs %s", c.name, key))
	}
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, errTypeMismatch(fmt.Sprintf("%s.%s must be an array", c.name, key))
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, errBadValue(err.Error())
	}
	out := make([]bsoncore.Document, 0, len(vals))
	for _, v := range vals {
		d, ok := v.DocumentOK()
		if !ok {
			return nil, errTypeMismatch(fmt.Sprintf("%s.%s must hold documents", c.name, key))
		}
		out = append(out, d)
	}
	return out, nil
}
