package querylog

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeArray writes a mongoexport --jsonArray file of n profile
// documents (a BOM first when bom), on one line or a document a line,
// and says how long it is.
func writeArray(t *testing.T, path string, n int, oneLine, bom bool, pad int) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if bom {
		w.WriteString("\ufeff")
	}
	sep := ",\n"
	if oneLine {
		sep = ","
	}
	w.WriteString("[")
	for i := range n {
		if i > 0 {
			w.WriteString(sep)
		}
		fmt.Fprintf(w, `{"op":"query","ns":"shop.orders","command":{"find":"orders","filter":{"n":%d,"pad":"%s"},"$db":"shop"},"millis":1,"nreturned":1,"responseLength":100}`, i%50, strings.Repeat("p", pad))
	}
	w.WriteString("]\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	f.Close()
	return st.Size()
}

// TestLongArray: a mongoexport --jsonArray file over the 4 MiB a line may
// hold, on one line (as mongoexport writes it) or a document a line, with
// a byte-order mark or without, is read element by element: every
// document, with its line.
func TestLongArray(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name         string
		oneLine, bom bool
	}{{"one line", true, false}, {"one line, BOM", true, true}, {"a document a line", false, false}} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".json")
			n := 5000
			size := writeArray(t, path, n, tt.oneLine, tt.bom, 800)
			if size <= MaxLine {
				t.Fatalf("the file is %d bytes, not over a line's %d", size, MaxLine)
			}
			ops, rep, err := readAll(t, Options{}, path)
			if err != nil {
				t.Fatal(err)
			}
			if len(ops) != n || len(rep.Warnings) != 0 || rep.Format != "profiler" {
				t.Fatalf("%d ops of %d, warnings %v, format %q", len(ops), n, rep.Warnings, rep.Format)
			}
			if want := 1; !tt.oneLine {
				want = n
				if ops[n-1].Line != want {
					t.Errorf("the last document said to be on line %d, want %d", ops[n-1].Line, want)
				}
			} else if ops[n-1].Line != 1 {
				t.Errorf("the last document said to be on line %d, want 1", ops[n-1].Line)
			}
		})
	}
}

// TestArrayElementBound: an array is held an element at a time, each at
// most a line's bound: with the bound lowered, an array far larger than
// it reads, and an element over it is refused naming its line (the
// element's text never held whole).
func TestArrayElementBound(t *testing.T) {
	old := maxLine
	maxLine = 4 << 10
	defer func() { maxLine = old }()
	dir := t.TempDir()
	path := filepath.Join(dir, "many.json")
	if size := writeArray(t, path, 2000, false, false, 100); size < 100*int64(maxLine) {
		t.Fatalf("only %d bytes", size)
	}
	if ops, _, err := readAll(t, Options{}, path); err != nil || len(ops) != 2000 {
		t.Fatalf("%d ops, %v", len(ops), err)
	}
	big := filepath.Join(dir, "big.json")
	writeArray(t, big, 1, false, false, 200<<10)
	data, _ := os.ReadFile(big)
	os.WriteFile(big, []byte(strings.Replace(string(data), "[", "[\n"+`{"op":"query","ns":"a.b","command":{"find":"b"}},`+"\n", 1)), 0o600)
	_, _, err := readAll(t, Options{}, big)
	if err == nil || !strings.Contains(err.Error(), "big.json:3: an array element longer than 4 KiB") {
		t.Fatalf("err %v", err)
	}
}
