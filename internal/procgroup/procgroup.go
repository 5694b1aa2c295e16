// Package procgroup starts poolsweep's child processes (the server it
// runs, the agents --spawn starts) in a process group of their own and
// ends a group at once, each platform in its own way: the one home of
// those rules for runner and topology.
package procgroup
