package ftdc

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"

	"github.com/poolsweep/poolsweep/internal/infile"
)

// Bounds on one folder. A server keeps 200 MB (250 MB from 5.0) of FTDC
// in files of 10 MB (diagnosticDataCollectionDirectorySizeMB,
// diagnosticDataCollectionFileSizeMB): a few dozen files.
const (
	MaxFolderFiles       = 512
	MaxFolderBytes int64 = 2 << 30
)

// InterimFile is the file of the samples a server has not yet archived:
// rewritten whole as each sample is taken, and left for the next start to
// archive when the server stops.
const InterimFile = "metrics.interim"

// archiveName is an archive as a server names it: metrics., the UTC time
// it was opened (2021-03-15T02-21-47Z) and a counter that keeps names
// opened within one second apart (-00000). The counter is optional so
// that an older server's names are read too.
var archiveName = regexp.MustCompile(`^metrics\.[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}Z(-[0-9]{5})?$`)

// IsMetricFile says whether name is a file a server writes its samples
// to: an archive (metrics.<time>-<counter>) or the interim file. Any other
// metrics.* name is not read: metrics.interim.temp is the server's
// half-written copy of the interim file (its samples are the interim's,
// so reading both counts them twice), and a renamed or compressed copy
// (metrics.bson, ….gz) is not what the server left.
func IsMetricFile(name string) bool {
	return name == InterimFile || archiveName.MatchString(name)
}

// Folder is a diagnostic.data folder's metric files.
type Folder struct {
	Dir string
	// Names are the metric files' names, oldest first: the archives in the
	// order of the times in their names, then the interim file.
	Names []string
	// Bytes is their size in all.
	Bytes int64
}

// Paths are the metric files' paths, in Names' order, inside the folder
// that was listed.
func (f Folder) Paths() []string {
	out := make([]string, len(f.Names))
	for i, n := range f.Names {
		out[i] = infile.In(f.Dir, n)
	}
	return out
}

// Interim says whether the folder holds the interim file.
func (f Folder) Interim() bool {
	return len(f.Names) > 0 && f.Names[len(f.Names)-1] == InterimFile
}

// ErrNoMetricFiles is the error of a folder without a metric file.
var ErrNoMetricFiles = errors.New("holds no FTDC metric files (metrics.<time>-<counter> or metrics.interim; give a diagnostic.data folder)")

// ListFolder lists dir's metric files (IsMetricFile: regular files
// only), within MaxFolderFiles and MaxFolderBytes: the one listing every
// reader of a server's FTDC folder uses, so that they read the same files
// under the same bounds. Its errors read after the folder's name and never
// quote a file's contents.
func ListFolder(dir string) (Folder, error) {
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return Folder{}, unwrapPath(err)
	case !st.IsDir():
		return Folder{}, errors.New("is not a folder (give a diagnostic.data folder)")
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return Folder{}, unwrapPath(err)
	}
	f := Folder{Dir: dir}
	for _, e := range ents {
		if !IsMetricFile(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return Folder{}, fmt.Errorf("%s: %w", e.Name(), unwrapPath(err))
		}
		f.Bytes += info.Size()
		f.Names = append(f.Names, e.Name())
	}
	switch {
	case len(f.Names) == 0:
		return Folder{}, ErrNoMetricFiles
	case len(f.Names) > MaxFolderFiles:
		return Folder{}, fmt.Errorf("holds %d FTDC metric files, more than the %d read", len(f.Names), MaxFolderFiles)
	case f.Bytes > MaxFolderBytes:
		return Folder{}, fmt.Errorf("holds %d MiB of FTDC metric files, more than the %d MiB read", f.Bytes>>20, MaxFolderBytes>>20)
	}
	// The archives' names sort by their times, and every archive's name
	// sorts before metrics.interim ('2' < 'i').
	slices.Sort(f.Names)
	return f, nil
}

// unwrapPath is err without the path os put in it: the caller names the
// folder.
func unwrapPath(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
