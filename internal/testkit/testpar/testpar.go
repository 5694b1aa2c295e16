// Package testpar sets how many parallel tests a package runs at once. It
// imports nothing of poolsweep, so that every package's tests can use it,
// topology/sim's own included (which cannot import internal/testkit/testsrv).
package testpar

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// Default sets -test.parallel to n unless the command line gave it: for a
// package whose parallel tests mostly wait, more of them than the default
// of one per core may run at once. Call it from TestMain.
func Default(n int) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}

// Main is the TestMain of a package whose parallel tests mostly wait: it
// runs them n at a time (Default) and exits with the tests' status.
func Main(m *testing.M, n int) {
	Default(n)
	os.Exit(m.Run())
}
