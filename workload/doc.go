// Package workload is what each call of a sweep does and on which data:
// the operations and their mix, the built-in workloads and YCSB property
// files, record keys and their distributions (uniform, zipfian, latest),
// the reusable arguments a worker sends, and loading the data set once
// per collection under a lock that concurrent runs share. It knows
// nothing of steps or of how they are measured.
package workload
