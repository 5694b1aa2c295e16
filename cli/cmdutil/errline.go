package cmdutil

import (
	"errors"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/topology"
)

// ErrorLine is the one line on stderr that err, which ended a command,
// becomes: redacted, on one line and cut to MaxLineBytes; an
// interruption says that the finished steps are kept.
func ErrorLine(err error) string {
	var in errext.InterruptedError
	if errors.As(err, &in) {
		return "poolsweep: " + in.Error() + "; finished steps are kept"
	}
	return "poolsweep: " + SafeLine(topology.Redact(err.Error()))
}
