package topology

import (
	"iter"
	"net/url"
	"regexp"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
)

// This file finds credentials by a URI's structure: where its user
// information and secret options are, as the driver reads them when it can
// and on the safe side when it cannot.

// schemeRE finds the start of a URL in text.
var schemeRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://`)

// escapeFragment is the piece of input url.PathUnescape and QueryUnescape
// quote in their errors ("invalid URL escape \"%zz\""): it is cut from a
// user name, password or option value, so it goes.
var escapeFragment = regexp.MustCompile(`invalid URL escape "(?:[^"\\]|\\.)*"`)

const escapeFragmentText = `invalid URL escape (a % not followed by two hex digits)`

// isSecretOption reports whether a URI option (name decoded) carries a
// secret: the driver's authMechanismProperties (AWS_SESSION_TOKEN…),
// tlsCertificateKeyFilePassword and sslClientCertificateKeyPassword,
// PostgreSQL's password and sslpassword, and any other option whose name
// says password, secret or token.
func isSecretOption(name string) bool {
	n := strings.ToLower(name)
	return n == "authmechanismproperties" || strings.Contains(n, "password") ||
		strings.Contains(n, "secret") || strings.Contains(n, "token")
}

// uriSecrets returns the secrets of one connection string: its password
// and secret option values as the driver (or, for other schemes, net/url)
// parses them and as they are written. Where parsing fails, everything
// between :// and the last @ counts as secret, user name included, and a
// secret option's value runs to the end of the string.
func uriSecrets(uri string) []string {
	loc := schemeRE.FindStringIndex(uri)
	if loc == nil {
		return nil
	}
	scheme := strings.ToLower(uri[loc[0] : loc[1]-3])
	after := uri[loc[1]:]
	var out []string
	add := func(s ...string) {
		for _, v := range s {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	if scheme == "mongodb" || scheme == "mongodb+srv" {
		if cs, err := parseNoDNS(after); err == nil {
			if cs.PasswordSet {
				ui, _, _ := strings.Cut(after, "@")
				_, rawPass, _ := strings.Cut(ui, ":")
				add(cs.Password, rawPass)
			}
			if cs.SSLClientCertificateKeyPasswordSet && cs.SSLClientCertificateKeyPassword != nil {
				add(cs.SSLClientCertificateKeyPassword())
			}
			for _, v := range cs.AuthMechanismProperties {
				// Only the values the URI gives: the driver adds defaults
				// (GSSAPI's SERVICE_NAME "mongodb"), and a default taken
				// for a secret would hide that word in every later line.
				if strings.Contains(decodeLenient(after), v) {
					add(v)
				}
			}
			add(optionSecrets(after, false)...)
			return out
		}
	} else if u, err := url.Parse(uri[loc[0]:]); err == nil {
		if p, ok := u.User.Password(); ok {
			add(p)
		}
		for k, vs := range u.Query() {
			if isSecretOption(k) {
				add(vs...)
			}
		}
	}
	// Not parsed (or not a MongoDB URI): the safe side.
	if at := strings.LastIndexByte(after, '@'); at >= 0 {
		ui := after[:at]
		_, pass, _ := strings.Cut(ui, ":")
		add(ui, pass)
	}
	add(optionSecrets(after, true)...)
	return out
}

// parseNoDNS parses a MongoDB URI's text after the scheme as the driver
// does, without the SRV lookups a mongodb+srv URI would make.
func parseNoDNS(after string) (*connstring.ConnString, error) {
	return connstring.Parse("mongodb://" + after)
}

// optionSecrets returns the values of the secret options in a URI's query,
// as written and decoded. toEnd makes each run to the end of the string,
// for URIs the driver could not parse (a raw & may have split a value).
func optionSecrets(after string, toEnd bool) []string {
	q := strings.IndexByte(after, '?')
	if q < 0 {
		return nil
	}
	var out []string
	query := after[q+1:]
	for i, pair := range queryOptions(query) {
		k, v, ok := secretOption(pair)
		if !ok {
			continue
		}
		vals := []string{v}
		if toEnd {
			vals = append(vals, query[i+len(k)+1:])
		}
		for _, v := range vals {
			out = append(out, v, decodeLenient(v))
			// The driver splits authMechanismProperties into name:value pairs.
			for p := range strings.SplitSeq(decodeLenient(v), ",") {
				if _, pv, ok := strings.Cut(p, ":"); ok {
					out = append(out, pv)
				}
			}
		}
	}
	return out
}

// queryOptions yields the options of a URI's query (split at & and ;),
// each with the offset in query where it starts.
func queryOptions(query string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i := 0; i < len(query); {
			end := strings.IndexAny(query[i:], "&;")
			if end < 0 {
				end = len(query)
			} else {
				end += i
			}
			if !yield(i, query[i:end]) {
				return
			}
			i = end + 1
		}
	}
}

// secretOption splits a query option key=value, ok when its key (decoded
// as the driver would) names a credential.
func secretOption(pair string) (key, value string, ok bool) {
	key, value, ok = strings.Cut(pair, "=")
	return key, value, ok && isSecretOption(decodeLenient(key))
}

// redactStructure hides credentials by position: a string that is one URI
// is parsed; URIs inside text are cut at their userinfo and secret options.
func redactStructure(s string) string {
	s = escapeFragment.ReplaceAllString(s, escapeFragmentText)
	if isWholeURI(s) {
		lead := len(s) - len(strings.TrimLeft(s, spaces))
		trimmed := strings.TrimRight(s[lead:], spaces)
		return s[:lead] + redactWholeURI(trimmed) + s[lead+len(trimmed):]
	}
	return redactInText(s)
}

const spaces = " \t\r\n"

// isWholeURI reports whether s, leading and trailing blanks aside, starts
// with a scheme: it is then taken to be one URI, spaces and all, since a
// password may hold them.
func isWholeURI(s string) bool {
	loc := schemeRE.FindStringIndex(strings.TrimLeft(s, spaces))
	return loc != nil && loc[0] == 0
}

// redactWholeURI redacts a string that is one URI. Where the driver (or
// net/url, for other schemes) parses it, the user name, hosts and options
// stay readable and only the password and secret option values go.
// Otherwise everything between :// and the last @ goes, and a secret
// option's value runs to the end.
func redactWholeURI(u string) string {
	loc := schemeRE.FindStringIndex(u)
	head, after := u[:loc[1]], u[loc[1]:]
	scheme := strings.ToLower(u[:loc[1]-3])
	parsed := false
	if scheme == "mongodb" || scheme == "mongodb+srv" {
		_, err := parseNoDNS(after)
		parsed = err == nil
	} else if _, err := url.Parse(u); err == nil {
		// net/url takes the userinfo up to the last @ of the authority,
		// which ends at the first / after the scheme.
		auth, _, _ := strings.Cut(after, "/")
		parsed = strings.LastIndexByte(auth, '@') == strings.LastIndexByte(after, '@')
	}
	if !parsed {
		at := strings.LastIndexByte(after, '@')
		if at < 0 {
			return head + redactQuery(after, true)
		}
		return head + mask + "@" + redactQuery(after[at+1:], true)
	}
	at := strings.IndexByte(after, '@') // the driver's userinfo ends at the first @
	if scheme != "mongodb" && scheme != "mongodb+srv" {
		at = strings.LastIndexByte(after, '@')
	}
	if at < 0 {
		return head + redactQuery(after, false)
	}
	user, _, hasPass := strings.Cut(after[:at], ":")
	if hasPass {
		user += ":" + mask
	}
	return head + user + "@" + redactQuery(after[at+1:], false)
}

// redactQuery hides the values of secret options in rest (hosts, path and
// query of a URI that is the whole string). toEnd hides everything after
// the first secret option's name.
func redactQuery(rest string, toEnd bool) string {
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		return rest
	}
	var b strings.Builder
	b.WriteString(rest[:q+1])
	query := rest[q+1:]
	for i, pair := range queryOptions(query) {
		if k, _, ok := secretOption(pair); ok {
			b.WriteString(k + "=" + mask)
			if toEnd {
				return b.String()
			}
		} else {
			b.WriteString(pair)
		}
		if end := i + len(pair); end < len(query) {
			b.WriteByte(query[end]) // the separator, as written
		}
	}
	return b.String()
}

// redactInText redacts the URIs inside a message, each running from its
// scheme to the next one. A URI's userinfo ends at the last @ before its
// host list (the first @, moved on while the text up to the next / or ?
// holds another): its password, everything after the first colon, goes.
// A candidate holding both a / and a space is prose after a URI without
// credentials ("mongodb://h/ refused for alice@example"), not a userinfo.
func redactInText(s string) string {
	locs := schemeRE.FindAllStringIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:locs[0][0]])
	for i, loc := range locs {
		end := len(s)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		b.WriteString(s[loc[0]:loc[1]])
		region := s[loc[1]:end]
		if at := userinfoEnd(region); at >= 0 {
			ui := region[:at]
			if !(strings.Contains(ui, "/") && strings.ContainsAny(ui, " \t\r\n")) {
				if user, _, ok := strings.Cut(ui, ":"); ok {
					ui = user + ":" + mask
				}
				b.WriteString(ui + "@")
				region = region[at+1:]
			}
		}
		b.WriteString(redactTextQuery(region))
	}
	return b.String()
}

// userinfoEnd returns the index of the @ that ends region's userinfo, or -1.
func userinfoEnd(region string) int {
	at := strings.IndexByte(region, '@')
	if at < 0 {
		return -1
	}
	for {
		rest := region[at+1:]
		hosts := rest
		if e := strings.IndexAny(rest, "/?"); e >= 0 {
			hosts = rest[:e]
		}
		j := strings.LastIndexByte(hosts, '@')
		if j < 0 {
			return at
		}
		at += 1 + j
	}
}

// redactTextQuery hides secret option values in the rest of a URI inside
// text. A value ends at & or ;, at a space or quote, or at a closing
// bracket that ends the URI ("(…?tlsCertificateKeyFilePassword=x)" keeps its
// ")"), since the text around the URI is not part of it.
func redactTextQuery(region string) string {
	q := strings.IndexByte(region, '?')
	if q < 0 {
		return region
	}
	var b strings.Builder
	b.WriteString(region[:q+1])
	i := q + 1
	for i < len(region) {
		eq := strings.IndexByte(region[i:], '=')
		if eq < 0 || strings.ContainsAny(region[i:i+eq], "&; \t\r\n\"'`<>") {
			break
		}
		key := region[i : i+eq]
		vstart := i + eq + 1
		vend := textValueEnd(region, vstart)
		b.WriteString(key + "=")
		if isSecretOption(decodeLenient(key)) {
			b.WriteString(mask)
		} else {
			b.WriteString(region[vstart:vend])
		}
		i = vend
		if i < len(region) && (region[i] == '&' || region[i] == ';') {
			b.WriteByte(region[i])
			i++
			continue
		}
		break
	}
	b.WriteString(region[i:])
	return b.String()
}

// textValueEnd finds where an option value inside text ends.
func textValueEnd(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch c := s[j]; c {
		case '&', ';', ' ', '\t', '\r', '\n', '"', '\'', '`', '<', '>':
			return j
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth > 0 {
				depth--
				continue
			}
			if j+1 == len(s) || strings.IndexByte(" \t\r\n,.;:)]}\"'", s[j+1]) >= 0 {
				return j
			}
		}
	}
	return len(s)
}

// decodeLenient percent-decodes s as a query component, or returns it as
// is when it is not valid percent-encoding.
func decodeLenient(s string) string {
	if d, ok := queryUnescape(s); ok {
		return d
	}
	return s
}

func pathEscape(s string) string  { return url.PathEscape(s) }
func queryEscape(s string) string { return url.QueryEscape(s) }

func pathUnescape(s string) (string, bool) {
	d, err := url.PathUnescape(s)
	return d, err == nil
}

func queryUnescape(s string) (string, bool) {
	d, err := url.QueryUnescape(s)
	return d, err == nil
}
