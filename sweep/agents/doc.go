// Package agents is agent mode's coordination: several poolsweep
// processes, on one host or many, measure one plan against one deployment
// in lock step, meeting through a collection on the deployment itself
// (poolsweep_agents). Agent implements the engine's sweep.Coordinator; the
// engine knows only that interface, and this package imports the engine,
// never the other way.
package agents
