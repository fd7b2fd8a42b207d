package safefile

import "os"

// Open opens the regular file at path for reading, following symbolic
// links. A path that names anything else (a directory, FIFO, socket or
// device) fails with an error wrapping [ErrNotRegular] and, when it is seen
// before opening, is never opened. The open itself does not wait for a
// writer, so a FIFO put in the file's place between the check and the open
// cannot block the caller either. The caller bounds how much it reads.
func Open(path string) (*os.File, error) {
	f, _, err := openRegular(path, "open")
	return f, err
}

// openRegular opens the regular file at path as [Open] says, and returns
// it with what it is; op names the operation in the *os.PathError of a path
// that is not a regular file.
func openRegular(path, op string) (*os.File, os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &os.PathError{Op: op, Path: path, Err: notRegular(fi)}
	}
	// The path may have been replaced between Stat and the open: open
	// without waiting (a FIFO then opens at once) and check again.
	f, err := openNoWait(path, os.O_RDONLY)
	if err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = notRegular(fi)
		}
		return nil, nil, &os.PathError{Op: op, Path: path, Err: err}
	}
	return f, fi, nil
}
