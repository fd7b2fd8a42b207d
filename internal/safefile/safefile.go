// Package safefile reads the small files webgate's configuration points
// at (the configuration file, key files, docs and routes files) without
// trusting what the path names. A path can name a FIFO, a device such as
// /dev/zero, or a symlink to one: a plain os.ReadFile then blocks forever
// or reads until memory runs out. [ReadFile] refuses anything that is not
// a regular file and caps the size.
//
// It imports only the standard library, so the hooks' small front binaries
// can use it too.
package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxBytes is the size cap of [ReadFile] when max ≤ 0: 4 MiB, far more
// than any configuration, key or routes file needs.
const MaxBytes = 4 << 20

// ErrNotRegular is wrapped by [ReadFile]'s error for a path that names a
// directory, FIFO, socket or device (symlinks are followed first).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by [ReadFile]'s error for a file larger than the
// cap.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads the regular file at path, at most max bytes (max ≤ 0
// means [MaxBytes]). A path that does not name a regular file fails with
// an error wrapping [ErrNotRegular] without being opened, so a FIFO cannot
// block the caller; a longer file fails with an error wrapping
// [ErrTooLarge]. Errors from the file system are returned as *os.PathError,
// as os.ReadFile returns them. No error quotes the file's content.
func ReadFile(path string, max int64) ([]byte, error) {
	if max <= 0 {
		max = MaxBytes
	}
	f, fi, err := openRegular(path, "read")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadOpened(f, path, fi.Size(), max)
}

// ReadOpened reads f, a regular file opened at path whose size was size
// when it was checked, at most max bytes, into a buffer of that size (a
// file of some 200 KB is not copied over and over by a growing buffer).
// More than max bytes is an error wrapping [ErrTooLarge].
func ReadOpened(f *os.File, path string, size, max int64) ([]byte, error) {
	if size > max {
		size = max
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > max {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)}
	}
	return buf.Bytes(), nil
}

func notRegular(fi os.FileInfo) error { return NotRegular(fi.Mode()) }

// NotRegular returns the error, wrapping [ErrNotRegular], for a file of
// mode m that is not a regular file: it names what the file is instead ("not
// a regular file: it is a symbolic link"). Callers put the path around it
// (an [os.PathError]).
func NotRegular(m fs.FileMode) error {
	kind := "a special file"
	switch {
	case m&fs.ModeSymlink != 0:
		kind = "a symbolic link"
	case m.IsDir():
		kind = "a directory"
	case m&os.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&os.ModeSocket != 0:
		kind = "a socket"
	case m&os.ModeDevice != 0 || m&os.ModeCharDevice != 0:
		kind = "a device"
	}
	return fmt.Errorf("%w: it is %s", ErrNotRegular, kind)
}
