// Package render draws what the analysis concluded, for people and for
// programs, so that every command shows one verdict the same way. The
// analysis packages compute values only; every text and JSON view of
// them is here:
//
//   - Summary: the table a sweep prints when it ends (and merge after it),
//     step by step, closed and open loop, with the knee lines (KneeLine)
//     and the deployment verdict in short;
//   - Text: what `poolsweep analyze` prints: each series' levels, methods
//     and verdict, the missing steps, the open-loop tables, the
//     deployment verdict, the profile settings; Replays after it;
//   - Document, JSON and Encode: analyze's JSON, one document built once
//     from the analysis values (a value the analysis could not give is
//     null) and encoded once; a command that adds fields embeds Doc;
//   - Deployments, DeploymentsMarkdown, DeploymentFacts, MatchedTable and
//     SeedTable: the deployment verdict (analysis/curves, curve against
//     curve), as analyze, the sweep's summary, compare and the report
//     show it.
//
// It decides nothing: every number and verdict comes from analysis,
// analysis/knee, analysis/openloop and analysis/curves. It writes only to
// the io.Writer it is given, and escapes every text that came from a file
// or a server.
package render
