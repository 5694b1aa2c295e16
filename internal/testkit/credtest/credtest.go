// Package credtest generates hostile connection strings for redaction
// tests, as net/http/httptest serves HTTP tests: user names, passwords and
// credential-bearing option values holding every ASCII character (printable
// and control), each raw and percent-encoded, plus long and non-ASCII ones.
// Each form carries the distinctive substrings that must never be printed,
// so a leak is found whatever escaping (percent, Go or JSON quoting) the
// output applied to it.
package credtest

import (
	"fmt"
	"strings"
)

// Markers around the hostile character. Secrets are built as
// SecretA+c+SecretB (and TokenA+c+TokenB for option values): finding either
// marker in an output means part of a secret leaked.
const (
	SecretA = "sEcReTa"
	SecretB = "sEcReTb"
	TokenA  = "tOkEnA"
	TokenB  = "tOkEnB"
	UserA   = "uSeRa"
	UserB   = "uSeRb"
)

// Places a hostile value can sit in.
const (
	InUser     = "user"
	InPassword = "password"
	InKeyPass  = "tlsCertificateKeyFilePassword"
	InAWSToken = "authMechanismProperties"
)

// Form is one connection string with one hostile value.
type Form struct {
	Name  string // e.g. "password raw 0x22"
	URI   string
	Where string // InUser, InPassword, InKeyPass or InAWSToken
	Raw   bool   // the hostile part is written unescaped
	// User is the user name as written in the URI: where the driver parses
	// the URI it must stay readable in redacted output.
	User string
	// Secrets are the markers that must never appear in any output.
	Secrets []string
}

// Forms returns every form for a server at host (host:port). extra holds
// further options without a leading ? or & (for example
// "serverSelectionTimeoutMS=2000"); it may be empty. User and password forms
// use authMechanism=PLAIN, option forms their own mechanism.
func Forms(host, extra string) []Form {
	var values []hostile
	for c := range 0x80 {
		s := string(rune(c))
		values = append(values,
			hostile{fmt.Sprintf("raw 0x%02x", c), s, true},
			hostile{fmt.Sprintf("encoded 0x%02x", c), Encode(s), false})
	}
	long := strings.Repeat("Zq9!~(x)*'", 400) // 4,000 characters the driver accepts raw
	uni := "пароль密码🔑é"
	values = append(values,
		hostile{"raw long", long, true}, hostile{"encoded long", Encode(long), false},
		hostile{"raw unicode", uni, true}, hostile{"encoded unicode", Encode(uni), false})

	plainUser, plainPass := UserA+"x"+UserB, SecretA+"x"+SecretB
	tail := func(opts string) string {
		if extra != "" {
			opts += "&" + extra
		}
		return opts
	}
	var forms []Form
	for _, v := range values {
		u, p := UserA+v.s+UserB, SecretA+v.s+SecretB
		forms = append(forms,
			Form{Name: "user " + v.name, Where: InUser, Raw: v.raw, User: u, Secrets: []string{SecretA, SecretB},
				URI: "mongodb://" + u + ":" + plainPass + "@" + host + "/?" + tail("authMechanism=PLAIN")},
			Form{Name: "password " + v.name, Where: InPassword, Raw: v.raw, User: plainUser, Secrets: []string{SecretA, SecretB},
				URI: "mongodb://" + plainUser + ":" + p + "@" + host + "/?" + tail("authMechanism=PLAIN")})
		tok := TokenA + v.s + TokenB
		forms = append(forms,
			Form{Name: "tlsCertificateKeyFilePassword " + v.name, Where: InKeyPass, Raw: v.raw, User: plainUser,
				Secrets: []string{SecretA, SecretB, TokenA, TokenB},
				URI:     "mongodb://" + plainUser + ":" + plainPass + "@" + host + "/?" + tail("authMechanism=PLAIN&tlsCertificateKeyFilePassword="+tok)},
			Form{Name: "AWS_SESSION_TOKEN " + v.name, Where: InAWSToken, Raw: v.raw, User: plainUser,
				Secrets: []string{SecretA, SecretB, TokenA, TokenB},
				URI:     "mongodb://" + plainUser + ":" + plainPass + "@" + host + "/?" + tail("authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:"+tok)})
	}
	return forms
}

type hostile struct {
	name string
	s    string
	raw  bool
}

// Encode percent-encodes every byte of s, as a user may encode a whole
// password to be safe.
func Encode(s string) string {
	var b strings.Builder
	for i := range len(s) {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// Leaks returns the markers of f found in out.
func (f Form) Leaks(out string) []string {
	var found []string
	for _, m := range f.Secrets {
		if strings.Contains(out, m) {
			found = append(found, m)
		}
	}
	return found
}
