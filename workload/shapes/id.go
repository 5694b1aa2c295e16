package shapes

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ShapeID is the shape's stable short name: a hash of what makes it that
// shape (namespace, command and its documents), so that the same shape
// read from two logs has the same id. Share, counts and values do not
// enter it.
func (s *Shape) ShapeID() string {
	key := bson.D{{Key: "db", Value: s.Database}, {Key: "coll", Value: s.Collection}, {Key: "cmd", Value: s.Command},
		{Key: "filter", Value: s.Filter}, {Key: "projection", Value: s.Projection}, {Key: "sort", Value: s.Sort},
		{Key: "limit", Value: s.Limit}, {Key: "skip", Value: s.Skip}, {Key: "pipeline", Value: s.Pipeline},
		{Key: "update", Value: s.Update}, {Key: "update_pipeline", Value: s.UpdatePipeline},
		{Key: "multi", Value: s.Multi}, {Key: "upsert", Value: s.Upsert}, {Key: "remove", Value: s.Remove},
		{Key: "key", Value: s.Key}, {Key: "insert_docs", Value: s.InsertDocs}}
	b, err := bson.Marshal(key)
	if err != nil {
		// Only a value Abstract never produces fails to marshal; the name
		// still identifies the shape.
		b = []byte(s.DefaultName())
	}
	sum := sha256.Sum256(b)
	return "s" + hex.EncodeToString(sum[:4])
}

// DefaultName is a label for the shape as a person reads it:
// "find app.users {email, age} sort {createdAt} limit 20".
func (s *Shape) DefaultName() string {
	var b strings.Builder
	b.WriteString(s.Command + " " + s.Database + "." + s.Collection)
	if s.Command == CmdAggregate {
		b.WriteString(" [")
		for i, st := range s.Pipeline {
			if i > 0 {
				b.WriteString(" ")
			}
			if len(st) > 0 {
				b.WriteString(st[0].Key)
			}
		}
		b.WriteString("]")
		return b.String()
	}
	if s.Command == CmdDistinct {
		b.WriteString(" " + s.Key)
	}
	if s.Command != CmdInsert {
		b.WriteString(" " + keyList(s.Filter))
	}
	if len(s.Update) > 0 {
		for _, e := range s.Update {
			b.WriteString(" " + e.Key)
			if d, ok := e.Value.(bson.D); ok && strings.HasPrefix(e.Key, "$") {
				b.WriteString(keyList(d))
			}
		}
	}
	if len(s.Sort) > 0 {
		b.WriteString(" sort " + keyList(s.Sort))
	}
	if s.Limit != nil {
		b.WriteString(" limit")
	}
	if s.Multi {
		b.WriteString(" multi")
	}
	if s.InsertDocs > 1 {
		b.WriteString(" ×" + strconv.Itoa(s.InsertDocs))
	}
	return b.String()
}

func keyList(d bson.D) string {
	keys := make([]string, len(d))
	for i, e := range d {
		keys[i] = e.Key
	}
	return "{" + strings.Join(keys, ", ") + "}"
}
