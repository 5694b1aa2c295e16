package topology

import (
	"errors"
	"strings"
	"testing"
)

// redactCase is a text and what redacting it must give.
type redactCase struct{ in, want string }

// checkRedact runs redact on every case.
func checkRedact(t *testing.T, redact func(string) string, cases []redactCase) {
	t.Helper()
	for _, tt := range cases {
		if got := redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestRedact(t *testing.T) {
	checkRedact(t, Redact, []redactCase{
		// the canonical case from the issue
		{"mongodb://alice:s3cret@db1:27017/", "mongodb://alice:***@db1:27017/"},
		// srv URIs and several hosts
		{"mongodb+srv://bob:pw@cluster.example.net/?retryWrites=true", "mongodb+srv://bob:***@cluster.example.net/?retryWrites=true"},
		{"mongodb://u:p@a:1,b:2/admin?replicaSet=rs", "mongodb://u:***@a:1,b:2/admin?replicaSet=rs"},
		// a user without password has nothing to hide
		{"mongodb://alice@db1/", "mongodb://alice@db1/"},
		// no credentials at all
		{"mongodb://127.0.0.1:27017/", "mongodb://127.0.0.1:27017/"},
		// a URI embedded in an error message, twice
		{`connect "mongodb://a:b@h/": x; postgres://pg:secret@localhost:5432/db`, `connect "mongodb://a:***@h/": x; postgres://pg:***@localhost:5432/db`},
		// quotes the driver accepts unescaped
		{`mongodb://user:pa'ss@127.0.0.1:1/`, `mongodb://user:***@127.0.0.1:1/`},
		{`inspect "mongodb://user:pa"ss@h/" failed`, `inspect "mongodb://user:***@h/" failed`},
		// secrets in the options
		{"mongodb://u@h/?tls=true&tlsCertificateKeyFilePassword=hunter2&x=1", "mongodb://u@h/?tls=true&tlsCertificateKeyFilePassword=***&x=1"},
		{"mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:tok", "mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=***"},
		// percent-encoded password characters
		{"mongodb://alice:p%40ss%3Aw@h/", "mongodb://alice:***@h/"},
	})
}

func TestRedactStructure(t *testing.T) {
	checkRedact(t, NewRedactor().Redact, []redactCase{
		// an option value's redaction keeps the ")" that closes the text around it
		{"dial (mongodb://h/?tlsCertificateKeyFilePassword=hunter2) failed", "dial (mongodb://h/?tlsCertificateKeyFilePassword=***) failed"},
		{"x (mongodb://h/?authMechanismProperties=AWS_SESSION_TOKEN:tok), next", "x (mongodb://h/?authMechanismProperties=***), next"},
		// ...but a bracket inside the value is the value's
		{"x mongodb://h/?tlsCertificateKeyFilePassword=a(b)c&w=1 y", "x mongodb://h/?tlsCertificateKeyFilePassword=***&w=1 y"},
		// a URI the driver refuses: everything between :// and the last @ goes
		{"mongodb://us/er:pa@ss@h:1/db", "mongodb://***@h:1/db"},
		{"mongodb://u:p%zz@h/?tlsCertificateKeyFilePassword=a&b&c", "mongodb://***@h/?tlsCertificateKeyFilePassword=***"},
		// the driver's userinfo ends at the first @: user, hosts, options stay
		{"mongodb://u\"s'er:pa ss\tw\rd@h1:1,h2:2/db?replicaSet=rs", "mongodb://u\"s'er:***@h1:1,h2:2/db?replicaSet=rs"},
		// a URI without credentials followed by prose holding an @
		{"dial mongodb://h:1/ failed for alice@example.com", "dial mongodb://h:1/ failed for alice@example.com"},
		// the user information of a URI inside text, spaces and all
		{`connect "mongodb://u:pa ss@h/": refused`, `connect "mongodb://u:***@h/": refused`},
		// other schemes, and their secret options
		{"postgres://pg:se%20cret@localhost:5432/db?sslpassword=x1234&sslmode=disable", "postgres://pg:***@localhost:5432/db?sslpassword=***&sslmode=disable"},
		// net/url refuses a raw space in the userinfo: the safe side
		{"postgres://pg:se cret@localhost:5432/db?sslpassword=x1234&sslmode=disable", "postgres://***@localhost:5432/db?sslpassword=***"},
		// the fragment url.PathUnescape quotes from a password
		{`error parsing uri: invalid password: invalid URL escape "%zz"`, `error parsing uri: invalid password: invalid URL escape (a % not followed by two hex digits)`},
		// a percent-encoded option name still names a secret
		{"mongodb://h/?tlsCertificateKeyFilePass%77ord=hunter2", "mongodb://h/?tlsCertificateKeyFilePass%77ord=***"},
	})
}

func TestRedactorRegisteredSecrets(t *testing.T) {
	r := NewRedactor(`mongodb://u:p%40ss"w<0>rd@h/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:T0KEN%2Bxyz`)
	for _, in := range []string{
		`auth failed for p@ss"w<0>rd`,            // decoded, as the driver holds it
		`echo p%40ss"w<0>rd`,                     // as written
		`{"msg":"p@ss\"w\u003c0\u003erd"}`,       // JSON-escaped (HTML-safe)
		`error: "p@ss\"w<0>rd"`,                  // Go-quoted
		`token T0KEN+xyz or T0KEN%2Bxyz refused`, // a session token, decoded and as written
	} {
		got := r.Redact(in)
		for _, secret := range []string{"p@ss", "ss\"w", "w<0>", "\\u003c0", "T0KEN"} {
			if strings.Contains(got, secret) {
				t.Errorf("Redact(%q) = %q shows %q", in, got, secret)
			}
		}
	}
	// A one-letter password is hidden in its URI, not in every word.
	r = NewRedactor("mongodb://u:a@h/")
	if got := r.Redact("a table"); got != "a table" {
		t.Errorf("short secret replaced in prose: %q", got)
	}
	if got := r.Redact("mongodb://u:a@h/"); got != "mongodb://u:***@h/" {
		t.Errorf("short secret in its URI: %q", got)
	}
}

func TestRegisterURIReachesRedact(t *testing.T) {
	RegisterURI("postgres://pg:Zebra-Quilt-77@127.0.0.1:1/db")
	if got := Redact("dial: password Zebra-Quilt-77 rejected"); strings.Contains(got, "Zebra") {
		t.Errorf("Redact after RegisterURI = %q", got)
	}
	if got := RedactError(errors.New("x Zebra-Quilt-77")); strings.Contains(got, "Zebra") {
		t.Errorf("RedactError after RegisterURI = %q", got)
	}
	if RedactError(nil) != "" {
		t.Error("RedactError(nil) is not empty")
	}
}

func TestParseTargetRedactsEverything(t *testing.T) {
	for _, v := range []string{
		"mongodb://u:Hidden-Pass-1@h/?w=1",     // no name: the URI's own '=' splits it
		"=mongodb://u:Hidden-Pass-1@h/",        // empty name
		"a b=mongodb://u:Hidden-Pass-1@h/",     // bad name
		"t=mongodb://u:Hidden-Pass-1@h:0/",     // bad port
		"t=mongodb://u:Hidden-Pass-1@h/?w=x&y", // bad option
	} {
		_, err := ParseTarget(v)
		if err == nil {
			t.Errorf("ParseTarget(%q) accepted", v)
			continue
		}
		if strings.Contains(err.Error(), "Hidden") {
			t.Errorf("ParseTarget(%q): %v", v, err)
		}
	}
}
