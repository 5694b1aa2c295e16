package infile

import (
	"path/filepath"
	"strings"
)

// In is the path of name inside dir as the system resolves it: dir's text
// kept as the user gave it. filepath.Join would clean it, and a ".." in it
// that the system follows elsewhere ("lnk/..", with lnk a symlink, is the
// parent of lnk's target) would then name a file beside the one listed or
// checked through dir.
func In(dir, name string) string {
	sep := string(filepath.Separator)
	if strings.HasSuffix(dir, sep) {
		return dir + name
	}
	return dir + sep + name
}
