package sim

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestWindowsReplies: with os=windows every server says what a Windows
// service says: serverStatus.process is the executable's path, hostInfo's
// os.type is Windows, and extra_info has Windows' fields and no CPU time.
// The hello of a router still says isdbgrid: that, not the path, is how
// a client tells a mongos.
func TestWindowsReplies(t *testing.T) {
	d := startAlone(t, "shards=1,service=0s,version=7.0,os=windows")
	for _, f := range d.listening() {
		name := "mongod"
		if f.router {
			name = "mongos"
		}
		status := runCmd(t, f, "admin", bson.D{{Key: "serverStatus", Value: 1}}, nil)
		want := `C:\Program Files\MongoDB\Server\7.0\bin\` + name + ".exe"
		if got, _ := status.Lookup("process").StringValueOK(); got != want {
			t.Errorf("%s: process %q, want %q", name, got, want)
		}
		extra, ok := status.Lookup("extra_info").DocumentOK()
		if !ok {
			t.Fatalf("%s: no extra_info", name)
		}
		for _, k := range []string{"user_time_us", "system_time_us", "maximum_resident_set_kb"} {
			if _, err := extra.LookupErr(k); err == nil {
				t.Errorf("%s: extra_info.%s: Windows reports no such field", name, k)
			}
		}
		for _, k := range []string{"page_faults", "totalPageFileMB", "availPageFileMB", "ramMB"} {
			if v, err := extra.LookupErr(k); err != nil || v.Type != bson.TypeInt32 {
				t.Errorf("%s: extra_info.%s = %v (%v), want an int32", name, k, v, err)
			}
		}
		host := runCmd(t, f, "admin", bson.D{{Key: "hostInfo", Value: 1}}, nil)
		if got, _ := host.Lookup("os", "type").StringValueOK(); got != "Windows" {
			t.Errorf("%s: hostInfo os.type %q, want Windows", name, got)
		}
		hello := runCmd(t, f, "admin", bson.D{{Key: "hello", Value: 1}}, nil)
		if msg, _ := hello.Lookup("msg").StringValueOK(); (msg == "isdbgrid") != f.router {
			t.Errorf("%s: hello msg %q", name, msg)
		}
	}
	if _, err := ParseSpec("os=plan9"); err == nil {
		t.Error("os=plan9: want an error")
	}
}
