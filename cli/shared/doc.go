// Package shared holds what several poolsweep commands share of the
// product, as cli/cli's pr/shared does for its commands: the commands
// that read results files (FilesCmd, ReadOptions and --lenient), the
// flag groups several commands take (the knee's, the fleet plan's,
// --threshold), the --target and --steady checks, and writing figures.
// The streams, flag wording and input/output rules it builds on are
// cli/cmdutil's.
package shared
