// Package render draws what the analysis concluded, for people and for
// programs, so that every command shows one verdict the same way:
//
//   - Summary: the table a sweep prints when it ends (and merge after it),
//     step by step, closed and open loop, with the knee lines and the
//     deployment verdict in short;
//   - Text and JSON: what `poolsweep analyze` prints;
//   - Deployments, deploymentsShort, DeploymentsMarkdown, DeploymentFacts,
//     MatchedTable and SeedTable: the deployment verdict (analysis/curves,
//     curve against curve), as analyze, the sweep's summary, compare and
//     the report show it.
//
// It decides nothing: every number and verdict comes from analysis,
// analysis/knee and analysis/curves. It writes only to the io.Writer it is
// given, and escapes every text that came from a file or a server.
package render
