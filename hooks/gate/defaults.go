package gate

import (
	"time"

	"github.com/webgate-dev/webgate/hooks/worker"
)

// Defaults of the hook settings. The configuration (package config) and the
// hook handlers (package hooks) read them from here.
const (
	// DefaultSearchBudget bounds the whole web search hook, network calls
	// included; past it the hook steps aside.
	DefaultSearchBudget = 25 * time.Second
	// DefaultFetchBudget bounds the whole web fetch hook: probe plus
	// extraction.
	DefaultFetchBudget = 25 * time.Second
	// DefaultMaxReasonChars caps a deny reason or added context. It stays
	// below the 10,000 characters past which Claude Code saves hook output
	// to a file instead of passing it on.
	DefaultMaxReasonChars = 8000
	// DefaultAnswer is how native web tools are answered in Claude Code:
	// denied with webgate's answer as the reason, which works wherever
	// the native tool fails.
	DefaultAnswer = "deny"
	// DefaultWorker is whether a warm worker answers hook calls ("warm")
	// or every call runs the worker anew ("off").
	DefaultWorker = "warm"
	// DefaultWorkerIdle is how long a warm worker waits for a call before
	// it exits.
	DefaultWorkerIdle = worker.DefaultIdle
)

// DefaultBudget returns the default budget of hook, [WebSearch] or
// [WebFetch].
func DefaultBudget(hook string) time.Duration {
	if hook == WebFetch {
		return DefaultFetchBudget
	}
	return DefaultSearchBudget
}
