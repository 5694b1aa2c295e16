package topology

import (
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
)

// Bounds of the numbers a URI may set. The driver takes any number it can
// parse, and some it acts on before any context can stop it: maxConnecting
// starts one goroutine per connection it may open when a pool is made (a
// URI's maxConnecting=4294967296 filled memory inside mongo.Connect), and
// a pool or a timeout of 2^63 is a typo, not a setting. These are far
// beyond any deployment's use and far below what hangs.
const (
	maxURIPoolSize      = 100000 // maxPoolSize, minPoolSize (as --pool)
	maxURIConnecting    = 1024   // maxConnecting (as --max-connecting)
	maxURIHosts         = 1000   // hosts in the seed list; srvMaxHosts
	maxURITimeout       = 24 * time.Hour
	minURIHeartbeat     = 500 * time.Millisecond // the driver's own floor
	maxURICompressLevel = 22                     // zstd's highest; zlib's is 9
)

// checkURIBounds refuses a URI whose numbers lie outside what poolsweep
// can run with, naming the option.
func checkURIBounds(cs *connstring.ConnString) error {
	count := func(name string, v, hi uint64) error {
		if v > hi {
			return fmt.Errorf("%s=%d is more than %d", name, v, hi)
		}
		return nil
	}
	if err := count("maxPoolSize", cs.MaxPoolSize, maxURIPoolSize); err != nil {
		return err
	}
	if err := count("minPoolSize", cs.MinPoolSize, maxURIPoolSize); err != nil {
		return err
	}
	if cs.MaxConnectingSet && (cs.MaxConnecting < 1 || cs.MaxConnecting > maxURIConnecting) {
		return fmt.Errorf("maxConnecting=%d is not between 1 and %d", cs.MaxConnecting, maxURIConnecting)
	}
	if len(cs.Hosts) > maxURIHosts || cs.SRVMaxHosts < 0 || cs.SRVMaxHosts > maxURIHosts {
		return fmt.Errorf("%d hosts (srvMaxHosts=%d): more than %d", len(cs.Hosts), cs.SRVMaxHosts, maxURIHosts)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"connectTimeoutMS", cs.ConnectTimeout}, {"serverSelectionTimeoutMS", cs.ServerSelectionTimeout},
		{"socketTimeoutMS", cs.SocketTimeout}, {"timeoutMS", cs.Timeout},
		{"maxIdleTimeMS", cs.MaxConnIdleTime}, {"localThresholdMS", cs.LocalThreshold},
		{"heartbeatFrequencyMS", cs.HeartbeatInterval}, {"maxStalenessSeconds", cs.MaxStaleness},
	} {
		if d.v < 0 || d.v > maxURITimeout {
			// As written: a number past what a duration holds wraps.
			given := d.v.String()
			if vs := cs.Options[strings.ToLower(d.name)]; len(vs) > 0 {
				given = vs[0]
			}
			return fmt.Errorf("%s=%s is not between 0 and %s", d.name, given, maxURITimeout)
		}
	}
	if cs.HeartbeatIntervalSet && cs.HeartbeatInterval < minURIHeartbeat {
		return fmt.Errorf("heartbeatFrequencyMS is %s; the driver needs at least %s", cs.HeartbeatInterval, minURIHeartbeat)
	}
	if cs.ZlibLevel < -1 || cs.ZlibLevel > 9 || cs.ZstdLevel < -maxURICompressLevel || cs.ZstdLevel > maxURICompressLevel {
		return fmt.Errorf("zlibCompressionLevel=%d or zstdCompressionLevel=%d is out of range", cs.ZlibLevel, cs.ZstdLevel)
	}
	if cs.WNumberSet && (cs.WNumber < 0 || cs.WNumber > maxURIHosts) {
		return fmt.Errorf("w=%d is not between 0 and %d", cs.WNumber, maxURIHosts)
	}
	return nil
}
