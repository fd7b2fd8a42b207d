//go:build !unix

package routing

import (
	"errors"
	"os"
	"time"
)

// lockFile takes an exclusive lock on name by creating it exclusively,
// waiting up to two seconds; a lock older than ten seconds is taken over.
func lockFile(name string) (func(), error) {
	deadline := time.Now().Add(2 * time.Second)
	for {
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(name) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if info, serr := os.Stat(name); serr == nil && time.Since(info.ModTime()) > 10*time.Second {
			os.Remove(name)
			continue
		}
		if time.Now().After(deadline) {
			return nil, errors.New("timed out waiting for the state lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
