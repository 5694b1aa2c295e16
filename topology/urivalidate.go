package topology

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
	drivertopology "go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// ValidateURI checks that uri is a MongoDB connection string the driver
// will connect with, without connecting and without DNS: everything the
// driver's own parser and validation refuse (connstring, then
// options.Client().ApplyURI(…).Validate(), which reads the TLS files),
// the files the URI names (present, readable, regular, small), the words
// the driver passes on unchecked (readConcernLevel, compressors) and
// options it does not know, which it ignores. Every one of these would
// otherwise fail the run once it had started, or measure something else
// than was asked. The error names the URI option and never contains the
// password or a secret option's value; user values in it are short
// tokens. It registers the URI's secrets with RegisterURI, so that no
// later message shows them.
func ValidateURI(uri string) error {
	RegisterURI(uri)
	if !strings.HasPrefix(uri, "mongodb://") && !strings.HasPrefix(uri, "mongodb+srv://") {
		return fmt.Errorf("%s is not a MongoDB URI (want mongodb://… or mongodb+srv://…)", textfmt.Token(Redact(uri)))
	}
	cs, offline, err := parseOffline(uri)
	if err != nil {
		return driverError(err, uri)
	}
	if err := cs.Validate(); err != nil {
		return driverError(err, uri)
	}
	if err := checkURIBounds(cs); err != nil {
		return err
	}
	if err := checkURIWords(cs); err != nil {
		return err
	}
	if err := checkURIFiles(cs, uri); err != nil {
		return err
	}
	// The driver's client options: the read preference, the TLS files
	// (certificates that parse, a key that matches) and the checks across
	// options (minPoolSize above maxPoolSize, tags with primary, …).
	opts := options.Client().ApplyURI(offline)
	if err := opts.Validate(); err != nil {
		return driverError(err, uri)
	}
	// What mongo.Connect builds before it dials, where the driver refuses
	// an authMechanism it parsed: one not in capitals ("plain"), and
	// GSSAPI, which this build of the driver does not have.
	if _, err := drivertopology.NewConfig(opts, nil); err != nil {
		return fmt.Errorf("authMechanism=%s: %w", textfmt.Token(cs.AuthMechanism), driverError(err, uri))
	}
	return nil
}

// parseOffline parses uri as the driver does, without the DNS lookups a
// mongodb+srv URI makes when parsed (those wait for connecting). It
// returns the parse and the URI the driver's client options can be built
// from offline: for mongodb+srv, the same URI as mongodb:// with the
// SRV-only options taken out (srvMaxHosts, srvServiceName: checked here
// as the driver checks them) and TLS on unless the URI says, as the SRV
// scheme implies.
func parseOffline(uri string) (*connstring.ConnString, string, error) {
	after, srv := strings.CutPrefix(uri, "mongodb+srv://")
	if !srv {
		cs, err := connstring.Parse(uri)
		return cs, uri, err
	}
	// The query starts at the first ? after the user information.
	head, query, hadQuery := after, "", false
	from := max(userinfoEnd(after), 0)
	if q := strings.IndexByte(after[from:], '?'); q >= 0 {
		head, query, hadQuery = after[:from+q], after[from+q+1:], true
	}
	var kept, srvMax, srvName []string
	tlsSaid := false
	for _, pair := range queryOptions(query) {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		switch strings.ToLower(decodeLenient(k)) {
		case "srvmaxhosts":
			srvMax = append(srvMax, decodeLenient(v))
			continue
		case "srvservicename":
			srvName = append(srvName, decodeLenient(v))
			continue
		case "tls", "ssl":
			tlsSaid = true
		}
		kept = append(kept, pair)
	}
	if !tlsSaid {
		kept = append(kept, "tls=true")
	}
	if !hadQuery && !strings.Contains(head[from:], "/") {
		head += "/" // the driver wants a / before the query it is given
	}
	offline := "mongodb://" + head + "?" + strings.Join(kept, "&")
	cs, err := connstring.Parse(offline)
	if err != nil {
		return nil, "", err
	}
	cs.Scheme, cs.Original = connstring.SchemeMongoDBSRV, uri
	for _, v := range srvMax {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, "", fmt.Errorf("srvMaxHosts=%s is not a whole number of at least 0", textfmt.Token(v))
		}
		cs.SRVMaxHosts = n
	}
	for _, v := range srvName {
		if len(v) < 1 || len(v) > 62 {
			return nil, "", errors.New("srvServiceName must be 1 to 62 characters long")
		}
		cs.SRVServiceName = v
	}
	switch {
	case len(cs.RawHosts) != 1:
		return nil, "", errors.New("a mongodb+srv URI names one host (the SRV name), not a list")
	case hasPort(cs.RawHosts[0]):
		return nil, "", errors.New("a mongodb+srv URI's host takes no port: the SRV record gives the ports")
	}
	return cs, offline, nil
}

func hasPort(host string) bool {
	_, _, err := net.SplitHostPort(host)
	return err == nil
}

// Words the driver passes to the server unchecked. The server refuses an
// unknown readConcern level on every read; a compressor the server does
// not know is dropped from the handshake, so the run would measure
// without the compression the URI asked for.
var (
	readConcernLevels = []string{"local", "available", "majority", "linearizable", "snapshot"}
	uriCompressors    = []string{"snappy", "zlib", "zstd"}
)

// The driver's heartbeat and the servers' idle write period, which bound
// maxStalenessSeconds from below.
const (
	defaultHeartbeat = 10 * time.Second
	idleWritePeriod  = 10 * time.Second
)

// unknownHints are options of the connection-string specification (or of
// other drivers) that the Go driver does not know and ignores, with what
// to use instead.
var unknownHints = map[string]string{
	"tlsallowinvalidcertificates": "tlsInsecure=true allows invalid certificates and host names",
	"tlsallowinvalidhostnames":    "tlsInsecure=true allows invalid certificates and host names",
	"sslallowinvalidcertificates": "tlsInsecure=true allows invalid certificates and host names",
	"sslallowinvalidhostnames":    "tlsInsecure=true allows invalid certificates and host names",
	"waitqueuetimeoutms":          "timeoutMS bounds an operation, pool wait included",
	"sockettimeout":               "socketTimeoutMS",
	"connecttimeout":              "connectTimeoutMS",
}

// checkURIWords refuses what the driver takes without a word but that
// cannot be what was meant: a read preference mode, readConcern level or
// compressor outside its set, read-preference options without a mode, an
// authSource with no user to authenticate, and options the driver does
// not know (it ignores them: a misspelt maxPoolSize would sweep the
// default pool).
func checkURIWords(cs *connstring.ConnString) error {
	if cs.ReadPreference != "" {
		if _, err := readpref.ModeFromString(cs.ReadPreference); err != nil {
			return fmt.Errorf("readPreference=%s is not primary, primaryPreferred, secondary, secondaryPreferred or nearest", textfmt.Token(cs.ReadPreference))
		}
	} else if len(cs.ReadPreferenceTagSets) > 0 || cs.MaxStalenessSet {
		return errors.New("readPreferenceTags and maxStalenessSeconds need a readPreference other than primary")
	}
	// The driver checks maxStalenessSeconds at each server selection: every
	// read of the run would fail.
	if hb := defaultHeartbeat; cs.MaxStaleness > 0 {
		if cs.HeartbeatIntervalSet {
			hb = cs.HeartbeatInterval
		}
		if least := max(90*time.Second, hb+idleWritePeriod); cs.MaxStaleness < least {
			return fmt.Errorf("maxStalenessSeconds=%d is less than %d: the driver wants at least 90 s, and the heartbeat (heartbeatFrequencyMS) plus 10 s", int64(cs.MaxStaleness/time.Second), int64(least/time.Second))
		}
	}
	if cs.ReadConcernLevel != "" && !slices.Contains(readConcernLevels, cs.ReadConcernLevel) {
		return fmt.Errorf("readConcernLevel=%s is not %s", textfmt.Token(cs.ReadConcernLevel), strings.Join(readConcernLevels, ", "))
	}
	for _, c := range cs.Compressors {
		if !slices.Contains(uriCompressors, c) {
			return fmt.Errorf("compressors: %s is not snappy, zlib or zstd", textfmt.Token(c))
		}
	}
	if cs.AuthSourceSet && cs.AuthMechanism == "" && !cs.UsernameSet {
		return fmt.Errorf("authSource=%s: the URI has no user to authenticate (give user:password@, or drop authSource)", textfmt.Token(cs.AuthSource))
	}
	names := make([]string, 0, len(cs.UnknownOptions))
	for k := range cs.UnknownOptions {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if isSecretOption(k) {
			return errors.New("an option the Go driver does not know, whose name says it holds a secret: remove it")
		}
		if hint, ok := unknownHints[k]; ok {
			return fmt.Errorf("%s: the Go driver does not know this option and would ignore it; %s", textfmt.Token(k), hint)
		}
		return fmt.Errorf("%s: the Go driver does not know this option and would ignore it (misspelt?)", textfmt.Token(k))
	}
	return nil
}

// URIFile is a file a URI names for the driver to read (a TLS
// certificate or key): Option is the URI option that names it.
type URIFile struct{ Option, Path string }

// URIFiles lists the files uri names, so that a command can refuse an
// output that would replace one; none for a URI that does not parse.
func URIFiles(uri string) []URIFile {
	cs, _, err := parseOffline(uri)
	if err != nil {
		return nil
	}
	var fs []URIFile
	for _, f := range []struct {
		set        bool
		name, path string
	}{
		{cs.SSLCaFileSet, "tlsCAFile", cs.SSLCaFile},
		{cs.SSLClientCertificateKeyFileSet, "tlsCertificateKeyFile", cs.SSLClientCertificateKeyFile},
		{cs.SSLCertificateFileSet, "tlsCertificateFile", cs.SSLCertificateFile},
		{cs.SSLPrivateKeyFileSet, "tlsPrivateKeyFile", cs.SSLPrivateKeyFile},
	} {
		if f.set && f.path != "" {
			fs = append(fs, URIFile{Option: f.name, Path: f.path})
		}
	}
	return fs
}

// maxTLSFile bounds the files a URI names: a certificate chain or a key is
// a few kilobytes, and the driver reads each whole.
const maxTLSFile = 1 << 20

// checkURIFiles checks the files a URI names before the driver reads them:
// each must exist, be readable, and be a regular file of at most
// maxTLSFile bytes (the driver would read a FIFO or /dev/zero for ever);
// then the driver reads each as the option wants it (certificates, a
// certificate with its key, the key's password), so that its refusal
// names the option. The error names the option and the file, never the
// file's contents.
func checkURIFiles(cs *connstring.ConnString, uri string) error {
	type file struct{ name, path string }
	var ca, certKey, cert []file
	if cs.SSLCaFileSet {
		ca = []file{{"tlsCAFile", cs.SSLCaFile}}
	}
	if cs.SSLClientCertificateKeyFileSet {
		certKey = []file{{"tlsCertificateKeyFile", cs.SSLClientCertificateKeyFile}}
	}
	if cs.SSLCertificateFileSet && cs.SSLPrivateKeyFileSet {
		cert = []file{{"tlsCertificateFile", cs.SSLCertificateFile}, {"tlsPrivateKeyFile", cs.SSLPrivateKeyFile}}
	}
	groups := [][]file{ca, certKey, cert}
	for _, g := range groups {
		for _, f := range g {
			if err := checkTLSFile(f.path); err != nil {
				return fmt.Errorf("%s=%s: %s", f.name, textfmt.Token(f.path), err)
			}
		}
	}
	pass := ""
	if cs.SSLClientCertificateKeyPasswordSet && cs.SSLClientCertificateKeyPassword != nil {
		pass = cs.SSLClientCertificateKeyPassword()
	}
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		v := url.Values{"tls": {"true"}}
		var names []string
		for _, f := range g {
			v.Set(f.name, f.path)
			names = append(names, f.name+"="+textfmt.Token(f.path))
		}
		if pass != "" && g[0].name != "tlsCAFile" {
			v.Set("tlsCertificateKeyFilePassword", pass)
		}
		if err := options.Client().ApplyURI("mongodb://localhost/?" + v.Encode()).Validate(); err != nil {
			return fmt.Errorf("%s: %w", strings.Join(names, " with "), driverError(err, uri))
		}
	}
	return nil
}

func checkTLSFile(path string) error {
	if path == "" {
		return errors.New("an empty path")
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return errors.New("no such file")
	case errors.Is(err, os.ErrPermission):
		return errors.New("not readable (permission denied)")
	case err != nil:
		return errors.New("cannot be read")
	case st.IsDir():
		return errors.New("is a directory, not a file")
	case !st.Mode().IsRegular():
		return errors.New("is not a regular file")
	case st.Size() > maxTLSFile:
		return fmt.Errorf("is %d bytes; a certificate or key file is a few kilobytes (at most %d)", st.Size(), maxTLSFile)
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return errors.New("not readable (permission denied)")
		}
		return errors.New("cannot be read")
	}
	return f.Close()
}

// quoted finds the values the driver quotes in its errors (%q).
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// driverError is the driver's refusal of uri as one short line that shows
// no credential: the driver quotes pieces of what it could not parse
// (`invalid password: invalid URL escape "%zz"`, `invalid option value
// "AWS_SESSION_TOKEN:…"`). A quoted value is shown, as a short token, only
// where it can be read in the URI with its credentials hidden (an option's
// name or value, a host); anything else it quotes is a piece of the user
// information or of a secret option's value, a password too short for
// Redact to find in free text included, and shows as ***. What is left
// is redacted.
func driverError(err error, uri string) error {
	msg := err.Error()
	for _, p := range []string{"error parsing uri: ", "error validating uri: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	visible := redactStructure(uri)
	decoded := decodeLenient(visible)
	msg = quoted.ReplaceAllStringFunc(msg, func(q string) string {
		v, err := strconv.Unquote(q)
		if err != nil || !strings.Contains(visible, v) && !strings.Contains(decoded, v) {
			return mask
		}
		return textfmt.Token(v)
	})
	return errors.New(Redact(msg))
}
