package inspect

import (
	"fmt"
	"io"
	"regexp"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/corpus"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/topology"
)

// savedName is the shape of every name saveReplies may write: the corpus
// name (corpus.FileName) of a mongod's or a mongos' reply to any command,
// whatever role and version the server gives. Before inspect connects,
// every entry of the directory of that shape must be a regular file.
var savedName = regexp.MustCompile(`^[A-Za-z]+\.mongo[ds]-.*\.json$`)

// saveReplies writes each captured reply into dir as Extended JSON (v2,
// canonical: the BSON types kept), named as the corpus names its replies
// (<command>.<process>[-<role>]-<version>.json, role on hello and isMaster
// only), through outfile, which refuses a symlink in the way: these files are
// meant to be read by others. It returns the paths written.
func saveReplies(dir string, r topology.Replies) ([]string, error) {
	if err := outfile.MakeDir(dir); err != nil {
		return nil, fmt.Errorf("--save-replies: %w", err)
	}
	var written []string
	for _, rep := range r.Replies {
		role := ""
		if rep.Command == "hello" || rep.Command == "isMaster" {
			role = r.Role
		}
		text, err := bson.MarshalExtJSONIndent(rep.Doc, true, false, "", " ")
		if err != nil {
			return written, fmt.Errorf("--save-replies: %s: %w", rep.Command, err)
		}
		// WriteIn refuses a symlink in the way and a name that is not one
		// plain file name (the version and role come from the server);
		// FileName names a version no server reports "unknown", and every
		// other as inspect --replies reads it back.
		path, err := outfile.WriteIn(dir, corpus.FileName(rep.Command, r.Process, role, r.Version, ""), func(w io.Writer) error {
			_, err := w.Write(append(text, '\n'))
			return err
		})
		if err != nil {
			return written, fmt.Errorf("--save-replies: %w", err)
		}
		written = append(written, path)
	}
	return written, nil
}
