package workload

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A YCSB workload file is read as YCSB reads it, with
// java.util.Properties.load: key=value, key:value or key value per line;
// # and ! start comments; a line ending in an odd number of backslashes
// goes on in the next line; \t, \n, \r, \f and \uXXXX are escapes and any
// other escaped character stands for itself. Nothing is expanded (Java
// has no ${…}), so no value can refer to another. poolsweep's own parser
// and not a library's: its errors say the line and what is wrong, and
// never quote what the line holds.

// property is one key and its value, with the line its key starts on.
type property struct {
	key, value string
	line       int
}

// PropertyError is a line of a workload file that cannot be read, or a
// key whose value poolsweep cannot use. It names the file, the line and,
// for a value, the key (one of YCSB's); never what the line holds.
type PropertyError struct {
	File string
	Line int    // 1-based; 0 for the whole file
	Key  string // a YCSB key poolsweep reads, or ""
	Msg  string
}

func (e *PropertyError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// errNotText is a file that holds what no property file holds.
var errNotText = errors.New("not a text file")

// readProperties parses b; the last of a key given twice wins, as in
// Java. Its error is a line number and what is wrong with the line.
func readProperties(b []byte) ([]property, int, error) {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	var (
		out   []property
		index = map[string]int{}
		line  = 0 // natural lines read
	)
	lines := splitLines(b)
	for i := 0; i < len(lines); i++ {
		line++
		start := line
		l := lines[i]
		if bytes.IndexByte(l, 0) >= 0 {
			return nil, line, fmt.Errorf("%w (a NUL byte)", errNotText)
		}
		s := strings.TrimLeft(string(l), " \t\f")
		if s == "" || s[0] == '#' || s[0] == '!' {
			continue // a comment may be in Latin-1, as Java reads it
		}
		if !utf8.ValidString(s) {
			return nil, line, fmt.Errorf("%w (bytes that are not UTF-8)", errNotText)
		}
		// A logical line: natural lines joined while one ends in an odd
		// number of backslashes, the next one's leading space dropped.
		for oddBackslashes(s) && i+1 < len(lines) {
			i++
			line++
			next := lines[i]
			if !utf8.Valid(next) || bytes.IndexByte(next, 0) >= 0 {
				return nil, line, fmt.Errorf("%w (a NUL byte, or bytes that are not UTF-8)", errNotText)
			}
			s = s[:len(s)-1] + strings.TrimLeft(string(next), " \t\f")
		}
		if oddBackslashes(s) {
			s = s[:len(s)-1] // a continuation at the end of the file
		}
		rawKey, rawValue := splitProperty(s)
		key, err := unescape(rawKey)
		if err != nil {
			return nil, start, err
		}
		value, err := unescape(rawValue)
		if err != nil {
			return nil, start, err
		}
		if j, ok := index[key]; ok {
			out[j] = property{key, value, start}
			continue
		}
		index[key] = len(out)
		out = append(out, property{key, value, start})
	}
	return out, 0, nil
}

// splitLines splits at \n, \r and \r\n, as Java's line reader does.
func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i])
		if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			i++
		}
		b = b[i+1:]
	}
	return out
}

// oddBackslashes reports whether s ends in an odd number of backslashes:
// the last one escapes the line's end.
func oddBackslashes(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitProperty cuts a logical line (its leading space gone) into its raw
// key, up to the first unescaped =, : or space, and its raw value, after
// the space and one = or : that follow the key.
func splitProperty(s string) (string, string) {
	end := len(s)
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if strings.IndexByte("=: \t\f", s[i]) >= 0 {
			end = i
			break
		}
	}
	key, rest := s[:end], s[end:]
	rest = strings.TrimLeft(rest, " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	return key, rest
}

// unescape resolves a key's or value's escapes.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", errors.New(`a \u escape without its four hex digits`)
			}
			n, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", errors.New(`a \u escape without its four hex digits`)
			}
			b.WriteRune(rune(n))
			i += 4
		default:
			b.WriteByte(s[i]) // any other escaped character stands for itself
		}
	}
	return b.String(), nil
}
