package progress

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// LineWriter hands every whole line written to it, without its newline,
// to its line func, one at a time.
type LineWriter struct {
	mu   sync.Mutex
	buf  []byte
	line func([]byte)
}

// NewLineWriter is a LineWriter that calls line with each whole line.
func NewLineWriter(line func([]byte)) *LineWriter { return &LineWriter{line: line} }

// Write hands over every line b completes.
func (l *LineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		l.line(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
}

// Flush hands over a last line that did not end in a newline.
func (l *LineWriter) Flush() {
	l.mu.Lock()
	rest := l.buf
	l.buf = nil
	l.mu.Unlock()
	if len(rest) > 0 {
		l.line(rest)
	}
}

// PrefixWriter writes whole lines to w, each after prefix.
func PrefixWriter(w io.Writer, prefix string) *LineWriter {
	return NewLineWriter(func(b []byte) { fmt.Fprintf(w, "%s%s\n", prefix, b) })
}
