package sweep

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestTypedLike: a --server-param value is given the BSON type the
// server reported the parameter in, or refused saying which it needs.
func TestTypedLike(t *testing.T) {
	t.Parallel()
	orig := func(v any) bson.RawValue {
		tp, data, err := bson.MarshalValue(v)
		if err != nil {
			t.Fatal(err)
		}
		return bson.RawValue{Type: tp, Value: data}
	}
	for _, tc := range []struct {
		value   string
		orig    any
		want    any    // the value as the server gets it
		wantErr string // or the refusal
	}{
		{"8", int32(128), int32(8), ""},                                               // tickets: an int32
		{"3000000000", int32(1), nil, "32-bit whole number"},                          // past int32
		{"8.5", int32(1), nil, "32-bit whole number"},                                 // not whole
		{"3000000000", int64(1), int64(3000000000), ""},                               // an int64 takes it
		{"0.25", 1.0, 0.25, ""},                                                       // a double
		{"fast", 1.0, nil, "is not one"},                                              // not a number
		{"false", true, false, ""},                                                    // a boolean
		{"yes", true, nil, "true or false"},                                           // not a boolean
		{"snappy,zlib", "zstd", "snappy,zlib", ""},                                    // a string is the text
		{"1", bson.D{{Key: "a", Value: 1}}, nil, "which --server-param does not set"}, // a document
	} {
		got, err := typedLike(tc.value, orig(tc.orig))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s as %T: %v, want an error with %q", tc.value, tc.orig, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !got.Equal(orig(tc.want)) {
			t.Errorf("%s as %T: %v %v, want %v", tc.value, tc.orig, got, err, tc.want)
		}
	}
}
