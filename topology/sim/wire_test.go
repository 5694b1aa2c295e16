package sim

import (
	"bufio"
	"encoding/binary"
	"hash/crc32"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// dial opens a raw connection to a fresh standalone.
func dial(t *testing.T) (net.Conn, *bufio.Reader) {
	t.Helper()
	d := startSim(t, "service=0s")
	c, err := net.DialTimeout("tcp", d.Hosts()[0], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

func TestWireOpQueryHandshake(t *testing.T) {
	c, br := dial(t)
	q := doc(t, bson.D{{Key: "isMaster", Value: 1}, {Key: "client", Value: bson.D{{Key: "driver", Value: bson.D{{Key: "name", Value: "test"}}}}}})
	idx, msg := wiremessage.AppendHeaderStart(nil, 42, 0, wiremessage.OpQuery)
	msg = wiremessage.AppendQueryFlags(msg, 0)
	msg = wiremessage.AppendQueryFullCollectionName(msg, "admin.$cmd")
	msg = wiremessage.AppendQueryNumberToSkip(msg, 0)
	msg = wiremessage.AppendQueryNumberToReturn(msg, -1)
	msg = append(msg, q...)
	msg = bsoncore.UpdateLength(msg, idx, int32(len(msg[idx:])))
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	reply, err := readMessage(br)
	if err != nil {
		t.Fatal(err)
	}
	_, _, respTo, op, rem, _ := wiremessage.ReadHeader(reply)
	if op != wiremessage.OpReply || respTo != 42 {
		t.Fatalf("reply opcode %s to %d", op, respTo)
	}
	_, rem, _ = wiremessage.ReadReplyFlags(rem)
	_, rem, _ = wiremessage.ReadReplyCursorID(rem)
	_, rem, _ = wiremessage.ReadReplyStartingFrom(rem)
	n, rem, _ := wiremessage.ReadReplyNumberReturned(rem)
	docs, _, ok := wiremessage.ReadReplyDocuments(rem)
	if !ok || n != 1 || len(docs) != 1 {
		t.Fatalf("OP_REPLY with %d docs", n)
	}
	if !bson.Raw(docs[0]).Lookup("ismaster").Boolean() {
		t.Fatalf("isMaster reply %v", bson.Raw(docs[0]))
	}
}

// opMsg frames body as an OP_MSG with the given flags, adding a CRC-32C
// checksum when asked; corrupt flips a bit of the checksum.
func opMsg(t *testing.T, body bson.D, flags wiremessage.MsgFlag, corrupt bool) []byte {
	idx, msg := wiremessage.AppendHeaderStart(nil, 7, 0, wiremessage.OpMsg)
	msg = wiremessage.AppendMsgFlags(msg, flags)
	msg = wiremessage.AppendMsgSectionType(msg, wiremessage.SingleDocument)
	msg = append(msg, doc(t, body)...)
	if flags&wiremessage.ChecksumPresent != 0 {
		msg = bsoncore.UpdateLength(msg, idx, int32(len(msg[idx:])+4))
		sum := crc32.Checksum(msg, crc32.MakeTable(crc32.Castagnoli))
		if corrupt {
			sum ^= 1
		}
		return binary.LittleEndian.AppendUint32(msg, sum)
	}
	return bsoncore.UpdateLength(msg, idx, int32(len(msg[idx:])))
}

func TestWireChecksum(t *testing.T) {
	c, br := dial(t)
	ping := bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}
	c.Write(opMsg(t, ping, wiremessage.ChecksumPresent, false))
	reply, err := readMessage(br)
	if err != nil {
		t.Fatalf("valid checksum: %v", err)
	}
	req, err := parseRequest(reply)
	if err != nil || req.body.Lookup("ok").Double() != 1 {
		t.Fatalf("ping reply %v %v", req, err)
	}
	// A moreToCome message gets no reply: the next reply answers the ping after it.
	c.Write(opMsg(t, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}, {Key: "$db", Value: "db"}}, wiremessage.MoreToCome, false))
	c.Write(opMsg(t, bson.D{{Key: "count", Value: "c"}, {Key: "$db", Value: "db"}}, 0, false))
	reply, err = readMessage(br)
	if err != nil {
		t.Fatal(err)
	}
	if req, _ := parseRequest(reply); req.body.Lookup("n").Int32() != 1 {
		t.Fatalf("count after unacknowledged insert: %v", req.body)
	}
	// A corrupt checksum closes the connection rather than guessing.
	c.Write(opMsg(t, ping, wiremessage.ChecksumPresent, true))
	if _, err := readMessage(br); err == nil {
		t.Fatal("reply to a message with a bad checksum")
	}
}
