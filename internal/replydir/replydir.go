// Package replydir reads a folder of a server's replies for inspect
// --replies: what inspect --save-replies wrote (one Extended JSON file per
// reply, named like the corpus of real replies), or a server's own FTDC
// folder (diagnostic.data, its files chosen and bounded by
// ftdc.ListFolder, as analyze --ftdc chooses them), whose newest sample
// holds serverStatus and, per process, replSetGetStatus or connPoolStats,
// and whose metadata holds buildInfo, hostInfo and getCmdLineOpts (a
// role's evidence). It reads and decodes; it judges nothing.
package replydir

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/ftdc"
	"github.com/poolsweep/poolsweep/internal/corpus"
	"github.com/poolsweep/poolsweep/internal/infile"
)

// Bounds: a folder of saved replies is a bug report's attachment, not an
// archive of everything; an FTDC folder has ftdc.ListFolder's.
const (
	maxEntries   = 1000
	maxReplySize = 16 << 20 // one saved reply (a BSON document's limit)
)

// Host is one server's replies.
type Host struct {
	// Name says which server: "<process>-<version>" for saved replies,
	// "ftdc" for an FTDC folder.
	Name string
	// Files are the files read, by base name.
	Files []string
	// Replies by command (serverStatus, hello, isMaster, buildInfo,
	// hostInfo, getCmdLineOpts, connPoolStats, listShards,
	// replSetGetStatus).
	Replies map[string]bson.Raw
	// SampledAt is when the FTDC sample was taken (zero for saved replies).
	SampledAt time.Time
	// Warnings name the FTDC files whose last chunk was left out.
	Warnings []string
}

// leftOut is the warning for a file whose last metric chunk the folder's
// ftdc.Budget could not pay for.
func leftOut(name string) string {
	return name + ": its last metric chunk declares more samples and metrics than the folder's bytes pay for; left out"
}

// Error is bad input: Field says which file (or "" for the folder).
// Its text never quotes a file's contents.
type Error struct {
	File string
	Err  error
}

func (e *Error) Error() string {
	if e.File == "" {
		return e.Err.Error()
	}
	return e.File + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

func bad(file, format string, a ...any) error {
	return &Error{File: file, Err: fmt.Errorf(format, a...)}
}

// Load reads dir: an FTDC folder when it holds a server's metric files
// (ftdc.IsMetricFile), else the
// saved replies in it (files named <command>.<process>[-<role>]-<version>.json;
// other files are ignored). Subfolders are ignored.
func Load(dir string) ([]Host, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, bad("", "cannot read the folder: %v", errors.Unwrap(err))
	}
	if !st.IsDir() {
		return nil, bad("", "not a folder")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, bad("", "cannot list the folder: %v", errors.Unwrap(err))
	}
	// A server's FTDC folder is listed, selected and bounded as analyze
	// --ftdc lists it (ftdc.ListFolder), so that both read the same files.
	for _, e := range entries {
		if ftdc.IsMetricFile(e.Name()) && e.Type().IsRegular() {
			folder, err := ftdc.ListFolder(dir)
			if err != nil {
				return nil, bad("", "the folder %v", err)
			}
			h, err := loadFTDC(folder)
			if err != nil {
				return nil, err
			}
			return []Host{h}, nil
		}
	}
	if len(entries) > maxEntries {
		return nil, bad("", "%d entries, more than %d: point it at one server's replies", len(entries), maxEntries)
	}
	var replyFiles []string
	for _, e := range entries {
		if name := e.Name(); e.Type().IsRegular() && strings.HasSuffix(name, ".json") {
			if _, ok := corpus.ParseName(name); ok {
				replyFiles = append(replyFiles, name)
			}
		}
	}
	if len(replyFiles) > 0 {
		return loadSaved(dir, replyFiles)
	}
	return nil, bad("", "holds neither saved replies (<command>.<process>-<version>.json) nor FTDC (metrics.<time>-<counter> or metrics.interim)")
}

// loadSaved groups saved replies by process and version, one host each.
func loadSaved(dir string, names []string) ([]Host, error) {
	slices.Sort(names)
	byKey := map[string]*Host{}
	var keys []string
	for _, name := range names {
		f, _ := corpus.ParseName(name)
		data, err := readBounded(infile.In(dir, name), maxReplySize)
		if err != nil {
			return nil, bad(name, "%v", err)
		}
		var raw bson.Raw
		if err := bson.UnmarshalExtJSON(data, true, &raw); err != nil {
			return nil, bad(name, "not a reply in Extended JSON")
		}
		// One host per process and version, as --save-replies names its
		// files (the role on hello and isMaster only); a second hello of
		// another role (two members' replies of one version, as in the
		// corpus) is a host of its own.
		key := f.Process + "-" + f.Version + f.Variant
		if h := byKey[key]; h != nil && h.Replies[f.Command] != nil && f.Role != "" {
			key = f.Process + "-" + f.Role + "-" + f.Version + f.Variant
		}
		h := byKey[key]
		if h == nil {
			h = &Host{Name: key, Replies: map[string]bson.Raw{}}
			byKey[key] = h
			keys = append(keys, key)
		}
		if _, dup := h.Replies[f.Command]; dup {
			return nil, bad(name, "a second %s reply of %s (one server's replies per folder and version)", f.Command, key)
		}
		h.Replies[f.Command] = raw
		h.Files = append(h.Files, name)
	}
	out := make([]Host, 0, len(keys))
	for _, k := range keys {
		out = append(out, *byKey[k])
	}
	return out, nil
}

// readBounded reads a file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read it: %v", errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read it: %v", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d MiB", limit>>20)
	}
	return data, nil
}

// loadFTDC reads an FTDC folder's newest sample (metrics.interim holds the
// samples not yet in an archive; else the newest archive's last chunk)
// and its newest metadata.
func loadFTDC(folder ftdc.Folder) (Host, error) {
	dir := folder.Dir
	archives := folder.Names
	interim := folder.Interim()
	if interim {
		archives = archives[:len(archives)-1]
	}
	h := Host{Name: "ftdc", Replies: map[string]bson.Raw{}}
	// One budget for the folder: memory follows the bytes of the chunks
	// decoded, not the samples they declare.
	budget := ftdc.NewBudget()
	var sample bson.Raw
	if interim {
		c, _, err := readFTDC(dir, ftdc.InterimFile, budget)
		if errors.Is(err, ftdc.ErrOverBudget) {
			h.Warnings = append(h.Warnings, leftOut(ftdc.InterimFile))
		} else if err != nil {
			return h, err
		}
		if c != nil {
			if sample, err = c.Last(); err != nil {
				return h, bad(ftdc.InterimFile, "%v", err)
			}
			h.SampledAt = lastTime(c)
			h.Files = append(h.Files, ftdc.InterimFile)
		}
	}
	// The newest archive gives the metadata, and the sample when the
	// interim file has none.
	for i := len(archives) - 1; i >= 0; i-- {
		c, meta, err := readFTDC(dir, archives[i], budget)
		if errors.Is(err, ftdc.ErrOverBudget) {
			h.Warnings = append(h.Warnings, leftOut(archives[i]))
		} else if err != nil {
			return h, err
		}
		if meta == nil && (sample != nil || c == nil) {
			continue
		}
		h.Files = append(h.Files, archives[i])
		if sample == nil && c != nil {
			if sample, err = c.Last(); err != nil {
				return h, bad(archives[i], "%v", err)
			}
			h.SampledAt = lastTime(c)
		}
		// getCmdLineOpts is the role's evidence when the samples hold
		// neither replSetGetStatus nor connPoolStats (telemetry.DecideRole).
		for _, cmd := range []string{"buildInfo", "hostInfo", "getCmdLineOpts"} {
			if v, err := meta.LookupErr(cmd); err == nil {
				if d, ok := v.DocumentOK(); ok {
					h.Replies[cmd] = d
				}
			}
		}
		if meta != nil {
			break
		}
	}
	if sample == nil {
		return h, bad("", "FTDC files without a metric sample")
	}
	for _, cmd := range []string{"serverStatus", "replSetGetStatus", "connPoolStats"} {
		if d := ftdc.Section(sample, cmd); d != nil {
			h.Replies[cmd] = d
		}
	}
	return h, nil
}

func lastTime(c *ftdc.Chunk) time.Time {
	if ts := c.Times(); len(ts) > 0 {
		return ts[len(ts)-1]
	}
	return time.Time{}
}

// readFTDC reads one FTDC file: its last chunk, decoded within the
// folder's budget b, and its first metadata document (either may be nil).
func readFTDC(dir, name string, b *ftdc.Budget) (*ftdc.Chunk, bson.Raw, error) {
	// Streamed: the reader bounds each document, and only the last chunk
	// is kept, so a file of any length costs one document's memory.
	// Opened as analyze --ftdc opens it: a regular file (not a FIFO or a
	// device swapped in after the listing), within the folder's bound.
	f, err := infile.Open(context.Background(), infile.In(dir, name), ftdc.MaxFolderBytes)
	if err != nil {
		return nil, nil, bad("", "%v", err)
	}
	defer f.Close()
	r := ftdc.NewReader(f)
	var last []byte
	var meta bson.Raw
	for {
		d, err := r.Next()
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) && last != nil {
			// A server killed mid-write leaves a cut last document:
			// what came before it stands.
			break
		}
		if err != nil {
			return nil, nil, bad(name, "not FTDC: %v", err)
		}
		switch d.Kind {
		case ftdc.Metadata:
			if meta == nil {
				meta = d.Doc
			}
		case ftdc.MetricChunk:
			last = d.Data
		}
	}
	if last == nil {
		return nil, meta, nil
	}
	c, err := b.DecodeChunk(last)
	switch {
	case errors.Is(err, ftdc.ErrOverBudget):
		return nil, meta, err
	case err != nil:
		return nil, nil, bad(name, "not FTDC: %v", err)
	}
	return c, meta, nil
}
