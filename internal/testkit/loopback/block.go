package loopback

import (
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"testing"
)

// blockLow and blockHigh bound the ports FreeBlock picks from: below
// Linux's ephemeral range (32768 up), so that no test's port 0 listener
// or outgoing connection takes one of them between FreeBlock and the
// server the test starts there.
const blockLow, blockHigh = 20000, 32000

// given are the ports FreeBlock has handed out in this process, so that
// two parallel tests never get overlapping blocks.
var (
	givenMu sync.Mutex
	given   = map[int]bool{}
)

// FreeBlock returns a port P such that P, P+1, … P+n-1 are free on
// 127.0.0.1 now: a fixed base for a server that listens on n consecutive
// ports (serve --sim rs=3 --listen 127.0.0.1:P).
func FreeBlock(t testing.TB, n int) int {
	t.Helper()
	givenMu.Lock()
	defer givenMu.Unlock()
	for range 200 {
		base := blockLow + rand.IntN(blockHigh-blockLow-n)
		if blockGiven(base, n) || !blockFree(base, n) {
			continue
		}
		for p := base; p < base+n; p++ {
			given[p] = true
		}
		return base
	}
	t.Fatalf("no %d free consecutive ports on 127.0.0.1 between %d and %d", n, blockLow, blockHigh)
	return 0
}

func blockGiven(base, n int) bool {
	for p := base; p < base+n; p++ {
		if given[p] {
			return true
		}
	}
	return false
}

// blockFree reports whether each of base … base+n-1 can be listened on.
func blockFree(base, n int) bool {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for p := base; p < base+n; p++ {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			return false
		}
		lns = append(lns, ln)
	}
	return true
}
