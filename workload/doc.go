// Package workload is what each call of a sweep does and on which data.
// A workload's Caller draws each call, prepares its ops' arguments and
// sends them; the built-in mixes (reads, updates, inserts, scans and
// read-modify-writes by record key, and the YCSB property files that
// describe them) and the replay of a workload file (its shapes by share,
// reads on the user's collections, writes on a copy poolsweep owns) are
// its two kinds. The package also holds record keys and their
// distributions (uniform, zipfian, latest), the reusable arguments a
// call sends, and loading the data set once per collection under a lock
// that concurrent runs share. It knows nothing of steps or of how they
// are timed and recorded.
package workload
