package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// simVersion is what buildInfo and serverStatus report: a real-looking
// version so version checks pass, with a suffix that says what it is.
const simVersion = "8.0.0-poolsweep-sim"

// maxWireVersion 21 is MongoDB 7.0's, which driver v2 fully supports.
const maxWireVersion = 21

// maxBatchBytes bounds one reply batch, like mongod's 16MB.
const maxBatchBytes = 16 << 20

// cmdError is a command failure sent as {ok:0, errmsg, code, codeName}.
type cmdError struct {
	Code int32
	Name string
	Msg  string
}

func (e *cmdError) Error() string { return fmt.Sprintf("%s (%d): %s", e.Name, e.Code, e.Msg) }

func errBadValue(msg string) *cmdError { return &cmdError{Code: 2, Name: "BadValue", Msg: msg} }

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
	// routerOnly commands are unknown to a standalone, as on mongod.
	routerOnly bool
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
	"hostInfo":        {fn: cmdHostInfo},
	"saslStart":       {fn: cmdSaslStart},
	"saslContinue":    {fn: cmdSaslContinue},
	"listShards":      {fn: cmdListShards, routerOnly: true},
	"find":            {fn: cmdFind, kind: kindRead},
	"getMore":         {fn: cmdGetMore, kind: kindRead},
	"killCursors":     {fn: cmdKillCursors},
	"count":           {fn: cmdCount, kind: kindRead},
	"insert":          {fn: cmdInsert, kind: kindWrite},
	"update":          {fn: cmdUpdate, kind: kindWrite},
	"delete":          {fn: cmdDelete, kind: kindWrite},
	"listCollections": {fn: cmdListCollections},
	"listDatabases":   {fn: cmdListDatabases},
	"create":          {fn: cmdCreate},
	"createIndexes":   {fn: cmdCreateIndexes},
	"listIndexes":     {fn: cmdListIndexes},
	"drop":            {fn: cmdDrop},
	"dropDatabase":    {fn: cmdDropDatabase},
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
	if !ok || (h.routerOnly && !f.router) {
		f.tel.command.Add(1)
		defer func() { f.tel.record(kindCommand, time.Since(start)) }()
		return errorReply(&cmdError{Code: 59, Name: "CommandNotFound", Msg: fmt.Sprintf("no such command: '%s'", c.name)})
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
	fields, err := h.fn(f, ctx, cs, c)
	var reply bsoncore.Document
	if err == nil {
		fields = append(fields, bson.E{Key: "ok", Value: 1.0})
		reply, err = bson.Marshal(fields)
	}
	if err != nil {
		reply = errorReply(err)
	}
	f.tel.record(h.kind, time.Since(start))
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
	doc, _ := bson.Marshal(bson.D{
		{Key: "ok", Value: 0.0},
		{Key: "errmsg", Value: ce.Msg},
		{Key: "code", Value: ce.Code},
		{Key: "codeName", Value: ce.Name},
	})
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

func cmdEmpty(*frontend, context.Context, *connState, *cmd) (bson.D, error) { return bson.D{}, nil }

func cmdHello(f *frontend, _ context.Context, cs *connState, c *cmd) (bson.D, error) {
	primaryKey := "isWritablePrimary"
	if c.name != "hello" {
		primaryKey = "ismaster"
	}
	d := bson.D{
		{Key: primaryKey, Value: true},
		{Key: "maxBsonObjectSize", Value: int32(16 << 20)},
		{Key: "maxMessageSizeBytes", Value: int32(maxMessageSize)},
		{Key: "maxWriteBatchSize", Value: int32(100000)},
		{Key: "localTime", Value: bson.NewDateTimeFromTime(time.Now())},
		{Key: "logicalSessionTimeoutMinutes", Value: int32(30)},
		{Key: "connectionId", Value: cs.id},
		{Key: "minWireVersion", Value: int32(0)},
		{Key: "maxWireVersion", Value: int32(maxWireVersion)},
		{Key: "readOnly", Value: false},
	}
	if f.router {
		d = append(d, bson.E{Key: "msg", Value: "isdbgrid"})
	}
	if c.bool("helloOk", false) {
		d = append(d, bson.E{Key: "helloOk", Value: true})
	}
	return d, nil
}

func cmdBuildInfo(f *frontend, _ context.Context, _ *connState, _ *cmd) (bson.D, error) {
	return bson.D{
		{Key: "version", Value: simVersion},
		{Key: "gitVersion", Value: "poolsweep-simulator"},
		{Key: "versionArray", Value: bson.A{int32(8), int32(0), int32(0), int32(0)}},
		{Key: "bits", Value: int32(64)},
		{Key: "maxBsonObjectSize", Value: int32(16 << 20)},
		{Key: "storageEngines", Value: bson.A{"poolsweep-sim-memory"}},
		{Key: "modules", Value: bson.A{}},
		{Key: "poolsweepSimulator", Value: true},
		{Key: "simulatorSpec", Value: f.d.spec.String()},
	}, nil
}

func cmdListShards(f *frontend, _ context.Context, _ *connState, _ *cmd) (bson.D, error) {
	shards := bson.A{}
	for _, sh := range f.d.shards {
		shards = append(shards, bson.D{{Key: "_id", Value: sh.name}, {Key: "host", Value: sh.host}, {Key: "state", Value: int32(1)}})
	}
	return bson.D{{Key: "shards", Value: shards}}, nil
}

// findOpts are the find options the simulator honours.
type findOpts struct {
	filter      filter
	reverse     bool
	skip, limit int
	batchSize   int // -1 = default
	singleBatch bool
}

func parseFind(c *cmd) (findOpts, error) {
	o := findOpts{batchSize: -1}
	fd, err := c.doc("filter")
	if err != nil {
		return o, err
	}
	if o.filter, err = parseFilter(fd); err != nil {
		return o, err
	}
	sortDoc, err := c.doc("sort")
	if err != nil {
		return o, err
	}
	if len(sortDoc) > 5 {
		elems, _ := sortDoc.Elements()
		dir, ok := elems[0].Value().AsInt64OK()
		if len(elems) != 1 || elems[0].Key() != "_id" || !ok || (dir != 1 && dir != -1) {
			return o, errBadValue("the simulator sorts only by {_id: 1} or {_id: -1}")
		}
		o.reverse = dir == -1
	}
	skip, _, err := c.int("skip")
	if err != nil {
		return o, err
	}
	limit, _, err := c.int("limit")
	if err != nil {
		return o, err
	}
	bs, hasBS, err := c.int("batchSize")
	if err != nil {
		return o, err
	}
	if skip < 0 || bs < 0 {
		return o, errBadValue("skip and batchSize must not be negative")
	}
	o.singleBatch = c.bool("singleBatch", false)
	if limit < 0 {
		// A negative limit is the legacy spelling of a single batch.
		limit, o.singleBatch = -limit, true
	}
	o.skip, o.limit = int(skip), int(limit)
	if hasBS {
		o.batchSize = int(bs)
	}
	return o, nil
}

func cmdFind(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	o, err := parseFind(c)
	if err != nil {
		return nil, err
	}
	docs, err := f.findDocs(ctx, c.db, coll, o)
	if err != nil {
		return nil, err
	}
	first := 101 // mongod's default first batch
	if o.batchSize >= 0 {
		first = o.batchSize
	}
	if o.limit > 0 && o.singleBatch {
		first = o.limit
	}
	batch, rest := splitBatch(docs, first)
	var id int64
	if len(rest) > 0 && !o.singleBatch {
		id = f.cursors.add(c.db+"."+coll, rest)
	}
	return cursorReply("firstBatch", c.db+"."+coll, id, batch), nil
}

// findDocs runs the query: one shard for an _id equality, all shards
// otherwise, merged in _id order.
func (f *frontend) findDocs(ctx context.Context, db, coll string, o findOpts) ([]bsoncore.Document, error) {
	if err := f.routerStep(ctx, kindRead); err != nil {
		return nil, err
	}
	perShard := 0
	if o.limit > 0 {
		perShard = o.skip + o.limit
	}
	var all []keyed
	if o.filter.idEq != nil {
		i := o.filter.idEq.shardOf(len(f.d.shards))
		if err := f.onShard(ctx, i, kindRead, func(st *store) { all = st.scan(db, coll, o.filter, o.reverse, perShard) }); err != nil {
			return nil, err
		}
	} else {
		parts := make([][]keyed, len(f.d.shards))
		if err := f.scatter(ctx, kindRead, func(i int, st *store) { parts[i] = st.scan(db, coll, o.filter, o.reverse, perShard) }); err != nil {
			return nil, err
		}
		all = mergeKeyed(parts, o.reverse)
	}
	if o.skip >= len(all) {
		return nil, nil
	}
	all = all[o.skip:]
	if o.limit > 0 && len(all) > o.limit {
		all = all[:o.limit]
	}
	out := make([]bsoncore.Document, len(all))
	for i, k := range all {
		out[i] = k.doc
	}
	return out, nil
}

// mergeKeyed merges per-shard results, each already in order.
func mergeKeyed(parts [][]keyed, reverse bool) []keyed {
	var all []keyed
	for _, p := range parts {
		all = append(all, p...)
	}
	if len(parts) > 1 {
		sort.SliceStable(all, func(i, j int) bool {
			if reverse {
				return all[i].key > all[j].key
			}
			return all[i].key < all[j].key
		})
	}
	return all
}

// splitBatch takes up to n documents (and at most maxBatchBytes, but always
// at least one so a cursor makes progress).
func splitBatch(docs []bsoncore.Document, n int) (batch, rest []bsoncore.Document) {
	size := 0
	i := 0
	for ; i < len(docs) && i < n; i++ {
		size += len(docs[i])
		if size > maxBatchBytes && i > 0 {
			break
		}
	}
	return docs[:i], docs[i:]
}

func cursorReply(batchKey, ns string, id int64, docs []bsoncore.Document) bson.D {
	arr := make(bson.A, len(docs))
	for i, d := range docs {
		arr[i] = bson.Raw(d)
	}
	return bson.D{{Key: "cursor", Value: bson.D{
		{Key: batchKey, Value: arr},
		{Key: "id", Value: id},
		{Key: "ns", Value: ns},
	}}}
}

// cursorTable holds open cursors of one listening server: the rest of a
// query's results, already computed. Results are materialised at find time,
// so getMore costs one data op on a standalone (its slot and service time)
// and only the router step on a router, where the merged cursor lives.
type cursorTable struct {
	mu      sync.Mutex
	cursors map[int64]*cursor
}

type cursor struct {
	ns   string
	docs []bsoncore.Document
	used time.Time
}

// maxCursors bounds the table; past it the least recently used cursor is
// dropped (its next getMore gets CursorNotFound), like mongod's idle cursor
// timeout but by count.
const maxCursors = 10000

func newCursorTable() *cursorTable { return &cursorTable{cursors: map[int64]*cursor{}} }

func (t *cursorTable) add(ns string, docs []bsoncore.Document) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.cursors) >= maxCursors {
		var oldest int64
		var at time.Time
		for id, c := range t.cursors {
			if oldest == 0 || c.used.Before(at) {
				oldest, at = id, c.used
			}
		}
		delete(t.cursors, oldest)
	}
	for {
		id := rand.Int64N(1<<62) + 1
		if _, taken := t.cursors[id]; !taken {
			t.cursors[id] = &cursor{ns: ns, docs: docs, used: time.Now()}
			return id
		}
	}
}

// next takes up to n documents; the cursor is removed when exhausted.
func (t *cursorTable) next(id int64, ns string, n int) ([]bsoncore.Document, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.cursors[id]
	if !ok || c.ns != ns {
		return nil, false, &cmdError{Code: 43, Name: "CursorNotFound", Msg: fmt.Sprintf("cursor id %d not found", id)}
	}
	batch, rest := splitBatch(c.docs, n)
	c.docs, c.used = rest, time.Now()
	if len(rest) == 0 {
		delete(t.cursors, id)
		return batch, false, nil
	}
	return batch, true, nil
}

func (t *cursorTable) kill(id int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.cursors[id]
	delete(t.cursors, id)
	return ok
}

func cmdGetMore(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	id, ok := c.body.Lookup("getMore").Int64OK()
	if !ok {
		return nil, errTypeMismatch("getMore must be an int64 cursor id")
	}
	coll, err := c.str("collection")
	if err != nil {
		return nil, err
	}
	n, has, err := c.int("batchSize")
	if err != nil {
		return nil, err
	}
	if !has || n <= 0 {
		n = 1 << 30
	}
	if f.router {
		err = f.routerStep(ctx, kindRead)
	} else {
		err = f.onShard(ctx, 0, kindRead, func(*store) {})
	}
	if err != nil {
		return nil, err
	}
	ns := c.db + "." + coll
	batch, more, err := f.cursors.next(id, ns, int(n))
	if err != nil {
		return nil, err
	}
	if !more {
		id = 0
	}
	return cursorReply("nextBatch", ns, id, batch), nil
}

func cmdKillCursors(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	arr, ok := c.body.Lookup("cursors").ArrayOK()
	if !ok {
		return nil, errTypeMismatch("killCursors.cursors must be an array")
	}
	vals, _ := arr.Values()
	killed, notFound := bson.A{}, bson.A{}
	for _, v := range vals {
		id, ok := v.Int64OK()
		if !ok {
			return nil, errTypeMismatch("cursor ids must be int64")
		}
		if f.cursors.kill(id) {
			killed = append(killed, id)
		} else {
			notFound = append(notFound, id)
		}
	}
	return bson.D{
		{Key: "cursorsKilled", Value: killed},
		{Key: "cursorsNotFound", Value: notFound},
		{Key: "cursorsAlive", Value: bson.A{}},
		{Key: "cursorsUnknown", Value: bson.A{}},
	}, nil
}

func cmdCount(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	q, err := c.doc("query")
	if err != nil {
		return nil, err
	}
	flt, err := parseFilter(q)
	if err != nil {
		return nil, err
	}
	skip, _, err := c.int("skip")
	if err != nil {
		return nil, err
	}
	limit, _, err := c.int("limit")
	if err != nil {
		return nil, err
	}
	if err := f.routerStep(ctx, kindRead); err != nil {
		return nil, err
	}
	counts := make([]int, len(f.d.shards))
	if flt.idEq != nil {
		i := flt.idEq.shardOf(len(f.d.shards))
		err = f.onShard(ctx, i, kindRead, func(st *store) { counts[i] = st.count(c.db, coll, flt) })
	} else {
		err = f.scatter(ctx, kindRead, func(i int, st *store) { counts[i] = st.count(c.db, coll, flt) })
	}
	if err != nil {
		return nil, err
	}
	n := int64(0)
	for _, x := range counts {
		n += int64(x)
	}
	n = max(n-max(skip, 0), 0)
	if limit < 0 {
		limit = -limit
	}
	if limit > 0 {
		n = min(n, limit)
	}
	return bson.D{{Key: "n", Value: int32(n)}}, nil
}

// writeErrorsDoc renders per-statement errors.
func writeErrorsDoc(errs []writeError) bson.A {
	out := bson.A{}
	for _, e := range errs {
		out = append(out, bson.D{{Key: "index", Value: int32(e.Index)}, {Key: "code", Value: e.Code}, {Key: "errmsg", Value: e.Msg}})
	}
	return out
}

// stmtError turns a statement's failure into a write error at index i.
func stmtError(i int, err error) writeError {
	var ce *cmdError
	if errors.As(err, &ce) {
		return writeError{Index: i, Code: ce.Code, Msg: ce.Msg}
	}
	return writeError{Index: i, Code: 1, Msg: err.Error()}
}

func cmdInsert(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	docs, err := c.docs("documents")
	if err != nil {
		return nil, err
	}
	ordered := c.bool("ordered", true)
	f.tel.insert.Add(int64(len(docs)))
	if err := f.routerStep(ctx, kindWrite); err != nil {
		return nil, err
	}
	// Group by shard, remembering each document's index in the request.
	groups := make([][]keyed, len(f.d.shards))
	index := make([][]int, len(f.d.shards))
	var errs []writeError
	for i, d := range docs {
		d = withID(d)
		k, err := keyOf(d.Lookup("_id"))
		if err != nil {
			errs = append(errs, stmtError(i, err))
			if ordered {
				docs = docs[:i]
				break
			}
			continue
		}
		s := k.shardOf(len(f.d.shards))
		groups[s] = append(groups[s], keyed{k, d})
		index[s] = append(index[s], i)
	}
	var mu sync.Mutex
	n := 0
	run := func(i int, st *store) {
		if len(groups[i]) == 0 {
			return
		}
		got, werrs := st.insert(c.db, coll, groups[i], ordered)
		mu.Lock()
		defer mu.Unlock()
		n += got
		for _, e := range werrs {
			e.Index = index[i][e.Index]
			errs = append(errs, e)
		}
	}
	// One data op per shard that receives documents.
	var wg sync.WaitGroup
	var opErr error
	for i := range groups {
		if len(groups[i]) == 0 {
			continue
		}
		wg.Go(func() {
			if err := f.onShard(ctx, i, kindWrite, func(st *store) { run(i, st) }); err != nil {
				mu.Lock()
				opErr = err
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if opErr != nil {
		return nil, opErr
	}
	reply := bson.D{{Key: "n", Value: int32(n)}}
	if len(errs) > 0 {
		slices.SortFunc(errs, func(a, b writeError) int { return a.Index - b.Index })
		reply = append(reply, bson.E{Key: "writeErrors", Value: writeErrorsDoc(errs)})
	}
	return reply, nil
}

// withID returns doc with an _id first, generating an ObjectID if missing
// (drivers add one, so this is for hand-written commands).
func withID(doc bsoncore.Document) bsoncore.Document {
	if _, err := doc.LookupErr("_id"); err == nil {
		return doc
	}
	idx, dst := bsoncore.AppendDocumentStart(nil)
	dst = bsoncore.AppendObjectIDElement(dst, "_id", bson.NewObjectID())
	elems, _ := doc.Elements()
	for _, e := range elems {
		dst = append(dst, e...)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

func cmdUpdate(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	stmts, err := c.docs("updates")
	if err != nil {
		return nil, err
	}
	ordered := c.bool("ordered", true)
	if err := f.routerStep(ctx, kindWrite); err != nil {
		return nil, err
	}
	var matched, modified int
	upserted := bson.A{}
	var errs []writeError
	for i, s := range stmts {
		f.tel.update.Add(1)
		r, err := f.updateOne(ctx, c.db, coll, s)
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		if err != nil {
			errs = append(errs, stmtError(i, err))
			if ordered {
				break
			}
			continue
		}
		matched += r.matched
		modified += r.modified
		if r.upserted != nil {
			upserted = append(upserted, bson.D{{Key: "index", Value: int32(i)}, {Key: "_id", Value: bson.RawValue{Type: bson.Type(r.upserted.Type), Value: r.upserted.Data}}})
		}
	}
	reply := bson.D{{Key: "n", Value: int32(matched + len(upserted))}, {Key: "nModified", Value: int32(modified)}}
	if len(upserted) > 0 {
		reply = append(reply, bson.E{Key: "upserted", Value: upserted})
	}
	if len(errs) > 0 {
		reply = append(reply, bson.E{Key: "writeErrors", Value: writeErrorsDoc(errs)})
	}
	return reply, nil
}

// updateOne runs one update statement: on the _id's shard when the filter
// pins an _id, else on every shard (all at once for multi, one after another
// until a match for single updates). An upsert that matched nothing on any
// shard then inserts on the new _id's shard, a second data op.
func (f *frontend) updateOne(ctx context.Context, db, coll string, s bsoncore.Document) (updateResult, error) {
	var r updateResult
	q, _ := s.Lookup("q").DocumentOK()
	flt, err := parseFilter(q)
	if err != nil {
		return r, err
	}
	u, err := parseUpdate(s.Lookup("u"))
	if err != nil {
		return r, err
	}
	multi := boolValue(s.Lookup("multi"))
	upsert := boolValue(s.Lookup("upsert"))
	if multi && u.replacement != nil {
		return r, errBadValue("multi update is not supported with a replacement document")
	}
	n := len(f.d.shards)
	var opErr error
	if flt.idEq != nil || n == 1 {
		i := 0
		if flt.idEq != nil {
			i = flt.idEq.shardOf(n)
		}
		err := f.onShard(ctx, i, kindWrite, func(st *store) { r, opErr = st.update(db, coll, flt, q, u, multi, upsert) })
		return r, errors.Join(err, opErr)
	}
	if multi {
		parts := make([]updateResult, n)
		errs := make([]error, n)
		if err := f.scatter(ctx, kindWrite, func(i int, st *store) { parts[i], errs[i] = st.update(db, coll, flt, q, u, true, false) }); err != nil {
			return r, err
		}
		for _, p := range parts {
			r.matched += p.matched
			r.modified += p.modified
		}
		if err := errors.Join(errs...); err != nil {
			return r, err
		}
	} else {
		for i := range n {
			if err := f.onShard(ctx, i, kindWrite, func(st *store) { r, opErr = st.update(db, coll, flt, q, u, false, false) }); err != nil {
				return r, err
			}
			if opErr != nil || r.matched > 0 {
				return r, opErr
			}
		}
	}
	if r.matched > 0 || !upsert {
		return r, nil
	}
	doc, id, err := upsertBase(q, u)
	if err != nil {
		return r, err
	}
	k, err := keyOf(id)
	if err != nil {
		return r, err
	}
	var werrs []writeError
	if err := f.onShard(ctx, k.shardOf(n), kindWrite, func(st *store) { _, werrs = st.insert(db, coll, []keyed{{k, doc}}, true) }); err != nil {
		return r, err
	}
	if len(werrs) > 0 {
		return r, &cmdError{Code: werrs[0].Code, Name: "DuplicateKey", Msg: werrs[0].Msg}
	}
	r.upserted = &id
	return r, nil
}

func boolValue(v bsoncore.Value) bool {
	if b, ok := v.BooleanOK(); ok {
		return b
	}
	n, ok := v.AsInt64OK()
	return ok && n != 0
}

func cmdDelete(f *frontend, ctx context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	stmts, err := c.docs("deletes")
	if err != nil {
		return nil, err
	}
	ordered := c.bool("ordered", true)
	if err := f.routerStep(ctx, kindWrite); err != nil {
		return nil, err
	}
	total := 0
	var errs []writeError
	for i, s := range stmts {
		f.tel.delete.Add(1)
		n, err := f.deleteOne(ctx, c.db, coll, s)
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		if err != nil {
			errs = append(errs, stmtError(i, err))
			if ordered {
				break
			}
			continue
		}
		total += n
	}
	reply := bson.D{{Key: "n", Value: int32(total)}}
	if len(errs) > 0 {
		reply = append(reply, bson.E{Key: "writeErrors", Value: writeErrorsDoc(errs)})
	}
	return reply, nil
}

// deleteOne runs one delete statement, routed like updateOne.
func (f *frontend) deleteOne(ctx context.Context, db, coll string, s bsoncore.Document) (int, error) {
	q, _ := s.Lookup("q").DocumentOK()
	flt, err := parseFilter(q)
	if err != nil {
		return 0, err
	}
	limit, _ := s.Lookup("limit").AsInt64OK()
	if limit != 0 && limit != 1 {
		return 0, errBadValue("delete limit must be 0 or 1")
	}
	n := len(f.d.shards)
	if flt.idEq != nil || n == 1 {
		i := 0
		if flt.idEq != nil {
			i = flt.idEq.shardOf(n)
		}
		var got int
		err := f.onShard(ctx, i, kindWrite, func(st *store) { got = st.delete(db, coll, flt, int(limit)) })
		return got, err
	}
	if limit == 0 {
		counts := make([]int, n)
		if err := f.scatter(ctx, kindWrite, func(i int, st *store) { counts[i] = st.delete(db, coll, flt, 0) }); err != nil {
			return 0, err
		}
		total := 0
		for _, x := range counts {
			total += x
		}
		return total, nil
	}
	for i := range n {
		var got int
		if err := f.onShard(ctx, i, kindWrite, func(st *store) { got = st.delete(db, coll, flt, 1) }); err != nil {
			return 0, err
		}
		if got > 0 {
			return got, nil
		}
	}
	return 0, nil
}

// The catalogue commands below do not take slots: they model metadata
// operations whose cost is not what a sweep measures.

// catalogue returns, across shards, each collection of db with its
// document bytes and recorded indexes (from the first shard holding it).
func (f *frontend) catalogue(db string) map[string]*collection {
	out := map[string]*collection{}
	for _, sh := range f.d.shards {
		sh.store.mu.Lock()
		for name, c := range sh.store.dbs[db] {
			agg := out[name]
			if agg == nil {
				agg = &collection{indexes: c.indexes}
				out[name] = agg
			}
			agg.bytes += c.bytes
		}
		sh.store.mu.Unlock()
	}
	return out
}

func cmdListCollections(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	fd, err := c.doc("filter")
	if err != nil {
		return nil, err
	}
	flt, err := parseFilter(fd)
	if err != nil {
		return nil, err
	}
	cat := f.catalogue(c.db)
	names := make([]string, 0, len(cat))
	for n := range cat {
		names = append(names, n)
	}
	slices.Sort(names)
	nameOnly := c.bool("nameOnly", false)
	var docs []bsoncore.Document
	for _, n := range names {
		d := bson.D{{Key: "name", Value: n}, {Key: "type", Value: "collection"}}
		if !nameOnly {
			d = append(d,
				bson.E{Key: "options", Value: bson.D{}},
				bson.E{Key: "info", Value: bson.D{{Key: "readOnly", Value: false}}},
				bson.E{Key: "idIndex", Value: idIndexSpec()})
		}
		raw, err := bson.Marshal(d)
		if err != nil {
			return nil, err
		}
		if flt.matchDoc(raw) {
			docs = append(docs, raw)
		}
	}
	return cursorReply("firstBatch", c.db+".$cmd.listCollections", 0, docs), nil
}

func idIndexSpec() bson.D {
	return bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "name", Value: "_id_"}}
}

func cmdListDatabases(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	sizes := map[string]int64{}
	for _, sh := range f.d.shards {
		sh.store.mu.Lock()
		for db, colls := range sh.store.dbs {
			for _, coll := range colls {
				sizes[db] += coll.bytes
			}
			if _, ok := sizes[db]; !ok {
				sizes[db] = 0
			}
		}
		sh.store.mu.Unlock()
	}
	names := make([]string, 0, len(sizes))
	for n := range sizes {
		names = append(names, n)
	}
	slices.Sort(names)
	nameOnly := c.bool("nameOnly", false)
	dbs := bson.A{}
	var total int64
	for _, n := range names {
		total += sizes[n]
		if nameOnly {
			dbs = append(dbs, bson.D{{Key: "name", Value: n}})
			continue
		}
		// sizeOnDisk is the bytes of stored BSON documents: the simulator
		// has no disk, and this is the true size of what it holds.
		dbs = append(dbs, bson.D{{Key: "name", Value: n}, {Key: "sizeOnDisk", Value: sizes[n]}, {Key: "empty", Value: sizes[n] == 0}})
	}
	reply := bson.D{{Key: "databases", Value: dbs}}
	if !nameOnly {
		reply = append(reply, bson.E{Key: "totalSize", Value: total})
	}
	return reply, nil
}

// eachShard runs fn on every shard's store under its lock.
func (f *frontend) eachShard(fn func(st *store)) {
	for _, sh := range f.d.shards {
		sh.store.mu.Lock()
		fn(sh.store)
		sh.store.mu.Unlock()
	}
}

func cmdCreate(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	exists := false
	f.eachShard(func(st *store) {
		exists = exists || st.coll(c.db, coll, false) != nil
		st.coll(c.db, coll, true)
	})
	if exists {
		return nil, &cmdError{Code: 48, Name: "NamespaceExists", Msg: "Collection " + c.db + "." + coll + " already exists."}
	}
	return bson.D{}, nil
}

func cmdCreateIndexes(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	specs, err := c.docs("indexes")
	if err != nil {
		return nil, err
	}
	for _, s := range specs {
		if _, ok := s.Lookup("key").DocumentOK(); !ok {
			return nil, errBadValue("index specification needs a key document")
		}
		if _, ok := s.Lookup("name").StringValueOK(); !ok {
			return nil, errBadValue("index specification needs a name")
		}
	}
	var before, after int
	created := false
	f.eachShard(func(st *store) {
		created = st.coll(c.db, coll, false) == nil
		col := st.coll(c.db, coll, true)
		before = 1 + len(col.indexes)
		for _, s := range specs {
			name := s.Lookup("name").StringValue()
			if name == "_id_" || slices.ContainsFunc(col.indexes, func(r bson.Raw) bool { return r.Lookup("name").StringValue() == name }) {
				continue
			}
			col.indexes = append(col.indexes, bson.Raw(slices.Clone(s)))
		}
		after = 1 + len(col.indexes)
	})
	return bson.D{
		{Key: "createdCollectionAutomatically", Value: created},
		{Key: "numIndexesBefore", Value: int32(before)},
		{Key: "numIndexesAfter", Value: int32(after)},
	}, nil
}

func cmdListIndexes(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	col := f.catalogue(c.db)[coll]
	if col == nil {
		return nil, &cmdError{Code: 26, Name: "NamespaceNotFound", Msg: "ns does not exist: " + c.db + "." + coll}
	}
	idx, _ := bson.Marshal(idIndexSpec())
	docs := []bsoncore.Document{idx}
	for _, r := range col.indexes {
		docs = append(docs, bsoncore.Document(r))
	}
	return cursorReply("firstBatch", c.db+"."+coll, 0, docs), nil
}

func cmdDrop(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	coll, err := c.collName()
	if err != nil {
		return nil, err
	}
	was := 0
	f.eachShard(func(st *store) {
		if col := st.coll(c.db, coll, false); col != nil {
			was = 1 + len(col.indexes)
			delete(st.dbs[c.db], coll)
			if len(st.dbs[c.db]) == 0 {
				delete(st.dbs, c.db)
			}
		}
	})
	// Since MongoDB 7.0 dropping a missing collection succeeds.
	return bson.D{{Key: "nIndexesWas", Value: int32(was)}, {Key: "ns", Value: c.db + "." + coll}}, nil
}

func cmdDropDatabase(f *frontend, _ context.Context, _ *connState, c *cmd) (bson.D, error) {
	if strings.TrimSpace(c.db) == "" {
		return nil, errBadValue("dropDatabase needs $db")
	}
	f.eachShard(func(st *store) { delete(st.dbs, c.db) })
	return bson.D{{Key: "dropped", Value: c.db}}, nil
}
