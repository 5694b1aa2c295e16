package topology

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// minSecretLen is the shortest secret replaced wherever it appears in
// free text. Shorter ones (a one-letter password) would turn every
// occurrence of that letter into ***; they are still hidden wherever they
// sit in a connection string's structure.
const minSecretLen = 4

// mask replaces every secret.
const mask = "***"

// Redactor hides credentials in text. It knows two kinds of rule:
//
//   - exact secrets: the passwords and credential-bearing option values of
//     the connection strings given to AddURI (parsed as the driver parses
//     them), in every form they may take in a message: raw, percent-encoded
//     or decoded, Go-quoted or JSON-escaped. Any text that later echoes
//     them, a driver error included, gets *** in their place;
//   - structure, for URLs it was not told about: in any scheme://…@ the
//     password (or, where the driver cannot parse the URI, everything
//     between :// and the last @) becomes ***, and so do the values of
//     options whose names carry secrets (authMechanismProperties,
//     tlsCertificateKeyFilePassword, sslClientCertificateKeyPassword, and
//     any name holding "password", "secret" or "token").
//
// A Redactor is safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string // every form of every secret, longest first
	seen    map[string]bool
}

// NewRedactor returns a Redactor that knows the secrets of uris.
func NewRedactor(uris ...string) *Redactor {
	r := &Redactor{seen: map[string]bool{}}
	for _, u := range uris {
		r.AddURI(u)
	}
	return r
}

// AddURI registers the secrets of a connection string: mongodb://,
// mongodb+srv://, postgres:// or any URL, valid or not.
func (r *Redactor) AddURI(uri string) {
	for _, s := range uriSecrets(uri) {
		r.AddSecret(s)
	}
}

// AddSecret registers one secret: it and its escaped forms are replaced by
// *** in all later text.
func (r *Redactor) AddSecret(secret string) {
	added := false
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range secretForms(secret) {
		if len(v) < minSecretLen || r.seen[v] {
			continue
		}
		r.seen[v] = true
		r.secrets = append(r.secrets, v)
		added = true
	}
	if added {
		// Longest first, so a secret that contains another is replaced
		// whole rather than leaving its remainder behind.
		slices.SortStableFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	}
}

// Redact returns s with every credential hidden. A string that is one
// URI is parsed first, as the driver reads it, then any registered secret
// left is replaced. In other text the registered secrets go first: they are
// exact, where structure must guess where a value ends in prose.
func (r *Redactor) Redact(s string) string {
	if isWholeURI(s) {
		return r.replaceSecrets(redactStructure(s))
	}
	return redactStructure(r.replaceSecrets(s))
}

func (r *Redactor) replaceSecrets(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, mask)
		}
	}
	return s
}

// RedactError returns err's text redacted, or "" for nil.
func (r *Redactor) RedactError(err error) string {
	if err == nil {
		return ""
	}
	return r.Redact(err.Error())
}

// registry is the process-wide Redactor behind Redact. Every connection
// string poolsweep is given passes through ValidateURI, ParseTarget,
// PoolSettingsFromURI or Detect, which register it, so a message printed
// later hides its secrets even where it echoes them outside a URI.
var registry = NewRedactor()

// RegisterURI adds the secrets of uri to the process-wide registry that
// Redact and RedactError apply. Call it for every connection string taken
// from the user that does not pass through ValidateURI or ParseTarget (for
// example serve's --postgresql-url).
func RegisterURI(uri string) { registry.AddURI(uri) }

// Redact hides every credential in s: structurally (mongodb://alice:s3cret@h/
// becomes mongodb://alice:***@h/, and secret option values become ***) and
// every secret registered with RegisterURI (ValidateURI and ParseTarget
// register theirs), in whatever form s echoes it.
func Redact(s string) string { return registry.Redact(s) }

// RedactError returns err's text redacted like Redact, or "" for nil.
func RedactError(err error) string { return registry.RedactError(err) }

// secretForms returns the forms a secret may take in a message: as is,
// percent-encoded and -decoded, quoted by Go (%q) and escaped by JSON.
func secretForms(secret string) []string {
	if secret == "" {
		return nil
	}
	forms := []string{secret}
	add := func(s string) { forms = append(forms, s) }
	for _, s := range []string{secret} {
		add(pathEscape(s))
		add(queryEscape(s))
		if d, ok := pathUnescape(s); ok {
			add(d)
		}
		if d, ok := queryUnescape(s); ok {
			add(d)
		}
	}
	for _, s := range slices.Clone(forms) {
		q := strconv.Quote(s)
		add(q[1 : len(q)-1])
		q = strconv.QuoteToASCII(s)
		add(q[1 : len(q)-1])
		if b, err := json.Marshal(s); err == nil {
			add(string(b[1 : len(b)-1]))
		}
		var sb strings.Builder
		enc := json.NewEncoder(&sb)
		enc.SetEscapeHTML(false)
		if enc.Encode(s) == nil {
			j := strings.TrimSuffix(sb.String(), "\n")
			add(j[1 : len(j)-1])
		}
	}
	slices.Sort(forms)
	return slices.Compact(forms)
}
