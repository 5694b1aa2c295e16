package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// ErrDotDot: a ".." in the path would not lead where its text says. The
// kernel follows "a/.." from wherever a led, so after a symlink it climbs
// out of the symlink's target, and after a missing directory or a file it
// fails; filepath.Clean drops both as if a were never there.
var ErrDotDot = errors.New(`a ".." that the system resolves elsewhere`)

// dotStep is one ".." of a path that takes back a component: the path up
// to that component's parent (parent, "" for the current directory when
// relative) and the component itself (name). Leading ".." of a relative
// path, and ".." at the root, take nothing back.
type dotStep struct {
	parent, name string
}

// dotSteps walks path's components as filepath.Clean does and returns
// every ".." that takes back a component, and the cleaned path. Pure: the
// file system is asked nothing (resolved asks it).
func dotSteps(path string) (steps []dotStep, clean string) {
	sep := string(filepath.Separator)
	abs := strings.HasPrefix(path, sep)
	var stack []string
	join := func(cs []string) string {
		s := strings.Join(cs, sep)
		if abs {
			return sep + s
		}
		return s
	}
	for _, c := range strings.Split(path, sep) {
		switch {
		case c == "" || c == ".":
		case c == ".." && len(stack) > 0 && stack[len(stack)-1] != "..":
			steps = append(steps, dotStep{parent: join(stack[:len(stack)-1]), name: stack[len(stack)-1]})
			stack = stack[:len(stack)-1]
		case c == ".." && abs:
			// "/.." is "/".
		default:
			stack = append(stack, c)
		}
	}
	clean = join(stack)
	if clean == "" {
		clean = "."
	}
	return steps, clean
}

// resolved says whether the system resolves path to the same place as its
// cleaned form, and returns that form: every ".." in it must take back a
// directory that exists and whose ".." is the directory its text says (a
// real directory, not a symlink to one elsewhere). The check asks the
// kernel itself: it stats "parent/name/.." and "parent" and wants one
// directory. Every command checks its output paths through this, so that
// what was checked is what is written, and the writing functions use the
// cleaned form afterwards. The error names path as given.
func resolved(path string) (string, error) {
	steps, clean := dotSteps(path)
	for _, s := range steps {
		sep := string(filepath.Separator)
		through := s.name
		if s.parent != "" {
			through = strings.TrimSuffix(s.parent, sep) + sep + s.name
		}
		parent := s.parent
		if parent == "" {
			parent = "."
		}
		up, err := os.Stat(through + sep + "..")
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", dotError(fmt.Sprintf(`%s: %v: %s (the ".." after it cannot be followed)`, path, ErrNoDir, through), ErrNoDir)
		case errors.Is(err, syscall.ENOTDIR):
			kind := "not a directory"
			if fi, err := os.Stat(through); err == nil {
				kind = textfmt.FileKind(fi.Mode()) + ", not a directory"
			}
			return "", dotError(fmt.Sprintf(`%s: %s is %s (the ".." after it cannot be followed)`, path, through, kind), ErrNotDir)
		case err != nil:
			return "", fmt.Errorf("%s: %w", path, textfmt.IOError(err))
		}
		want, err := os.Stat(parent)
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, textfmt.IOError(err))
		}
		if os.SameFile(up, want) {
			continue
		}
		if li, err := os.Lstat(through); err == nil && li.Mode()&fs.ModeSymlink != 0 {
			to, _ := os.Readlink(through)
			return "", dotError(fmt.Sprintf(`%s: %s is a symlink to %s: the ".." after it leads to the parent of that, not back to the directory %s is in; name the path without it`,
				path, through, to, s.name), ErrSymlink)
		}
		return "", dotError(fmt.Sprintf(`%s: the ".." after %s does not lead back to %s`, path, through, parent))
	}
	// "f/" and "f/." name a directory: the system refuses them when f is
	// a file, where the cleaned "f" would be the file itself.
	if dirForm(path) {
		if fi, err := os.Stat(clean); err == nil && !fi.IsDir() {
			if li, err := os.Lstat(clean); err == nil && li.Mode()&fs.ModeSymlink != 0 {
				return "", &pathError{msg: symlinkError(path).Error(), errs: []error{ErrSymlink, ErrNotDir}}
			}
			return "", &pathError{msg: fmt.Sprintf("%s: %s is %s, %v", path, clean, textfmt.FileKind(fi.Mode()), ErrNotDir), errs: []error{ErrNotDir}}
		}
	}
	return clean, nil
}

// dirForm says whether path ends as a directory's name does: in a
// separator or a "." component.
func dirForm(path string) bool {
	sep := string(filepath.Separator)
	return strings.HasSuffix(path, sep) || path == "." || strings.HasSuffix(path, sep+".")
}

// pathError is a refused path's one line, which errors.Is finds as
// ErrDotDot and as what else it wraps (ErrNoDir, ErrNotDir, ErrSymlink).
type pathError struct {
	msg  string
	errs []error
}

func (e *pathError) Error() string   { return e.msg }
func (e *pathError) Unwrap() []error { return e.errs }

// dotError is a refusal of a "..": msg, wrapping ErrDotDot and also.
func dotError(msg string, also ...error) error {
	return &pathError{msg: msg, errs: append([]error{ErrDotDot}, also...)}
}
