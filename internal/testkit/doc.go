// Package testkit is the one home of the helpers that tests share, each a
// package of its own below it so that a test binary links only what it
// uses: testsrv (the simulator in-process or as a child, driver clients),
// testferret (embedded FerretDB), testhost (the load host's evidence),
// testpar (parallel tests per package), loopback (loopback addresses),
// golden (golden files and -update), cmdtest (one command run
// in-process), credtest (hostile connection strings) and ftdctest (FTDC
// files built byte by byte). Nothing outside tests imports them.
package testkit
