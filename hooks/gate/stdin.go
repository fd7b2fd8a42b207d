package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// How long a hook waits for its standard input, see [ReadPayload]. The
// runtimes write the payload and close stdin at once, so these matter only
// when something holds stdin open (a terminal, a wrapper script).
const (
	// StdinWait is the longest a hook waits for stdin to close.
	StdinWait = 10 * time.Second
	// StdinQuiet is how long stdin must stay silent after a complete JSON
	// object before the hook goes on without waiting for it to close.
	StdinQuiet = 500 * time.Millisecond
)

// StdinWaitWithin returns how long a hook that started at start and has
// budget to answer may still wait for its stdin: what is left of the
// budget, never more than [StdinWait], never less than 0. A hook that
// waited longer would step aside past its budget, and a runtime whose hook
// timeout matches the budget would kill it first.
func StdinWaitWithin(start time.Time, budget time.Duration) time.Duration {
	if budget <= 0 {
		return StdinWait
	}
	return max(min(StdinWait, time.Until(start.Add(budget))), 0)
}

// drainLimit bounds how much of an oversized stdin is read and discarded,
// so the writer on the other end of the pipe does not see a broken pipe.
const drainLimit = 64 << 20

// ErrPayloadTooLarge is returned by [ReadPayload] when the input holds more
// than the cap.
var ErrPayloadTooLarge = errors.New("hook input too large")

// ErrStdinOpen is returned by [ReadPayload] when stdin stays open past the
// wait without a complete JSON object on it.
var ErrStdinOpen = errors.New("stdin was not closed")

type chunk struct {
	b   []byte
	err error
}

// ReadPayload reads one hook payload from r: everything up to EOF, at most
// max bytes. It does not wait forever for EOF: once a complete JSON object
// has arrived and nothing more comes for quiet, or when wait has passed, it
// returns what it has, or an error wrapping [ErrStdinOpen] when that is not
// a complete JSON object. Input longer than max is read and discarded (up
// to 64 MiB more, within wait) and reported with an error wrapping
// [ErrPayloadTooLarge]. A read still blocked on r when ReadPayload returns
// is left behind; a hook process exits soon after.
func ReadPayload(r io.Reader, max int64, wait, quiet time.Duration) ([]byte, error) {
	ch := make(chan chunk)
	done := make(chan struct{})
	defer close(done)
	go func() {
		buf := make([]byte, 64<<10)
		var total int64
		for {
			n, err := r.Read(buf)
			total += int64(n)
			if err == nil && total > max+drainLimit {
				err = io.EOF
			}
			c := chunk{err: err}
			if n > 0 {
				c.b = append([]byte(nil), buf[:n]...)
			}
			if n > 0 || err != nil {
				select {
				case ch <- c:
				case <-done:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	var (
		data     []byte
		tooLarge bool
		silence  *time.Timer
		silenceC <-chan time.Time
	)
	defer func() {
		if silence != nil {
			silence.Stop()
		}
	}()
	for {
		select {
		case c := <-ch:
			if !tooLarge {
				data = append(data, c.b...)
				if int64(len(data)) > max {
					tooLarge, data = true, nil
				}
			}
			if c.err != nil {
				switch {
				case tooLarge:
					return nil, fmt.Errorf("%w: more than %d bytes", ErrPayloadTooLarge, max)
				case errors.Is(c.err, io.EOF):
					return data, nil
				}
				return nil, fmt.Errorf("reading hook input: %w", c.err)
			}
			if silence != nil {
				silence.Stop()
				silenceC = nil
			}
			if quiet > 0 && !tooLarge && completeObject(data) {
				silence = time.NewTimer(quiet)
				silenceC = silence.C
			}
		case <-silenceC:
			return data, nil
		case <-deadline.C:
			switch {
			case tooLarge:
				return nil, fmt.Errorf("%w: more than %d bytes", ErrPayloadTooLarge, max)
			case completeObject(data):
				return data, nil
			}
			return nil, fmt.Errorf("%w within %v and holds no complete JSON object (a hook reads one payload on stdin)", ErrStdinOpen, wait.Round(time.Millisecond))
		}
	}
}

// completeObject reports whether data is one whole JSON object.
func completeObject(data []byte) bool {
	t := bytes.TrimSpace(data)
	return len(t) > 1 && t[0] == '{' && t[len(t)-1] == '}' && json.Valid(t)
}
