package safefile

import "os"

// Open opens the regular file at path for reading, following symbolic
// links. A path that names anything else (a directory, FIFO, socket or
// device) fails with an error wrapping [ErrNotRegular] and, when it is seen
// before opening, is never opened. The open itself does not wait for a
// writer, so a FIFO put in the file's place between the check and the open
// cannot block the caller either. The caller bounds how much it reads.
func Open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "open", Path: path, Err: notRegular(fi)}
	}
	f, err := openNoWait(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = notRegular(fi)
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return f, nil
}
