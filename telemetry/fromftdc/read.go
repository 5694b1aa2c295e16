// Package fromftdc gives the steps of a run the server numbers a
// deployment's own diagnostic data holds (FTDC: diagnostic.data/metrics.*,
// one folder per host), for runs whose sampler could not run serverStatus
// or did not run (--no-telemetry). Each host's samples inside a step's
// window are summarised by telemetry.WindowOf, the sampler's own code, so
// the bound rules judge them as they judge the sampler's. A host whose
// capture does not cover a window says why (cover.go).
//
// Reading is bounded: a folder's files are those ftdc.ListFolder selects
// (the archives and the interim file, as a server names them), at most
// ftdc.MaxFolderFiles files and ftdc.MaxFolderBytes bytes, each FTDC document and chunk within the ftdc reader's limits,
// every chunk of a folder paid from one ftdc.Budget (memory follows the
// bytes read, not the samples a chunk declares; a chunk past it is left
// out with a warning), and only the samples inside some window are
// rebuilt and kept.
package fromftdc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/ftdc"
	"github.com/poolsweep/poolsweep/internal/infile"
	"github.com/poolsweep/poolsweep/telemetry"
)

// MaxWarnings is how many left-out chunks a capture names; the rest are
// counted.
const MaxWarnings = 10

// Window is a step's measured window, on the load host's clock.
type Window struct{ Start, End time.Time }

// point is one sample of a capture: when it was taken, the server's
// uptime then (-1: not reported) and, when it falls in some window, what
// the sampler's parser reads of it.
type point struct {
	at       time.Time
	uptimeMS int64
	kept     *telemetry.Sample
}

// Capture is one folder's FTDC: one host's samples, oldest first.
type Capture struct {
	Folder string
	// Host is the server's own name for itself (serverStatus.host), as
	// its samples give it; Version is serverStatus.version.
	Host, Version string
	// Role is what the host was (telemetry.DecideRole, role.go) and
	// RoleEvidence why that is known; Role is "role unknown" when the
	// capture does not say.
	Role, RoleEvidence string
	// First and Last are the oldest and newest sample's times; Samples
	// counts them; Files the metric files read (ftdc.ListFolder).
	First, Last time.Time
	Samples     int
	Files       int
	// Truncated counts files that end inside a document (a server killed
	// while writing leaves one): what precedes the cut is used.
	Truncated int
	// LeftOut counts the metric chunks left out for declaring more than
	// the folder's bytes pay for (ftdc.Budget); Warnings say which, each
	// naming its file and document (the first MaxWarnings of them).
	LeftOut  int
	Warnings []string

	hostInfo, cmdLineOpts bson.Raw
	role                  telemetry.HostRole
	// newest is the last chunk read (in file order: the interim file's
	// last, else the newest archive's), whose last sample is the role's
	// evidence.
	newest *ftdc.Chunk
	points []point
	budget *ftdc.Budget
}

// ReadFolders reads every folder's metric files, keeping the samples
// that fall within tolerance of some window. Every error names the folder
// or the file, never what the file holds.
func ReadFolders(ctx context.Context, folders []string, windows []Window) ([]*Capture, error) {
	out := make([]*Capture, 0, len(folders))
	byHost := map[string]string{}
	for _, dir := range folders {
		c, err := ReadFolder(ctx, dir, windows)
		if err != nil {
			return nil, err
		}
		if prev, ok := byHost[c.Host]; ok {
			return nil, fmt.Errorf("%s and %s hold the FTDC of the same host", prev, dir)
		}
		byHost[c.Host] = dir
		out = append(out, c)
	}
	return out, nil
}

// ReadFolder reads one host's diagnostic.data folder.
func ReadFolder(ctx context.Context, dir string, windows []Window) (*Capture, error) {
	folder, err := ftdc.ListFolder(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	files := folder.Paths()
	c := &Capture{Folder: dir, budget: ftdc.NewBudget()}
	want := wanted(windows)
	left := ftdc.MaxFolderBytes
	for _, f := range files {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		n, err := c.readFile(ctx, f, left, want)
		if err != nil {
			return nil, err
		}
		left -= n
		c.Files++
	}
	if len(c.points) == 0 {
		return nil, fmt.Errorf("%s: no FTDC samples in its metric files", dir)
	}
	// A folder's files are in time order by name; a sample out of order
	// (a clock stepped back) is placed by its time.
	sort.SliceStable(c.points, func(i, j int) bool { return c.points[i].at.Before(c.points[j].at) })
	c.First, c.Last, c.Samples = c.points[0].at, c.points[len(c.points)-1].at, len(c.points)
	var newest bson.Raw
	if c.newest != nil {
		newest, _ = c.newest.Last()
	}
	c.decideRole(newest)
	c.newest = nil
	return c, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readFile reads one metrics file, at most limit bytes; it returns the
// bytes read.
func (c *Capture) readFile(ctx context.Context, path string, limit int64, want func(time.Time) bool) (int64, error) {
	f, err := infile.Open(ctx, path, limit)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cr := &countingReader{r: f}
	r := ftdc.NewReader(cr)
	for n := 0; ; n++ {
		d, err := r.Next()
		switch {
		case errors.Is(err, io.EOF):
			return cr.n, nil
		case errors.Is(err, io.ErrUnexpectedEOF):
			c.Truncated++
			return cr.n, nil
		case ctx.Err() != nil:
			return cr.n, ctx.Err()
		case errors.Is(err, ftdc.ErrCorrupt):
			return cr.n, fmt.Errorf("%s: document %d is not valid FTDC", path, n+1)
		case err != nil:
			return cr.n, fmt.Errorf("%s: %w", path, err)
		}
		switch d.Kind {
		case ftdc.Metadata:
			if v, err := d.Doc.LookupErr("hostInfo"); err == nil {
				c.hostInfo, _ = v.DocumentOK()
			}
			if v, err := d.Doc.LookupErr("getCmdLineOpts"); err == nil {
				c.cmdLineOpts, _ = v.DocumentOK()
			}
		case ftdc.MetricChunk:
			err := c.addChunk(d.Data, want)
			switch {
			case errors.Is(err, ftdc.ErrOverBudget):
				if c.LeftOut++; len(c.Warnings) < MaxWarnings {
					c.Warnings = append(c.Warnings, fmt.Sprintf("%s: document %d: a metric chunk declaring more samples and metrics than the folder's bytes pay for, left out", path, n+1))
				}
			case err != nil:
				return cr.n, fmt.Errorf("%s: document %d: %w", path, n+1, err)
			}
		}
	}
}

// addChunk decodes a metric chunk and adds its samples.
func (c *Capture) addChunk(data []byte, want func(time.Time) bool) error {
	ch, err := c.budget.DecodeChunk(data)
	switch {
	case errors.Is(err, ftdc.ErrOverBudget):
		return err
	case err != nil:
		return errors.New("not a valid FTDC metric chunk")
	}
	times := ch.Times()
	if len(times) != ch.Samples {
		return errors.New("a metric chunk without sample times")
	}
	ref := ch.Reference
	ss := ftdc.Section(ref, "serverStatus")
	host, _ := ss.Lookup("host").StringValueOK()
	version, _ := ss.Lookup("version").StringValueOK()
	if host == "" {
		return errors.New("a metric chunk without serverStatus.host")
	}
	if c.Host != "" && host != c.Host {
		return errors.New("the folder holds the FTDC of more than one host (one folder per host)")
	}
	c.Host, c.Version = host, version
	c.newest = ch
	var uptime []int64
	for _, m := range ch.Metrics {
		if n := len(m.Path); n >= 2 && n <= 3 && m.Path[n-2] == "serverStatus" && m.Path[n-1] == "uptimeMillis" {
			uptime = m.Values
			break
		}
	}
	for i, at := range times {
		p := point{at: at, uptimeMS: -1}
		if uptime != nil {
			p.uptimeMS = uptime[i]
		}
		if want(at) {
			doc, err := ch.Sample(i)
			if err != nil {
				return errors.New("a sample that cannot be rebuilt")
			}
			ss := ftdc.Section(doc, "serverStatus")
			if ss == nil {
				return errors.New("a sample without serverStatus")
			}
			k := telemetry.ParseSample(telemetry.StatusReply{At: at, ServerStatus: ss,
				ConnPoolStats: ftdc.Section(doc, "connPoolStats"), ReplSetGetStatus: ftdc.Section(doc, "replSetGetStatus")})
			p.kept = &k
		}
		c.points = append(c.points, p)
	}
	return nil
}

// wanted says whether a sample taken at t may be used for some window:
// within EdgeTolerance of one.
func wanted(windows []Window) func(time.Time) bool {
	ws := slices.Clone(windows)
	return func(t time.Time) bool {
		for _, w := range ws {
			if !t.Before(w.Start.Add(-EdgeTolerance)) && !t.After(w.End.Add(EdgeTolerance)) {
				return true
			}
		}
		return false
	}
}
