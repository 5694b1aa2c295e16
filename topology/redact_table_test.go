package topology

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/poolsweep/poolsweep/internal/testkit/credtest"
)

// formOutputs is every text poolsweep derives from one connection string
// without a server: the redacted URI, the driver's own errors for it
// (redacted as callers print them), and the validation errors.
func formOutputs(t *testing.T, uri string) map[string]string {
	t.Helper()
	structural := NewRedactor() // knows no secrets: structure only
	known := NewRedactor(uri)   // knows this URI's secrets
	out := map[string]string{
		"structural Redact(uri)":          structural.Redact(uri),
		"registered Redact(uri)":          known.Redact(uri),
		"registered Redact(quoted uri)":   known.Redact(fmt.Sprintf("connect %q: refused", uri)),
		"registered Redact(uri in (...))": known.Redact("server selection error (" + uri + ")"),
	}
	if _, err := connstring.ParseAndValidate(uri); err != nil {
		out["driver parse error"] = known.RedactError(err)
	}
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		out["driver connect error"] = known.RedactError(err)
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c.Disconnect(ctx)
		cancel()
	}
	// What the CLI does: validate (which registers the URI), then print.
	if err := ValidateURI(uri); err != nil {
		out["ValidateURI"] = err.Error()
	}
	if _, err := ParseTarget("t=" + uri); err != nil {
		out["ParseTarget"] = err.Error()
	}
	if _, err := PoolSettingsFromURI(uri); err != nil {
		out["PoolSettingsFromURI"] = err.Error()
	}
	out["Redact(uri)"] = Redact(uri)
	out["Redact(quoted uri)"] = Redact(fmt.Sprintf("connect %q: refused", uri))
	return out
}

// TestRedactHostileTable is the generated table: user names,
// passwords and credential-bearing option values holding every ASCII
// character, raw and percent-encoded, and long and non-ASCII ones. No
// output may hold any part of a secret; where the driver accepts the URI,
// the user name, host and options stay readable.
func TestRedactHostileTable(t *testing.T) {
	const host = "127.0.0.1:1"
	forms := credtest.Forms(host, "serverSelectionTimeoutMS=100")
	leaked, unreadable := 0, 0
	for _, f := range forms {
		outs := formOutputs(t, f.URI)
		bad := false
		for what, s := range outs {
			if m := f.Leaks(s); len(m) > 0 {
				bad = true
				t.Errorf("%s: %s shows %v: %q", f.Name, what, m, s)
			}
		}
		if bad {
			leaked++
		}
		if _, err := connstring.Parse(f.URI); err == nil {
			for _, what := range []string{"structural Redact(uri)", "registered Redact(uri)", "Redact(uri)"} {
				r := outs[what]
				if !strings.Contains(r, f.User) || !strings.Contains(r, host) || !strings.Contains(r, "serverSelectionTimeoutMS=100") {
					unreadable++
					t.Errorf("%s: the driver accepts the URI but %s hides non-secret parts: %q", f.Name, what, r)
				}
			}
		}
	}
	t.Logf("%d credential forms tried, %d leaked, %d valid forms with unreadable user/host/options", len(forms), leaked, unreadable)
}
