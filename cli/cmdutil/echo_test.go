package cmdutil

import (
	"errors"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// TestShortValues: the net under the checks (echo.go) puts a long value's
// token wherever a message still holds the value, in any of the forms a
// message writes it, and redacts a URI before it is cut; pflag's own
// errors become our one line; no line outgrows MaxLineBytes.
func TestShortValues(t *testing.T) {
	long := strings.Repeat("a", 300)
	secret := strings.Repeat("p", 300)
	uri := "mongodb://u:" + secret + "@h/"
	token := `"` + strings.Repeat("a", 40) + `"… (300 bytes)`
	for _, tt := range []struct {
		name, msg string
		args      []string
		want      string
	}{
		{"as is", "open " + long + ": file name too long", []string{"--out", long}, "open " + token + ": file name too long"},
		{"quoted", `--x: "` + long + `" is bad`, []string{"--x=" + long}, "--x: " + token + " is bad"},
		{"escaped", "--x: " + textfmt.Escape(long+"\x1b") + " is bad", []string{"--x", long + "\x1b"}, `--x: "` + strings.Repeat("a", 40) + `"… (301 bytes) is bad`},
		{"a shorthand's value", "-o: " + long, []string{"-o" + long}, "-o: " + token},
		{"short values stay", "--x: abc is bad", []string{"--x", "abc"}, "--x: abc is bad"},
		{"a URI is redacted, then cut", "--uri: " + uri + " is bad", []string{"--uri", uri}, `--uri: "mongodb://u:***@h/" is bad`},
		{"the password never shows, cut or not", "--uri: " + uri, []string{"--uri=" + uri + long}, "--uri: mongodb://u:***@h/"},
	} {
		got := ShortValues(errors.New(tt.msg), tt.args).Error()
		if !strings.HasPrefix(got, tt.want) || strings.Contains(got, secret[:40]) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	if ShortValues(nil, []string{long}) != nil {
		t.Error("nil is not nil")
	}
	// errors.As still finds what the message wraps.
	var u errext.UsageError
	if !errors.As(ShortValues(errext.Usagef("--x: %s", long), []string{long}), &u) {
		t.Error("the usage error is lost")
	}
	if got := SafeLine(strings.Repeat("é", 2000)); len(got) > MaxLineBytes+40 || !strings.HasSuffix(got, "… (4000 bytes)") {
		t.Errorf("SafeLine of 4000 bytes: %d bytes, ending %q", len(got), got[len(got)-30:])
	}
}
