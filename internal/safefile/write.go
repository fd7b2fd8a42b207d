package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// MaxLinks is how many symbolic links [ResolveLinks] follows before it
// gives up on a path as a loop.
const MaxLinks = 40

// ErrTooManyLinks is wrapped by [ResolveLinks]' error for a path whose
// chain of symbolic links is longer than [MaxLinks], as a loop is.
var ErrTooManyLinks = errors.New("too many levels of symbolic links")

// ErrOwner is wrapped by [WriteFile]'s error for a file owned by another
// user that this process may not give back to its owner once rewritten; the
// file is left as it was.
var ErrOwner = errors.New("the file's owner cannot be kept")

// ResolveLinks returns the path that path finally names when every symbolic
// link of its last element is followed: a link's relative target is taken
// from the directory that really holds the link (its own links followed),
// as the system does, not from the path as spelled. A path that is not a
// link is returned as it is. The chain may end at a file that does not
// exist (a dangling link): that missing path is returned, so that writing
// creates the file the link points at.
func ResolveLinks(path string) (string, error) {
	p := path
	for n := 0; ; n++ {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		if n == MaxLinks {
			return "", &os.PathError{Op: "resolve", Path: path, Err: fmt.Errorf("%w (more than %d)", ErrTooManyLinks, MaxLinks)}
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dir, err := filepath.EvalSymlinks(filepath.Dir(p))
			if err != nil {
				return "", err
			}
			dest = filepath.Join(dir, dest)
		}
		p = dest
	}
}

// WriteFile replaces the content of the file that path names with data.
//
// Symbolic links are written through: the file changed is the one
// [ResolveLinks] finds, and the links stay links. An existing file keeps
// its permission bits, owner and group; perm is the mode of a new one. A
// file owned by another user that this process may not give back (only
// root may) fails with an error wrapping [ErrOwner] and is left as it was. A path that names
// something other than a regular file (a FIFO, device, socket or
// directory) fails with an error wrapping [ErrNotRegular] and is never
// opened for writing.
//
// The new content is written to a temporary file beside the target, synced
// and renamed over it, so that a reader sees either the old or the new
// content. A target with more than one hard link is instead rewritten in
// place, so that every name of it sees the change; an error part way
// through can then leave it truncated, and callers that care keep a copy
// first.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	target, err := ResolveLinks(path)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(target)
	var old os.FileInfo
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return &os.PathError{Op: "write", Path: target, Err: notRegular(fi)}
	default:
		perm = fi.Mode().Perm()
		if linkCount(fi) > 1 {
			return writeInPlace(target, data)
		}
		old = fi
	}
	return replace(target, data, perm, true, old)
}

// Replace replaces the file at path with a new one holding data, of mode
// perm: a temporary file beside it, named ".tmp-" + its name + a random
// suffix, created exclusively (never through a link), then renamed over
// path. Whatever path names (a link included) is itself replaced, never a
// link's target, and a reader sees the old file or the new one, whole.
// Unlike [WriteFile] it does not sync: it is for state that webgate owns
// and can lose, not for a person's files.
func Replace(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, false, nil)
}

// replace writes data to a temporary file beside path and renames it over
// path, syncing it first when durable. With old, the file replaced, the new
// one gets old's owner and group (see [keepOwner]).
func replace(path string, data []byte, perm os.FileMode, durable bool, old os.FileInfo) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if old != nil {
		err = keepOwner(tmp, old)
		if err != nil {
			err = &os.PathError{Op: "write", Path: path, Err: err}
		}
	}
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil && durable {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// writeInPlace truncates the regular file at path and writes data into it.
func writeInPlace(path string, data []byte) error {
	f, err := openNoWait(path, os.O_WRONLY)
	if err != nil {
		return err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = notRegular(fi)
		}
		return &os.PathError{Op: "write", Path: path, Err: err}
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
