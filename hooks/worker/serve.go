package worker

import "time"

// ServeOptions configure [Serve].
type ServeOptions struct {
	// Files are the warm worker's files, and Key the key every request
	// must carry, both as [SocketFor] gives them.
	Files Files
	Key   string
	// Handler answers the calls.
	Handler Handler
	// Idle is how long to wait for a call before exiting; 0 means
	// [DefaultIdle].
	Idle time.Duration
	// Executable is the worker binary; Serve exits when it changes (a new
	// build has a new socket). Empty means no such check.
	Executable string
	// Drain bounds the wait for the calls under way when the warm worker
	// exits: the longest a call may take. 0 means [DefaultDrain].
	Drain time.Duration
}

// DefaultDrain is how long a warm worker waits for the calls under way
// when it exits, unless [ServeOptions].Drain says otherwise: the hooks'
// default budget (25 s) and a margin.
const DefaultDrain = 30 * time.Second

// MaxWorkers is how many warm workers may run for one user at once (one
// per working directory, worker binary and process environment).
const MaxWorkers = 8
