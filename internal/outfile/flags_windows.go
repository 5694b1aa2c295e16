package outfile

// Windows has no O_NOFOLLOW or O_NONBLOCK for os.OpenFile. The checks
// before each open (Check, resolved: Lstat of the path and its parents)
// refuse a symlink found there, OpenExisting compares the
// opened file with the checked one, and a file opened is kept only if it
// is a regular file; a symlink put in the path's place between the check
// and the open of a new file is followed there, as it is not on Unix.
const (
	noFollow = 0
	nonBlock = 0
)
