// Package topology connects to MongoDB deployments, tells what they are
// (standalone, replica set, sharded; MongoDB, FerretDB or the simulator),
// and starts the servers poolsweep runs itself (embedded FerretDB, and the
// calibrated simulator through topology/sim).
package topology

import "regexp"

// userinfo matches the password part of any URL's userinfo: the scheme and
// user are kept, the password becomes ***. It runs over whole messages, so
// driver errors that echo a URI are covered too.
// The password runs to the last @ before the host's slash, so quotes and
// other characters the driver accepts unescaped are covered.
var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://[^:/@\s"']*):[^/\s]*@`)

// secretOptions are connection-string options whose values are secrets.
var secretOptions = regexp.MustCompile(`(?i)((?:tlsCertificateKeyFilePassword|sslClientCertificateKeyPassword|authMechanismProperties)=)[^&\s"']*`)

// Redact replaces every password inside a URL in s with ***:
// mongodb://alice:s3cret@h/ becomes mongodb://alice:***@h/, and so do the
// values of options that carry secrets (tlsCertificateKeyFilePassword,
// authMechanismProperties with its AWS session token).
func Redact(s string) string {
	s = userinfo.ReplaceAllString(s, "${1}:***@")
	return secretOptions.ReplaceAllString(s, "${1}***")
}

// RedactError returns err's text with credentials redacted.
func RedactError(err error) string {
	if err == nil {
		return ""
	}
	return Redact(err.Error())
}
