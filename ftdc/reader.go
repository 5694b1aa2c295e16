// Package ftdc reads MongoDB's full-time diagnostic data capture
// (diagnostic.data/metrics.*): the BSON documents a mongod or mongos writes
// every second, metadata and compressed metric chunks. It reads from an
// io.Reader only and is bounded: a size past what a server writes is
// refused, and corrupt input is an error, never a panic.
//
// The format (mongodb/mongo src/mongo/db/ftdc): a file is a run of BSON
// documents {_id: date, type: int, ...}. Type 0 is metadata (doc: the
// buildInfo, getCmdLineOpts, hostInfo ... collected at the file's start),
// type 1 a metric chunk (data: binary), type 2 periodic metadata (doc,
// with an index; 5.0+), a delta of the previous one. A chunk is a uint32
// uncompressed length and a zlib stream of: a reference BSON document (one
// real sample, with the server's own types), the metric count and the
// sample count (uint32 each), and the deltas of every numeric field of the
// reference, metric by metric, as varints, a zero followed by the count of
// further zeros. DecodeChunk undoes all of it.
package ftdc

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Kind is an FTDC document's type field.
type Kind int32

// The document kinds a server writes.
const (
	Metadata         Kind = 0 // the file's metadata: buildInfo, getCmdLineOpts, hostInfo …
	MetricChunk      Kind = 1 // a compressed run of samples
	PeriodicMetadata Kind = 2 // changed metadata (5.0+): the fields that differ from the last
)

// MaxDocumentSize is the largest FTDC document read: a BSON document the
// server wrote (16 MiB, plus the 16 KiB the server allows itself).
const MaxDocumentSize = 16<<20 + 16<<10

// Document is one document of an FTDC file.
type Document struct {
	ID   time.Time // _id: when the server wrote it
	Kind Kind
	// Doc is the metadata document (Metadata, PeriodicMetadata).
	Doc bson.Raw
	// Index is a PeriodicMetadata document's count of deltas since its
	// last full document (0: Doc is whole).
	Index int64
	// Data is a MetricChunk's compressed bytes, for DecodeChunk.
	Data []byte
	// Raw is the whole document as read.
	Raw bson.Raw
}

// ErrCorrupt wraps every error about the content of the input.
var ErrCorrupt = errors.New("ftdc: corrupt")

func corrupt(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, a...))
}

// Reader reads the documents of one FTDC file in order.
type Reader struct {
	r   *bufio.Reader
	err error
	n   int // documents read, for errors
}

// NewReader reads FTDC documents from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReader(r)} }

// Next returns the next document, or io.EOF after the last. A file that
// ends inside a document (a server killed mid-write leaves one) gives
// io.ErrUnexpectedEOF; after any error, Next returns it again.
func (r *Reader) Next() (Document, error) {
	if r.err != nil {
		return Document{}, r.err
	}
	d, err := r.next()
	if err != nil {
		r.err = err
		return Document{}, err
	}
	r.n++
	return d, nil
}

func (r *Reader) next() (Document, error) {
	var head [4]byte
	if _, err := io.ReadFull(r.r, head[:]); err != nil {
		if err == io.EOF {
			return Document{}, io.EOF
		}
		return Document{}, fmt.Errorf("ftdc: document %d: %w", r.n, io.ErrUnexpectedEOF)
	}
	size := binary.LittleEndian.Uint32(head[:])
	if size < 5 || size > MaxDocumentSize {
		return Document{}, corrupt("document %d: length %d is not between 5 and %d bytes", r.n, size, MaxDocumentSize)
	}
	buf := make([]byte, size)
	copy(buf, head[:])
	if _, err := io.ReadFull(r.r, buf[4:]); err != nil {
		return Document{}, fmt.Errorf("ftdc: document %d: %w", r.n, io.ErrUnexpectedEOF)
	}
	raw := bson.Raw(buf)
	if err := raw.Validate(); err != nil {
		return Document{}, corrupt("document %d: not BSON: %v", r.n, err)
	}
	return parseDocument(raw, r.n)
}

// parseDocument reads the fields every FTDC document has and its kind's.
func parseDocument(raw bson.Raw, n int) (Document, error) {
	d := Document{Raw: raw}
	id, err := raw.LookupErr("_id")
	if err != nil {
		return d, corrupt("document %d: no _id", n)
	}
	ms, ok := id.DateTimeOK()
	if !ok {
		return d, corrupt("document %d: _id is %s, not a date", n, id.Type)
	}
	d.ID = time.UnixMilli(ms).UTC()
	t, err := raw.LookupErr("type")
	if err != nil {
		return d, corrupt("document %d: no type", n)
	}
	kind, ok := t.AsInt64OK()
	if !ok {
		return d, corrupt("document %d: type is %s, not a number", n, t.Type)
	}
	d.Kind = Kind(kind)
	switch d.Kind {
	case Metadata, PeriodicMetadata:
		v, err := raw.LookupErr("doc")
		if err != nil {
			return d, corrupt("document %d: metadata without doc", n)
		}
		if d.Doc, ok = v.DocumentOK(); !ok {
			return d, corrupt("document %d: doc is %s, not a document", n, v.Type)
		}
		if v, err := raw.LookupErr("index"); err == nil {
			d.Index, _ = v.AsInt64OK()
		}
	case MetricChunk:
		v, err := raw.LookupErr("data")
		if err != nil {
			return d, corrupt("document %d: metric chunk without data", n)
		}
		_, data, ok := v.BinaryOK()
		if !ok {
			return d, corrupt("document %d: data is %s, not binary", n, v.Type)
		}
		d.Data = data
	default:
		return d, corrupt("document %d: unknown type %d", n, kind)
	}
	return d, nil
}
