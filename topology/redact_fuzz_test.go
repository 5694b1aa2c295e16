package topology

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
)

// FuzzRedactURI: for any user name and password the driver's connstring
// accepts, Redact of the URI keeps the user, hosts and options exactly and
// puts *** in place of the password; a Redactor that registered the URI
// shows the password in no form, in the URI or in a message quoting it.
// Seeds: testdata/fuzz/FuzzRedactURI.
func FuzzRedactURI(f *testing.F) {
	const rest = "@db.example:27017/?authMechanism=PLAIN&appName=fuzz"
	f.Fuzz(func(t *testing.T, user, pass string) {
		uri := "mongodb://" + user + ":" + pass + rest
		cs, err := connstring.Parse(uri)
		if err != nil || len(cs.Hosts) != 1 || cs.Hosts[0] != "db.example:27017" {
			return // not a URI the driver reads this way
		}
		want := "mongodb://" + user + ":***" + rest
		if got := NewRedactor().Redact(uri); got != want {
			t.Fatalf("Redact(%q)\n got %q\nwant %q", uri, got, want)
		}
		r := NewRedactor(uri)
		for _, out := range []string{r.Redact(uri), r.Redact("connect " + strings.ReplaceAll(uri, "@", " @") + " failed: " + cs.Password)} {
			for _, secret := range []string{pass, cs.Password} {
				if len(secret) >= minSecretLen && strings.Contains(out, secret) {
					t.Fatalf("registered Redactor shows password %q of %q: %q", secret, uri, out)
				}
			}
		}
	})
}
