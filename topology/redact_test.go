package topology

import "testing"

func TestRedact(t *testing.T) {
	tests := []struct {
		in, want string
	}{
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
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
