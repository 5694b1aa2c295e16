package topology

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Topology kinds as poolsweep reports them.
const (
	Standalone = "standalone"
	ReplSet    = "replset"
	Sharded    = "sharded"
)

// Server kinds.
const (
	KindMongoDB   = "mongodb"
	KindFerretDB  = "ferretdb"
	KindSimulator = "simulator"
)

// Target is a named deployment from --uri or --target name=URI. A target
// whose URI is "sim:SPEC" is a simulator poolsweep starts itself; one with
// Embedded set is the embedded FerretDB child.
type Target struct {
	Name     string
	URI      string // the real URI, credentials and all: never print it, use Redacted
	SimSpec  string // non-empty for sim:SPEC targets until started
	Embedded bool
}

// Redacted is the URI safe to print and store.
func (t Target) Redacted() string {
	if t.SimSpec != "" && t.URI == "" {
		return "sim:" + t.SimSpec
	}
	return Redact(t.URI)
}

var targetName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$`)

// CheckTargetName refuses what cannot name a target: the rule of
// --target's names, which every flag that names a target shares.
func CheckTargetName(name string) error {
	if !targetName.MatchString(name) {
		return fmt.Errorf("target name %s: use letters, digits, '.', '_' or '-' (at most 64)", textfmt.Token(Redact(name)))
	}
	return nil
}

// ParseTarget parses the value of --target: name=URI or name=sim:SPEC.
// It registers the URI's secrets with RegisterURI, so that no later
// message shows them.
func ParseTarget(v string) (Target, error) {
	name, uri, ok := strings.Cut(v, "=")
	if strings.Contains(v, "://") {
		// Register the whole value too: without a name, the URI's own
		// options hold the first '='.
		RegisterURI(v)
		RegisterURI(uri)
	}
	if !ok || name == "" || uri == "" {
		return Target{}, fmt.Errorf("%s is not name=URI", textfmt.Token(Redact(v)))
	}
	if err := CheckTargetName(name); err != nil {
		return Target{}, err
	}
	if spec, ok := strings.CutPrefix(uri, "sim:"); ok {
		if spec == "" {
			return Target{}, fmt.Errorf("target %s: sim: needs a spec, e.g. sim:slots=8,service=2ms", name)
		}
		return Target{Name: name, SimSpec: spec}, nil
	}
	if err := ValidateURI(uri); err != nil {
		return Target{}, fmt.Errorf("target %s: %w", name, err)
	}
	return Target{Name: name, URI: uri}, nil
}

// PoolSettings are the driver pool settings a URI implies (and the
// defaults of driver v2 where it says nothing).
type PoolSettings struct {
	MaxPoolSize       uint64   `json:"max_pool_size"`
	MaxPoolSizeSet    bool     `json:"max_pool_size_set"`
	MinPoolSize       uint64   `json:"min_pool_size"`
	MaxConnecting     uint64   `json:"max_connecting"`
	MaxIdleTimeMS     int64    `json:"max_idle_time_ms"`
	TimeoutMS         int64    `json:"timeout_ms"` // 0: no client-side operation timeout
	ConnectTimeoutMS  int64    `json:"connect_timeout_ms"`
	ServerSelectionMS int64    `json:"server_selection_timeout_ms"`
	DirectConnection  bool     `json:"direct_connection"`
	LoadBalanced      bool     `json:"load_balanced"`
	ReadPreference    string   `json:"read_preference"`
	WriteConcern      string   `json:"write_concern,omitempty"`
	Compressors       []string `json:"compressors,omitempty"`
	AppName           string   `json:"app_name,omitempty"`
	PerHostNote       string   `json:"note"`
}

// Driver v2 defaults (mongo/options and x/mongo/driver/topology).
const (
	defaultMaxPoolSize   = 100
	defaultMaxConnecting = 2
)

// PoolSettingsFromURI reads the pool-relevant options of uri.
func PoolSettingsFromURI(uri string) (PoolSettings, error) {
	RegisterURI(uri)
	cs, _, err := parseOffline(uri)
	if err != nil {
		return PoolSettings{}, driverError(err, uri)
	}
	ps := PoolSettings{
		MaxPoolSize:       defaultMaxPoolSize,
		MaxConnecting:     defaultMaxConnecting,
		ConnectTimeoutMS:  30000,
		ServerSelectionMS: 30000,
		ReadPreference:    "primary",
		PerHostNote:       "maxPoolSize and minPoolSize apply per client per host: K clients × P connections to each host (each mongos of a sharded cluster)",
	}
	if cs.MaxPoolSizeSet {
		ps.MaxPoolSize, ps.MaxPoolSizeSet = cs.MaxPoolSize, true
	}
	if cs.MinPoolSizeSet {
		ps.MinPoolSize = cs.MinPoolSize
	}
	if cs.MaxConnectingSet {
		ps.MaxConnecting = cs.MaxConnecting
	}
	if cs.MaxConnIdleTimeSet {
		ps.MaxIdleTimeMS = cs.MaxConnIdleTime.Milliseconds()
	}
	if cs.TimeoutSet {
		ps.TimeoutMS = cs.Timeout.Milliseconds()
	}
	if cs.ConnectTimeoutSet {
		ps.ConnectTimeoutMS = cs.ConnectTimeout.Milliseconds()
	}
	if cs.ServerSelectionTimeoutSet {
		ps.ServerSelectionMS = cs.ServerSelectionTimeout.Milliseconds()
	}
	ps.DirectConnection = cs.DirectConnection
	ps.LoadBalanced = cs.LoadBalanced
	if cs.ReadPreference != "" {
		ps.ReadPreference = cs.ReadPreference
	}
	if cs.WString != "" {
		ps.WriteConcern = "w=" + cs.WString
	} else if cs.WNumberSet {
		ps.WriteConcern = fmt.Sprintf("w=%d", cs.WNumber)
	}
	ps.Compressors = cs.Compressors
	ps.AppName = cs.AppName
	return ps, nil
}

// ClientOptions builds driver options for uri. Server selection and
// connect timeouts are bounded so that an unreachable target fails a step
// quickly instead of hanging the sweep.
// A timeout the URI sets itself is kept.
func ClientOptions(uri string) *options.ClientOptions {
	o := options.Client().SetServerSelectionTimeout(10 * time.Second).SetConnectTimeout(10 * time.Second).SetAppName("poolsweep")
	return o.ApplyURI(uri)
}

// Info is what Detect learned about a deployment.
type Info struct {
	Topology       string   `json:"topology"`
	SetName        string   `json:"set_name,omitempty"`
	ServerVersion  string   `json:"server_version"`
	ServerKind     string   `json:"server_kind"`
	KindVersion    string   `json:"kind_version,omitempty"` // FerretDB's own version
	Hosts          []string `json:"hosts"`
	Shards         []string `json:"shards,omitempty"`
	MaxWireVersion int32    `json:"max_wire_version"`
	SimSpec        string   `json:"sim_spec,omitempty"` // the simulator's canonical spec
	Note           string   `json:"note,omitempty"`
}

// Detect connects to uri with a one-connection client and asks hello,
// buildInfo and (on a router) listShards.
func Detect(ctx context.Context, uri string) (Info, error) {
	RegisterURI(uri)
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cs, err := connstring.Parse(uri)
	if err != nil {
		return Info{}, errors.New(Redact(err.Error()))
	}
	client, err := mongo.Connect(ClientOptions(uri).SetMaxPoolSize(1))
	if err != nil {
		return Info{}, fmt.Errorf("connect: %s", RedactError(err))
	}
	defer client.Disconnect(context.Background())

	admin := client.Database("admin")
	var hello bson.M
	if err := admin.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		// Servers before 4.4.2 / 5.0 may not know hello.
		if err2 := admin.RunCommand(ctx, bson.D{{Key: "isMaster", Value: 1}}).Decode(&hello); err2 != nil {
			return Info{}, fmt.Errorf("hello: %s", RedactError(err))
		}
	}
	info := Info{Topology: Standalone, ServerKind: KindMongoDB}
	if msg, _ := hello["msg"].(string); msg == "isdbgrid" {
		info.Topology = Sharded
	} else if set, _ := hello["setName"].(string); set != "" {
		info.Topology, info.SetName = ReplSet, set
	}
	if v, ok := asInt32(hello["maxWireVersion"]); ok {
		info.MaxWireVersion = v
	}
	info.Hosts = append(info.Hosts, cs.Hosts...)
	if info.Topology == ReplSet {
		if members := replicaSetMembers(hello); len(members) > 0 {
			info.Hosts = members
		}
	}

	var build bson.M
	if err := admin.RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&build); err == nil {
		info.ServerVersion, _ = build["version"].(string)
		if v, ok := build["ferretdbVersion"].(string); ok {
			info.ServerKind, info.KindVersion = KindFerretDB, v
			info.Note = "FerretDB translates MongoDB commands to SQL: its numbers are FerretDB's, not MongoDB's"
		}
		if _, ok := build["poolsweepSimulator"]; ok {
			info.ServerKind = KindSimulator
			info.SimSpec, _ = build["simulatorSpec"].(string)
			info.Note = "calibrated simulator: a measuring instrument with known capacity, not a database"
		}
	}
	if strings.Contains(info.ServerVersion, "poolsweep-sim") {
		info.ServerKind = KindSimulator
		if info.Note == "" {
			info.Note = "calibrated simulator: a measuring instrument with known capacity, not a database"
		}
	}
	if info.Topology == Sharded {
		var shards struct {
			Shards []struct {
				ID   string `bson:"_id"`
				Host string `bson:"host"`
			} `bson:"shards"`
		}
		if err := admin.RunCommand(ctx, bson.D{{Key: "listShards", Value: 1}}).Decode(&shards); err == nil {
			for _, s := range shards.Shards {
				info.Shards = append(info.Shards, s.ID)
			}
		}
	}
	return info, nil
}

// replicaSetMembers is a replica set's data-bearing members as hello
// lists them: hosts (electable) and passives (priority 0, which hello lists
// apart; they serve reads and take writes' replication all the same).
// Arbiters hold no data and are left out.
func replicaSetMembers(hello bson.M) []string {
	var out []string
	for _, key := range []string{"hosts", "passives"} {
		hs, _ := hello[key].(bson.A)
		for _, h := range hs {
			if s, ok := h.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func asInt32(v any) (int32, bool) {
	switch n := v.(type) {
	case int32:
		return n, true
	case int64:
		return int32(n), true
	case float64:
		return int32(n), true
	}
	return 0, false
}
