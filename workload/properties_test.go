package workload

import (
	"errors"
	"strings"
	"testing"
)

// TestReadProperties: the Java properties format as YCSB reads it, each
// row one rule of java.util.Properties.load.
func TestReadProperties(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want map[string]string
		line map[string]int
	}{
		// the three separators, and space around them
		{"a=1\nb:2\nc 3\n  d  =  4  \n", map[string]string{"a": "1", "b": "2", "c": "3", "d": "4  "}, map[string]int{"d": 4}},
		// comments with # and !, blank lines; a comment does not continue
		{"# x=1\n! y=2\n\n   \nz=3\n#c\\\nw=4\n", map[string]string{"z": "3", "w": "4"}, map[string]int{"z": 5, "w": 7}},
		// a continuation drops the next line's leading space; the key keeps its first line
		{"a=one \\\n    two\nb=3", map[string]string{"a": "one two", "b": "3"}, map[string]int{"a": 1, "b": 3}},
		// an even number of backslashes does not continue
		{"a=x\\\\\nb=y", map[string]string{"a": `x\`, "b": "y"}, nil},
		// escapes: \t, \u, an escaped separator in a key, any other character itself
		{"k\\=ey=v\\tw\\u0041\\q\n", map[string]string{"k=ey": "v\twAq"}, nil},
		// \r and \r\n end lines as \n does; the last of a key given twice wins
		{"a=1\r\nb=2\ra=3", map[string]string{"a": "3", "b": "2"}, map[string]int{"a": 3}},
		// a key alone has an empty value; ${…} is not expanded (Java has no expansion)
		{"lonely\nx=${lonely}\n", map[string]string{"lonely": "", "x": "${lonely}"}, nil},
		// a byte-order mark is not part of the first key
		{"\ufeffa=1", map[string]string{"a": "1"}, nil},
		// a continuation at the end of the file
		{"a=1\\", map[string]string{"a": "1"}, nil},
		// a comment in Latin-1 (Java reads the file so) is still a comment
		{"# caf\xe9\na=1", map[string]string{"a": "1"}, nil},
	} {
		props, _, err := readProperties([]byte(tt.in))
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		got := map[string]string{}
		for _, p := range props {
			got[p.key] = p.value
			if l, ok := tt.line[p.key]; ok && l != p.line {
				t.Errorf("%q: %s on line %d, want %d", tt.in, p.key, p.line, l)
			}
		}
		if len(got) != len(tt.want) {
			t.Errorf("%q: %q, want %q", tt.in, got, tt.want)
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("%q: %s=%q, want %q", tt.in, k, got[k], v)
			}
		}
	}
	for _, tt := range []struct {
		in   string
		line int
	}{
		{"a=1\nb=\\u12\n", 2},       // a \u escape cut short
		{"a=1\nb=\\uzzzz\n", 2},     // not hex
		{"a=1\n\nb=\x00\n", 3},      // a NUL byte: not a text file
		{"a=1\nb=\xff\xfe\n", 2},    // not UTF-8
		{"a=\\\n\x00\n", 2},         // in a continuation line
		{"a=1\\\n b=\\u00\\\nc", 1}, // a logical line is named by its first line
	} {
		_, line, err := readProperties([]byte(tt.in))
		if err == nil || line != tt.line {
			t.Errorf("%q: line %d, %v; want an error on line %d", tt.in, line, err, tt.line)
		}
	}
}

// TestPropertyFileNeverQuotesIt: whatever a file holds, its errors and
// warnings name the file, the line and a YCSB key, and never show a value
// or a line of it.
func TestPropertyFileNeverQuotesIt(t *testing.T) {
	const secret = "HUNTER2SECRET"
	for _, tt := range []struct {
		body, want string
	}{
		{"root:" + secret + ":20228:0:99999:7:::\ndaemon:*:20228\n", "no *proportion key"},
		{"dbpassword=" + secret + "${a}\na=${dbpassword}\n", "no *proportion key"},
		{"readproportion=1\nrecordcount=" + secret + "\n", "w:2: recordcount: not a whole number"},
		{"readproportion=" + secret + "\n", "w:1: readproportion: not a proportion"},
		{"readproportion=1\nrequestdistribution=" + secret + "\n", "w:2: requestdistribution: not one poolsweep supports"},
		{"readproportion=1\nkey=\\u" + secret + "\n", `w:2: a \u escape`},
		{"readproportion=1\n" + secret + "\x00\x01\x02\n", "w:2: not a text file"},
		{"\x89PNG\r\n\x1a\n" + secret, "w:1: not a text file"},
	} {
		_, err := ParsePropertyFile(strings.NewReader(tt.body), "w", DefaultWorkload())
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: err = %v, want one line with %q and no secret", tt.body, err, tt.want)
		}
		var pe *PropertyError
		if err != nil && !errors.As(err, &pe) {
			t.Errorf("%q: %T, want a *PropertyError", tt.body, err)
		}
	}
	// An accepted file's warnings name a key only when it is one of
	// YCSB's: a key of the file's own, however much it reads as a name,
	// is its line (a secret can be a word).
	pf, err := ParsePropertyFile(strings.NewReader("readproportion=1\n"+secret+"\nmongodb.url=mongodb://u:"+secret+"@h/\n"+secret+"x=1\nmongodb."+secret+"=1\n"), "w", DefaultWorkload())
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(pf.Warnings, "\n")
	if len(pf.Warnings) != 4 || strings.Contains(all, secret) || !strings.Contains(all, "w:2: not a key=value line") || !strings.Contains(all, "w:3: mongodb.url: unknown key mongodb.url") ||
		!strings.Contains(all, "w:4: a key that is not a YCSB") || !strings.Contains(all, "w:5: a key that is not a YCSB") {
		t.Errorf("warnings %q", pf.Warnings)
	}
}

// TestWorkloadNamesItsSource: a value out of range is
// named by where it came from: the file, line and key it was read from,
// its flag when the flag was given, never a flag that was not.
func TestWorkloadNamesItsSource(t *testing.T) {
	for _, tt := range []struct {
		name    string
		body    string          // a workload file, or "" for none
		mutate  func(*Workload) // what flags or defaults set
		want    string
		mustNot []string
	}{
		{"recordcount from a file", "readproportion=1\nrecordcount=-1\n", nil, "w:2: recordcount: not between 1 and 100000000", []string{"--records", "-1"}},
		{"recordcount=0 from a file", "recordcount=0\nreadproportion=1\n", nil, "w:1: recordcount: not between", []string{"--records"}},
		{"fieldcount from a file", "readproportion=1\n\nfieldcount=5000\n", nil, "w:3: fieldcount: not between 1 and 1000", []string{"5000"}},
		{"fieldlength from a file", "fieldlength=0\nreadproportion=1\n", nil, "w:1: fieldlength: not between 1 and 1048576", nil},
		{"maxscanlength from a file", "scanproportion=1\nmaxscanlength=100001\n", nil, "w:2: maxscanlength: not between 1 and 100000", nil},
		{"document size from a file", "readproportion=1\nfieldcount=100\nfieldlength=1048576\n", nil, "w:2: fieldcount and w:3: fieldlength: they make documents, over MongoDB's 16 MiB limit", []string{"1048576 makes"}},
		{"each key named by its own line", "readproportion=1\nfieldlength=1048576\nfieldcount=20\n", nil, "w:3: fieldcount and w:2: fieldlength", nil},
		{"--records given", "", func(w *Workload) { w.Records, w.From.Records = 0, "--records" }, "--records: 0 is not between 1 and 100000000", nil},
		{"records neither given nor read", "", func(w *Workload) { w.Records = 0 }, "the default records: 0 is not between", []string{"--records"}},
		{"--distribution given", "", func(w *Workload) { w.Distribution, w.From.Distribution = "hotspot", "--distribution" }, "--distribution: not uniform, zipfian, latest", nil},
		{"a default distribution", "", func(w *Workload) { w.Distribution = "hotspot" }, "the default distribution", []string{"--distribution"}},
		{"--database", "", func(w *Workload) { w.Database = "a.b" }, "--database", nil},
	} {
		var err error
		if tt.body != "" {
			_, err = ParsePropertyFile(strings.NewReader(tt.body), "w", DefaultWorkload())
		} else {
			w := DefaultWorkload()
			tt.mutate(&w)
			err = w.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
			continue
		}
		for _, s := range tt.mustNot {
			if strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q names %q", tt.name, err, s)
			}
		}
	}
	if err := DefaultWorkload().Validate(); err != nil {
		t.Errorf("the default workload: %v", err)
	}
}
