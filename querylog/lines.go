package querylog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/poolsweep/poolsweep/internal/infile"
)

// MaxLine is the longest line read. mongod cuts each attribute at
// maxLogSizeKB (10 KB by default), so a real log line is far shorter; a
// longer line is skipped, a chunk at a time, and never held whole.
const MaxLine = 4 << 20

// maxLine is MaxLine, lowered by tests.
var maxLine = MaxLine

// input is one file opened for reading lines, up to the size it had at open.
type input struct {
	name  string
	f     *infile.File
	r     *bufio.Reader
	size  int64 // bytes the file had at open: what is read
	grew  bool  // the file was longer when reading ended
	line  int   // number of the last line returned
	gz    bool
	count *countingReader
}

type countingReader struct {
	r     io.Reader
	n     int64
	limit int64 // bytes (decompressed) all files may still give
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n >= c.limit {
		return 0, errTotal
	}
	if int64(len(p)) > c.limit-c.n {
		p = p[:c.limit-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

var errTotal = errors.New("the inputs together are over the total size from-log reads")

// open opens path for reading at most budget bytes (after decompression:
// a .gz of a rotated log is read through).
func open(ctx context.Context, path string, budget int64) (*input, error) {
	f, err := infile.Open(ctx, path, 1<<62)
	if err != nil {
		return nil, err
	}
	size, err := f.Size()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	in := &input{name: path, f: f, size: size}
	var src io.Reader = io.LimitReader(f, size)
	br := bufio.NewReaderSize(src, 64<<10)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: a gzip file whose header cannot be read", path)
		}
		in.gz = true
		src = zr
	} else {
		src = br
	}
	in.count = &countingReader{r: src, limit: budget}
	in.r = bufio.NewReaderSize(in.count, 64<<10)
	return in, nil
}

func (in *input) close() {
	if size, err := in.f.Size(); err == nil && size > in.size {
		in.grew = true
	}
	in.f.Close()
}

// startsArray says whether the file's first byte past a byte-order mark
// and blank space is '[' (a JSON array), leaving that byte unread; the
// blank lines it passes are counted.
func (in *input) startsArray() (bool, error) {
	if bom, _ := in.r.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		in.r.Discard(3)
	}
	for {
		c, err := in.r.ReadByte()
		switch {
		case errors.Is(err, io.EOF):
			return false, nil
		case err != nil:
			if errors.Is(err, errTotal) {
				return false, err
			}
			return false, fmt.Errorf("%s: %w", in.name, err)
		case c == '\n':
			in.line++
		case c == ' ' || c == '\t' || c == '\r':
		default:
			in.r.UnreadByte()
			return c == '[', nil
		}
	}
}

// lineResult is one line: its bytes (without the newline; valid until the
// next call), whether it was too long (then empty), and whether it ended
// the file without a newline (a line cut short, as a file being written
// ends).
type lineResult struct {
	text    []byte
	tooLong bool
	noEOL   bool
}

// next is the next line, or io.EOF.
func (in *input) next(buf *[]byte) (lineResult, error) {
	*buf = (*buf)[:0]
	var res lineResult
	for {
		chunk, err := in.r.ReadSlice('\n')
		if !res.tooLong {
			if len(*buf)+len(chunk) > maxLine {
				res.tooLong = true
				*buf = (*buf)[:0]
			} else {
				*buf = append(*buf, chunk...)
			}
		}
		switch {
		case err == nil:
			in.line++
			res.text = bytes.TrimRight(*buf, "\r\n")
			return res, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(*buf) == 0 && !res.tooLong {
				return res, io.EOF
			}
			in.line++
			res.noEOL = true
			res.text = bytes.TrimRight(*buf, "\r")
			return res, nil
		default:
			if errors.Is(err, errTotal) {
				return res, err
			}
			return res, fmt.Errorf("%s: %w", in.name, err)
		}
	}
}
