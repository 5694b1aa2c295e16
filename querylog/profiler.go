package querylog

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// profileEntry reads one system.profile document (as mongoexport writes
// it: relaxed or canonical extended JSON).
func (st *state) profileEntry(file string, line int, text []byte) error {
	var d bson.D
	if err := bson.UnmarshalExtJSON(text, false, &d); err != nil {
		st.rep.warn(file, line, "a system.profile document that is not extended JSON, skipped")
		return nil
	}
	return st.profileDoc(file, line, d)
}

func (st *state) profileDoc(file string, line int, d bson.D) error {
	ns, _ := lookup(d, "ns").(string)
	typ, _ := lookup(d, "op").(string)
	cmd, _ := lookup(d, "command").(bson.D)
	switch typ {
	case "query", "command", "update", "remove", "insert", "delete":
	case "getmore", "killcursors":
		st.rep.skip(skipGetMore, 1)
		return nil
	default:
		st.rep.skip(skipProfile, 1)
		return nil
	}
	if cmd == nil {
		cmd = legacyCommand(typ, d)
	}
	if typ == "query" || typ == "insert" {
		typ = "command" // their command is the find or insert command itself
	}
	op := st.observe(file, line, "", typ, ns, cmd, d, profileKeys)
	if op == nil {
		return nil
	}
	if ts, ok := lookup(d, "ts").(bson.DateTime); ok {
		op.End = ts.Time()
	}
	return st.deliver(op)
}

// legacyCommand is the command of a profile written before 3.6, which
// kept a query's filter in "query" and an update's in "query" and
// "updateobj".
func legacyCommand(typ string, d bson.D) bson.D {
	q, _ := lookup(d, "query").(bson.D)
	switch typ {
	case "query":
		if len(q) > 0 && q[0].Key == "find" {
			return q // 3.2 and 3.4 kept the find command there
		}
		if inner, ok := lookup(q, "$query").(bson.D); ok {
			q = inner
		}
		return bson.D{{Key: "find", Value: ""}, {Key: "filter", Value: orEmptyDoc(q)}}
	case "update":
		u, _ := lookup(d, "updateobj").(bson.D)
		return bson.D{{Key: "q", Value: orEmptyDoc(q)}, {Key: "u", Value: orEmptyDoc(u)},
			{Key: "multi", Value: truthy(lookup(d, "multi"))}, {Key: "upsert", Value: truthy(lookup(d, "upsert"))}}
	case "remove":
		return bson.D{{Key: "q", Value: orEmptyDoc(q)}}
	}
	return nil
}

func orEmptyDoc(d bson.D) bson.D {
	if d == nil {
		return bson.D{}
	}
	return d
}
