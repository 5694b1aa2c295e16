package corpus

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

	"github.com/poolsweep/poolsweep/internal/outfile"
)

// FTDCDir is the folder of real servers' FTDC captures, testdata/ftdc at
// the module's root (its README says where each comes from).
func FTDCDir() string { return testdata("ftdc") }

// FTDCFolder makes dir/diagnostic.data, a folder as a server leaves it,
// holding a copy of each named capture of FTDCDir under the name given
// for it (files maps that name to the capture's), and returns its path:
// the one fixture of the tests that read a server's FTDC folder.
func FTDCFolder(dir string, files map[string]string) (string, error) {
	folder := filepath.Join(dir, "diagnostic.data")
	if err := outfile.MakeDir(folder); err != nil {
		return "", err
	}
	for as, from := range files {
		data, err := os.ReadFile(filepath.Join(FTDCDir(), from))
		if err != nil {
			return "", err
		}
		if err := outfile.Write(filepath.Join(folder, as), func(w io.Writer) error {
			_, err := io.Copy(w, bytes.NewReader(data))
			return err
		}); err != nil {
			return "", err
		}
	}
	return folder, nil
}
