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

// BudgetEnv returns the environment variable that sets hook's budget
// (hooks.websearch.budget or hooks.webfetch.budget).
func BudgetEnv(hook string) string {
	if hook == WebFetch {
		return "WEBGATE_HOOKS_WEBFETCH_BUDGET"
	}
	return "WEBGATE_HOOKS_WEBSEARCH_BUDGET"
}

// HookBudget returns hook's budget as the front knows it before any
// configuration is loaded: the environment's ([BudgetEnv], which the
// configuration lets win over the file), else fileBudget (the shortest
// one the configuration file may set, 0 for none), else the default
// ([DefaultBudget]). The worker loads the configuration and steps aside
// at the budget it sets; the front uses this one to bound what it does
// before (the wait for stdin).
func HookBudget(hook string, env Env, fileBudget time.Duration) time.Duration {
	if v, ok := env(BudgetEnv(hook)); ok {
		if d, ok := scanDuration(v); ok && d > 0 {
			return d
		}
	}
	if fileBudget > 0 {
		return fileBudget
	}
	return DefaultBudget(hook)
}
