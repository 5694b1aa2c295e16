package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// maxMessageSize is what hello advertises as maxMessageSizeBytes and the
// largest request the server reads.
const maxMessageSize = 48_000_000

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// request is one decoded client message.
type request struct {
	requestID int32
	opcode    wiremessage.OpCode
	// moreToCome: the client wants no reply (unacknowledged writes).
	moreToCome bool
	body       bsoncore.Document
	// seqs holds OP_MSG kind-1 document sequences by identifier
	// ("documents", "updates", "deletes").
	seqs map[string][]bsoncore.Document
	// db comes from $db (OP_MSG) or the namespace (OP_QUERY).
	db string
}

// readMessage reads one whole wire message, header included.
func readMessage(r io.Reader) ([]byte, error) {
	var hdr [16]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	length := int32(binary.LittleEndian.Uint32(hdr[:4]))
	if length < 16 || length > maxMessageSize {
		return nil, fmt.Errorf("message length %d out of range", length)
	}
	msg := make([]byte, length)
	copy(msg, hdr[:])
	if _, err := io.ReadFull(r, msg[16:]); err != nil {
		return nil, err
	}
	return msg, nil
}

// errUnsupportedOpcode is returned for opcodes the server does not speak
// (OP_COMPRESSED is never negotiated because hello offers no compressors).
var errUnsupportedOpcode = errors.New("unsupported opcode")

// parseRequest decodes OP_MSG and OP_QUERY messages.
func parseRequest(msg []byte) (*request, error) {
	_, reqID, _, opcode, rem, ok := wiremessage.ReadHeader(msg)
	if !ok {
		return nil, errors.New("short header")
	}
	req := &request{requestID: reqID, opcode: opcode}
	switch opcode {
	case wiremessage.OpMsg:
		flags, rest, ok := wiremessage.ReadMsgFlags(rem)
		if !ok {
			return nil, errors.New("OP_MSG: short flags")
		}
		if flags&wiremessage.ChecksumPresent != 0 {
			if len(rest) < 4 {
				return nil, errors.New("OP_MSG: missing checksum")
			}
			want := binary.LittleEndian.Uint32(rest[len(rest)-4:])
			if got := crc32.Checksum(msg[:len(msg)-4], castagnoli); got != want {
				return nil, fmt.Errorf("OP_MSG: checksum mismatch: %08x != %08x", got, want)
			}
			rest = rest[:len(rest)-4]
		}
		req.moreToCome = flags&wiremessage.MoreToCome != 0
		for len(rest) > 0 {
			var stype wiremessage.SectionType
			stype, rest, ok = wiremessage.ReadMsgSectionType(rest)
			if !ok {
				return nil, errors.New("OP_MSG: short section")
			}
			switch stype {
			case wiremessage.SingleDocument:
				var doc bsoncore.Document
				doc, rest, ok = wiremessage.ReadMsgSectionSingleDocument(rest)
				if !ok || req.body != nil {
					return nil, errors.New("OP_MSG: bad or repeated body section")
				}
				req.body = doc
			case wiremessage.DocumentSequence:
				var ident string
				var docs []bsoncore.Document
				ident, docs, rest, ok = wiremessage.ReadMsgSectionDocumentSequence(rest)
				if !ok {
					return nil, errors.New("OP_MSG: bad document sequence")
				}
				if req.seqs == nil {
					req.seqs = map[string][]bsoncore.Document{}
				}
				req.seqs[ident] = append(req.seqs[ident], docs...)
			default:
				return nil, fmt.Errorf("OP_MSG: unknown section kind %d", stype)
			}
		}
		if req.body == nil {
			return nil, errors.New("OP_MSG: no body section")
		}
		if err := req.body.Validate(); err != nil {
			return nil, fmt.Errorf("OP_MSG body: %w", err)
		}
		if db, ok := req.body.Lookup("$db").StringValueOK(); ok {
			req.db = db
		}
	case wiremessage.OpQuery:
		_, rest, ok := wiremessage.ReadQueryFlags(rem)
		if !ok {
			return nil, errors.New("OP_QUERY: short flags")
		}
		ns, rest, ok := wiremessage.ReadQueryFullCollectionName(rest)
		if !ok {
			return nil, errors.New("OP_QUERY: bad namespace")
		}
		_, rest, ok = wiremessage.ReadQueryNumberToSkip(rest)
		if ok {
			_, rest, ok = wiremessage.ReadQueryNumberToReturn(rest)
		}
		if !ok {
			return nil, errors.New("OP_QUERY: short header fields")
		}
		q, _, ok := wiremessage.ReadQueryQuery(rest)
		if !ok {
			return nil, errors.New("OP_QUERY: bad query document")
		}
		if err := q.Validate(); err != nil {
			return nil, fmt.Errorf("OP_QUERY query: %w", err)
		}
		// Legacy drivers wrap the command when they add a read preference.
		if inner, ok := q.Lookup("$query").DocumentOK(); ok {
			q = inner
		}
		req.body = q
		if db, _, found := cutNamespace(ns); found {
			req.db = db
		}
	default:
		return nil, fmt.Errorf("%w %s", errUnsupportedOpcode, opcode)
	}
	return req, nil
}

// cutNamespace splits "db.collection".
func cutNamespace(ns string) (db, coll string, ok bool) {
	for i := 0; i < len(ns); i++ {
		if ns[i] == '.' {
			return ns[:i], ns[i+1:], true
		}
	}
	return ns, "", false
}

// appendReply frames a reply document for the request's opcode: OP_MSG for
// OP_MSG, OP_REPLY for the legacy OP_QUERY handshake.
func appendReply(dst []byte, req *request, doc bsoncore.Document) []byte {
	if req.opcode == wiremessage.OpQuery {
		idx, dst := wiremessage.AppendHeaderStart(dst, wiremessage.NextRequestID(), req.requestID, wiremessage.OpReply)
		dst = wiremessage.AppendReplyFlags(dst, 0)
		dst = wiremessage.AppendReplyCursorID(dst, 0)
		dst = wiremessage.AppendReplyStartingFrom(dst, 0)
		dst = wiremessage.AppendReplyNumberReturned(dst, 1)
		dst = append(dst, doc...)
		return bsoncore.UpdateLength(dst, idx, int32(len(dst[idx:])))
	}
	idx, dst := wiremessage.AppendHeaderStart(dst, wiremessage.NextRequestID(), req.requestID, wiremessage.OpMsg)
	dst = wiremessage.AppendMsgFlags(dst, 0)
	dst = wiremessage.AppendMsgSectionType(dst, wiremessage.SingleDocument)
	dst = append(dst, doc...)
	return bsoncore.UpdateLength(dst, idx, int32(len(dst[idx:])))
}
