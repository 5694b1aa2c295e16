package topology

import (
	"strings"
	"testing"
)

// TestValidateURIBounds: a URI's numbers the driver would act on before
// any context can stop it, or that are typos, are refused naming the
// option; the limits themselves pass.
func TestValidateURIBounds(t *testing.T) {
	tests := []struct {
		uri, want string // want "" accepts
	}{
		{"mongodb://h/?maxConnecting=4294967296", "maxConnecting=4294967296"}, // the audit's: filled memory inside Connect
		{"mongodb://h/?maxConnecting=0", "maxConnecting=0"},
		{"mongodb://h/?maxConnecting=1024", ""},
		{"mongodb://h/?maxPoolSize=200000", "maxPoolSize=200000"},
		{"mongodb://h/?maxPoolSize=100000&minPoolSize=100000", ""},
		{"mongodb://h/?minPoolSize=4294967296", "minPoolSize"},
		{"mongodb://h/?connectTimeoutMS=9223372036854775807", "connectTimeoutMS=9223372036854775807"}, // wraps negative as a Duration
		{"mongodb://h/?serverSelectionTimeoutMS=86400001", "serverSelectionTimeoutMS"},
		{"mongodb://h/?serverSelectionTimeoutMS=86400000", ""},
		{"mongodb://h/?heartbeatFrequencyMS=1", "heartbeatFrequencyMS"},
		{"mongodb://h/?timeoutMS=99999999999", "timeoutMS"},
		{"mongodb://h/?zlibCompressionLevel=9", ""},
		{"mongodb://h/?w=2000", "w=2000"},
	}
	for _, tt := range tests {
		err := ValidateURI(tt.uri)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.uri, err, tt.want)
		}
	}
}
