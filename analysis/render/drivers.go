package render

import (
	"fmt"
	"strconv"
)

// The pool options in each driver's words, with each driver's default:
// the one table the recommendation is printed from.
//
// Sources, read 2026-12-07 (MongoDB's driver documentation, "Connection
// Pools" page of each driver, and the C# driver's source):
//   - Go v2: mongodb.com/docs/drivers/go/current/connect/connection-options/connection-pools
//     (maxPoolSize 100, minPoolSize 0, maxConnecting 2, maxIdleTimeMS 0 = no
//     limit; ClientOptions SetMaxPoolSize, SetMinPoolSize, SetMaxConnecting,
//     SetMaxConnIdleTime); SetTimeout is the client-side operation timeout,
//     unset by default.
//   - Java: mongodb.com/docs/drivers/java/sync/current/connection/specify-connection-options/connection-pools
//     and .../csot (ConnectionPoolSettings.Builder maxSize 100, minSize 0,
//     maxConnecting 2, maxConnectionIdleTime 0 = no limit;
//     MongoClientSettings.Builder.timeout(long, TimeUnit), unset by default).
//   - Node: mongodb.com/docs/drivers/node/current/connect/connection-options/connection-pools
//     (maxPoolSize 100, minPoolSize 0, maxConnecting 2, maxIdleTimeMS 0 = no
//     limit; timeoutMS unset by default).
//   - Python (PyMongo): mongodb.com/docs/languages/python/pymongo-driver/current/connect/connection-options/connection-pools
//     (maxPoolSize 100, minPoolSize 0, maxConnecting 2, maxIdleTimeMS None =
//     no limit; timeoutMS None).
//   - C#: mongodb.com/docs/drivers/csharp/current/connect/connection-options/connection-pools
//     (MaxConnectionPoolSize 100, MinConnectionPoolSize 0, MaxConnecting 2,
//     MaxConnectionIdleTime 10 minutes, not "no limit" as elsewhere) and
//     github.com/mongodb/mongo-csharp-driver src/MongoDB.Driver/MongoClientSettings.cs
//     (Timeout is a TimeSpan?, infinite by default).
//
// Every driver takes the same URI options (maxPoolSize, minPoolSize,
// maxConnecting, maxIdleTimeMS, timeoutMS).

// Option names the pool options the recommendation sets, in its order.
type Option int

// The pool options.
const (
	optMaxPoolSize Option = iota
	optMinPoolSize
	optMaxConnecting
	optMaxIdleMS
	optTimeoutMS
)

// URIName is the option's name in a connection string, which every
// driver reads.
func (o Option) URIName() string {
	return [...]string{"maxPoolSize", "minPoolSize", "maxConnecting", "maxIdleTimeMS", "timeoutMS"}[o]
}

// Driver is one driver's words for the pool options.
type Driver struct {
	Name string `json:"driver"`
	// Where is what the settings are set on.
	Where string `json:"where"`
	// set writes option o at value v (milliseconds for the times).
	set [5]func(v int64) string
	// Defaults are each option's default, as the driver states it.
	defaults [5]string
}

// Drivers are the drivers the recommendation is printed for.
var Drivers = []Driver{
	{
		Name: "Go (v2)", Where: "options.Client()",
		set: [5]func(int64) string{
			func(v int64) string { return fmt.Sprintf(".SetMaxPoolSize(%d)", v) },
			func(v int64) string { return fmt.Sprintf(".SetMinPoolSize(%d)", v) },
			func(v int64) string { return fmt.Sprintf(".SetMaxConnecting(%d)", v) },
			func(v int64) string { return fmt.Sprintf(".SetMaxConnIdleTime(%d * time.Millisecond)", v) },
			func(v int64) string { return fmt.Sprintf(".SetTimeout(%d * time.Millisecond)", v) },
		},
		defaults: [5]string{"100", "0", "2", "0 (no limit)", "not set"},
	},
	{
		Name: "Java", Where: "ConnectionPoolSettings.Builder; MongoClientSettings.Builder for the timeout",
		set: [5]func(int64) string{
			func(v int64) string { return fmt.Sprintf(".maxSize(%d)", v) },
			func(v int64) string { return fmt.Sprintf(".minSize(%d)", v) },
			func(v int64) string { return fmt.Sprintf(".maxConnecting(%d)", v) },
			func(v int64) string { return fmt.Sprintf(".maxConnectionIdleTime(%d, MILLISECONDS)", v) },
			func(v int64) string { return fmt.Sprintf("MongoClientSettings.Builder.timeout(%d, MILLISECONDS)", v) },
		},
		defaults: [5]string{"100", "0", "2", "0 (no limit)", "not set"},
	},
	{
		Name: "Node", Where: "MongoClient options",
		set: [5]func(int64) string{
			func(v int64) string { return fmt.Sprintf("maxPoolSize: %d", v) },
			func(v int64) string { return fmt.Sprintf("minPoolSize: %d", v) },
			func(v int64) string { return fmt.Sprintf("maxConnecting: %d", v) },
			func(v int64) string { return fmt.Sprintf("maxIdleTimeMS: %d", v) },
			func(v int64) string { return fmt.Sprintf("timeoutMS: %d", v) },
		},
		defaults: [5]string{"100", "0", "2", "0 (no limit)", "not set"},
	},
	{
		Name: "Python (PyMongo)", Where: "MongoClient keyword arguments",
		set: [5]func(int64) string{
			func(v int64) string { return fmt.Sprintf("maxPoolSize=%d", v) },
			func(v int64) string { return fmt.Sprintf("minPoolSize=%d", v) },
			func(v int64) string { return fmt.Sprintf("maxConnecting=%d", v) },
			func(v int64) string { return fmt.Sprintf("maxIdleTimeMS=%d", v) },
			func(v int64) string { return fmt.Sprintf("timeoutMS=%d", v) },
		},
		defaults: [5]string{"100", "0", "2", "None (no limit)", "None"},
	},
	{
		Name: "C#", Where: "MongoClientSettings",
		set: [5]func(int64) string{
			func(v int64) string { return fmt.Sprintf("MaxConnectionPoolSize = %d", v) },
			func(v int64) string { return fmt.Sprintf("MinConnectionPoolSize = %d", v) },
			func(v int64) string { return fmt.Sprintf("MaxConnecting = %d", v) },
			func(v int64) string { return fmt.Sprintf("MaxConnectionIdleTime = TimeSpan.FromMilliseconds(%d)", v) },
			func(v int64) string { return fmt.Sprintf("Timeout = TimeSpan.FromMilliseconds(%d)", v) },
		},
		defaults: [5]string{"100", "0", "2", "10 minutes", "infinite"},
	},
}

// Setting is one option as a driver writes it, beside its default.
type Setting struct {
	Option  string `json:"option"`
	Code    string `json:"code"`
	Default string `json:"default"`
}

// Set is option o at value v in d's words.
func (d Driver) Set(o Option, v int64) string { return d.set[o](v) }

// Default is option o's default in d.
func (d Driver) Default(o Option) string { return d.defaults[o] }

// uriValue is "name=value".
func uriValue(o Option, v int64) string { return o.URIName() + "=" + strconv.FormatInt(v, 10) }
