package topology

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testkit/credtest"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// uriPassword is the password of the refused URIs below: no error may
// show it, nor any piece of it.
const uriPassword = "pAsSwOrD9"

// TestValidateURIRefusals covers one class of bad input: what the driver refuses
// only once a run has started (exit 1) is refused by ValidateURI, naming
// the URI option, with no part of the password in the message; and what
// the driver would silently ignore or pass on unchecked, and cannot be
// what was meant, is refused too. Each case carries credentials where it
// can, so that the driver's text, relayed, is checked for leaks.
func TestValidateURIRefusals(t *testing.T) {
	creds := "alice:" + uriPassword + "@"
	tests := []struct {
		uri, want string // want: what the message must say (the option)
	}{
		// The audit's cases.
		{"mongodb://" + creds + "h/?readPreference=bogus", "readPreference"},
		{"mongodb://h/?authMechanism=PLAIN", "username required"}, // not "PLAIN": the redaction tests' hostile forms register it as a secret
		{"mongodb://" + creds + "h/?authMechanism=PLAIN&authMechanismProperties=A:B", "mechanism properties"},
		{"mongodb://" + creds + "h/?tlsCAFile=/nonexistent", "tlsCAFile"},
		{"mongodb://:pw@host", "username"},
		{"mongodb://:" + uriPassword + "@host/", "username"},
		// Their neighbours: words out of their sets.
		{"mongodb://" + creds + "h/?readPreference=PRIMARY ", "readPreference"},
		{"mongodb://" + creds + "h/?readConcernLevel=bogus", "readConcernLevel"},
		{"mongodb://" + creds + "h/?readConcernLevel=Majority", "readConcernLevel"},
		{"mongodb://" + creds + "h/?compressors=bogus", "compressors"},
		{"mongodb://" + creds + "h/?compressors=zstd,Snappy", "compressors"},
		{"mongodb://" + creds + "h/?journal=bogus", "journal"},
		{"mongodb://" + creds + "h/?serverMonitoringMode=bogus", "serverMonitoringMode"},
		{"mongodb://" + creds + "h/?authMechanism=bogus", "auth mechanism"},
		{"mongodb://" + creds + "h/?w=-1", `"w"`},
		{"mongodb://" + creds + "h/?readPreferenceTags=dc:ny", "readPreferenceTags"},
		{"mongodb://" + creds + "h/?readPreference=primary&maxStalenessSeconds=120", "primary"},
		{"mongodb://" + creds + "h/?readPreference=primary&readPreferenceTags=dc:ny", "primary"},
		{"mongodb://" + creds + "h/?readPreference=secondary&maxStalenessSeconds=89", "maxStalenessSeconds"}, // the driver refuses it at every selection
		{"mongodb://" + creds + "h/?readPreference=secondary&maxStalenessSeconds=100&heartbeatFrequencyMS=95000", "heartbeat"},
		// Credentials without what they need, or with what they must not have.
		{"mongodb://h/?authSource=admin", "authSource"},
		{"mongodb://h/?authMechanism=SCRAM-SHA-256", "SCRAM-SHA-256"},
		{"mongodb://" + creds + "h/?authMechanism=GSSAPI&authMechanismProperties=BOGUS:1", "GSSAPI"},
		{"mongodb://" + creds + "h/?authMechanism=MONGODB-X509", "X509"},
		{"mongodb://" + creds + "h/?authMechanism=MONGODB-AWS&authSource=admin", "auth source"},
		{"mongodb://" + creds + "h/?authSource=", "authSource"},
		{"mongodb://" + creds + "h/?authMechanism=plain", "authMechanism"}, // the driver parses it, and refuses it at Connect
		{"mongodb://" + creds + "h/?authMechanism=scram-sha-256", "authMechanism"},
		{"mongodb://alice@h/?authMechanism=GSSAPI", "GSSAPI support"}, // not in this build of the driver
		{"mongodb://h/?authMechanism=MONGODB-CR", "auth mechanism"},
		// Options that conflict.
		{"mongodb://" + creds + "a,b/?directConnection=true", "direct connection"},
		{"mongodb+srv://" + creds + "cluster.example.invalid/?directConnection=true", "SRV"},
		{"mongodb://" + creds + "a/?loadBalanced=true&replicaSet=rs", "loadBalanced"},
		{"mongodb://" + creds + "a,b/?loadBalanced=true", "loadBalanced"},
		{"mongodb://" + creds + "a/?loadBalanced=true&directConnection=true", "loadBalanced"},
		{"mongodb+srv://" + creds + "cluster.example.invalid/?srvMaxHosts=2&replicaSet=rs", "srvMaxHosts"},
		{"mongodb+srv://" + creds + "cluster.example.invalid/?srvMaxHosts=2&loadBalanced=true", "srvMaxHosts"},
		{"mongodb+srv://" + creds + "a.example.invalid,b.example.invalid/", "one host"},
		{"mongodb+srv://" + creds + "cluster.example.invalid:27017/", "port"},
		{"mongodb+srv://" + creds + "cluster.example.invalid/?srvMaxHosts=-1", "srvMaxHosts"},
		{"mongodb+srv://" + creds + "cluster.example.invalid/?srvServiceName=" + strings.Repeat("s", 63), "srvServiceName"},
		{"mongodb://" + creds + "h/?srvMaxHosts=2", "srvMaxHosts"},
		{"mongodb://" + creds + "h/?tlsInsecure=true&tlsDisableOCSPEndpointCheck=true", "tlsInsecure"},
		{"mongodb://" + creds + "h/?tlsInsecure=true&tlsAllowInvalidCertificates=true", "tlsallowinvalidcertificates"},
		{"mongodb://" + creds + "h/?tlsAllowInvalidHostnames=true", "tlsInsecure"},
		{"mongodb://" + creds + "h/?ssl=true&tls=false", "tls and ssl"},
		{"mongodb://" + creds + "h/?minPoolSize=10&maxPoolSize=5", "minPoolSize"},
		{"mongodb://" + creds + "h/?w=0&journal=true", "w=0"},
		// Options the driver does not know, and would ignore.
		{"mongodb://" + creds + "h/?maxPoolSzie=5", "maxpoolszie"},
		{"mongodb://" + creds + "h/?x=1", `"x"`},
		{"mongodb://" + creds + "h/?myToken=" + uriPassword, "secret"},
		// Values the driver quotes: no piece of a secret may come back.
		{"mongodb://alice:" + uriPassword + "%zz@h/", "password"},
		{"mongodb://alice:" + uriPassword + ":x@h/", "password"},
		{"mongodb://alice:%zz@h/", "password"},
		{"mongodb://" + creds + "h/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:" + uriPassword + "%zz", "option"},
		{"mongodb://" + creds + "h/?zlibCompressionLevel=" + strings.Repeat("9", 5000), "zlibCompressionLevel"},
		{"postgres://alice:" + uriPassword + "@h/", "not a MongoDB URI"},
	}
	for _, tt := range tests {
		err := ValidateURI(tt.uri)
		if err == nil {
			t.Errorf("%s: accepted", tt.uri)
			continue
		}
		msg := err.Error()
		t.Logf("%.80s\n\t→ %s", tt.uri, msg)
		if !strings.Contains(msg, tt.want) {
			t.Errorf("%s: %q, want it to name %q", tt.uri, msg, tt.want)
		}
		for n := 3; n <= len(uriPassword); n++ {
			for i := 0; i+n <= len(uriPassword); i++ {
				if piece := uriPassword[i : i+n]; strings.Contains(msg, piece) {
					t.Errorf("%s: %q shows %q, a piece of the password", tt.uri, msg, piece)
				}
			}
		}
		if strings.HasPrefix(tt.uri, "mongodb://:pw@") && strings.Contains(msg, "pw") {
			t.Errorf("%s: %q shows the password", tt.uri, msg)
		}
		if len(msg) > 300 || strings.Contains(msg, "\n") {
			t.Errorf("%s: %d bytes, want one short line: %.300q", tt.uri, len(msg), msg)
		}
	}
}

// TestValidateURIAccepts: what the driver connects with stays accepted
// (the limits of the sets above, written as the driver takes them), and
// an SRV URI is checked without DNS: these names do not resolve.
func TestValidateURIAccepts(t *testing.T) {
	for _, uri := range []string{
		"mongodb://alice:" + uriPassword + "@h1:27017,h2:27018/db?replicaSet=rs&readPreference=secondaryPreferred&maxStalenessSeconds=90",
		"mongodb://h/?readPreference=SECONDARY&readPreferenceTags=dc:ny&readPreferenceTags=",
		"mongodb://h/?readConcernLevel=majority&w=majority&journal=true",
		"mongodb://h/?w=myTagSet", // a custom write concern: the server's getLastErrorModes name it
		"mongodb://h/?compressors=zstd,zlib,snappy&zlibCompressionLevel=9",
		"mongodb://alice:" + uriPassword + "@h/?authSource=admin&authMechanism=SCRAM-SHA-256",
		"mongodb://alice@h/?authSource=admin",
		"mongodb://alice:" + uriPassword + "@h/?authMechanism=PLAIN",
		"mongodb://h/?authMechanism=MONGODB-AWS",
		"mongodb://h/?authMechanism=MONGODB-X509&authSource=$external",
		"mongodb://h/?directConnection=true&loadBalanced=false",
		"mongodb://h/?loadBalanced=true",
		"mongodb://h/?tls=true&tlsInsecure=true",
		"mongodb+srv://alice:" + uriPassword + "@cluster.example.invalid/db?retryWrites=true&w=majority",
		"mongodb+srv://cluster.example.invalid/?srvMaxHosts=2&srvServiceName=custom&tls=false",
		"mongodb+srv://cluster.example.invalid",
	} {
		start := time.Now()
		if err := ValidateURI(uri); err != nil {
			t.Errorf("%s: %v", uri, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: %s to validate: a DNS lookup?", uri, d)
		}
	}
	if hosts, err := Hosts("mongodb+srv://cluster.example.invalid/?srvMaxHosts=2"); err != nil || len(hosts) != 1 || hosts[0] != "cluster.example.invalid" {
		t.Errorf("Hosts of an SRV URI = %v, %v; want its SRV name, unresolved", hosts, err)
	}
}

// TestValidateURIFiles: the files a URI names are checked before the
// driver reads them: missing, a directory, a FIFO (the driver's read would
// wait for ever), a device, too large, or not what the option wants are
// refused naming the option and the file and never showing the file's
// contents; a real CA certificate, and a certificate with its key, pass.
func TestValidateURIFiles(t *testing.T) {
	dir := t.TempDir()
	caPEM, certKeyPEM := credtest.Certificates(t)
	ca := writeFile(t, dir, "ca.pem", caPEM)
	certKey := writeFile(t, dir, "client.pem", certKeyPEM)
	const contents = "cOnTeNtS-of-the-file"
	junk := writeFile(t, dir, "junk.pem", []byte(contents+"\n"))
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.pem")
	if f, err := os.Create(big); err != nil {
		t.Fatal(err)
	} else {
		f.Truncate(maxTLSFile + 1)
		f.Close()
	}
	link := filepath.Join(dir, "link.pem")
	if err := os.Symlink(ca, link); err != nil {
		t.Fatal(err)
	}
	q := url.QueryEscape
	refused := []struct{ uri, want string }{
		{"mongodb://h/?tlsCAFile=" + q(filepath.Join(dir, "missing.pem")), "tlsCAFile"},
		{"mongodb://h/?tlsCAFile=" + q(dir), "tlsCAFile"},
		{"mongodb://h/?tlsCAFile=" + q(fifo), "tlsCAFile"},
		{"mongodb://h/?tlsCAFile=/dev/zero", "tlsCAFile"},
		{"mongodb://h/?tlsCAFile=" + q(big), "tlsCAFile"},
		{"mongodb://h/?tlsCAFile=" + q(junk), "CA file"},
		{"mongodb://h/?tlsCertificateKeyFile=" + q(fifo), "tlsCertificateKeyFile"},
		{"mongodb://h/?tlsCertificateKeyFile=" + q(junk), "tlsCertificateKeyFile"},
		{"mongodb://h/?tlsCertificateKeyFile=" + q(ca), "PRIVATE KEY"}, // a certificate without its key
		{"mongodb://h/?tlsCertificateFile=" + q(certKey) + "&tlsPrivateKeyFile=/nonexistent", "tlsPrivateKeyFile"},
		{"mongodb://h/?tlsCertificateFile=" + q(certKey), "tlsPrivateKeyFile"},
	}
	if os.Geteuid() != 0 { // root reads any file: unreadable is a user's case
		unreadable := writeFile(t, dir, "unreadable.pem", caPEM)
		os.Chmod(unreadable, 0)
		refused = append(refused, struct{ uri, want string }{"mongodb://h/?tlsCAFile=" + q(unreadable), "not readable"})
	}
	for _, tt := range refused {
		done := make(chan error, 1)
		go func() { done <- ValidateURI(tt.uri) }()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still validating after 10 s: it read what it should have refused", tt.uri)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want a refusal naming %q", tt.uri, err, tt.want)
		} else if strings.Contains(err.Error(), contents) {
			t.Errorf("%s: %q shows the file's contents", tt.uri, err)
		}
	}
	for _, uri := range []string{
		"mongodb://h/?tlsCAFile=" + q(ca),
		"mongodb://h/?tlsCAFile=" + q(link),
		"mongodb://h/?tlsCAFile=" + q(ca) + "&tlsCertificateKeyFile=" + q(certKey),
		"mongodb://h/?tlsCertificateFile=" + q(certKey) + "&tlsPrivateKeyFile=" + q(certKey),
	} {
		if err := ValidateURI(uri); err != nil {
			t.Errorf("%s: %v", uri, err)
		}
	}
}

func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// FuzzValidateURI: for any user name, password and query, ValidateURI
// ends (no panic), and a refusal is one line of at most a few hundred
// bytes that shows the password in no form, except where the user name
// or the query holds the same text.
func FuzzValidateURI(f *testing.F) {
	for _, seed := range [][3]string{
		{"alice", uriPassword, "readPreference=bogus"},
		{"", "pw", ""},
		{"alice", uriPassword + "%zz", "authMechanism=PLAIN"},
		{"alice", uriPassword, "authMechanism=PLAIN&authMechanismProperties=A:B"},
		{"alice", uriPassword, "tlsCAFile=/nonexistent&tlsCertificateKeyFilePassword=" + uriPassword},
		{"alice", uriPassword, "authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:" + uriPassword + "%zz"},
		{"alice", uriPassword, "compressors=zstd,bogus&maxPoolSize=1e3"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, user, pass, query string) {
		uri := "mongodb://" + user + ":" + pass + "@h/?" + query
		err := ValidateURI(uri)
		if err == nil {
			return
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || len(msg) > 600 {
			t.Fatalf("ValidateURI(%q): not one short line: %q", uri, msg)
		}
		// Text the message holds whatever the password is, is its own.
		own := ""
		if err := ValidateURI("mongodb://" + user + ":Q@h/?" + query); err != nil {
			own = err.Error()
		}
		decoded, _ := url.PathUnescape(pass)
		for _, secret := range []string{pass, decoded} {
			if len(secret) >= minSecretLen && strings.Contains(msg, secret) && !strings.Contains(user+query+own, secret) {
				t.Fatalf("ValidateURI(%q) shows the password %q: %q", uri, secret, msg)
			}
		}
	})
}

// TestMaxStalenessIsTheDriversFloor: the floor ValidateURI puts on
// maxStalenessSeconds is the driver's own, found where the driver checks
// it, at server selection among a replica set's members (the simulator's):
// below it every read fails naming max staleness; at it, reads work.
func TestMaxStalenessIsTheDriversFloor(t *testing.T) {
	t.Parallel()
	// The check is a replica set's: the driver makes it when it selects
	// among members.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	spec, err := sim.ParseSpec("rs=3,service=0s")
	if err != nil {
		t.Fatal(err)
	}
	d, err := sim.Start(ctx, spec)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	for _, tt := range []struct {
		query     string
		staleness bool // the driver refuses the read for max staleness
	}{
		{"maxStalenessSeconds=89", true},
		{"maxStalenessSeconds=90", false},
		{"maxStalenessSeconds=100&heartbeatFrequencyMS=95000", true},
		{"maxStalenessSeconds=105&heartbeatFrequencyMS=95000", false},
	} {
		uri := d.URI() + "&readPreference=secondary&serverSelectionTimeoutMS=2000&" + tt.query
		c, err := mongo.Connect(options.Client().ApplyURI(uri))
		if err != nil {
			t.Fatal(err)
		}
		// The heartbeat's part of the check reads the first member's
		// heartbeat, known once it has been checked: read for a while.
		stale, other := false, error(nil)
		for i := 0; i < 15 && !stale; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := c.Database("d").Collection("c").FindOne(ctx, bson.D{}).Err()
			cancel()
			switch {
			case err != nil && strings.Contains(err.Error(), "max staleness"):
				stale = true
			case err != nil && !errors.Is(err, mongo.ErrNoDocuments):
				other = err
			}
			time.Sleep(100 * time.Millisecond)
		}
		c.Disconnect(context.Background())
		if stale != tt.staleness || other != nil {
			t.Errorf("%s: the driver refused reads for max staleness: %v (want %v); other errors: %v", tt.query, stale, tt.staleness, other)
		}
		if got := ValidateURI(uri) != nil; got != tt.staleness {
			t.Errorf("%s: ValidateURI refuses %v, want %v (the driver's word)", tt.query, got, tt.staleness)
		}
	}
}
