package policy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/internal/defaults"
	"github.com/webgate-dev/webgate/provider"
)

// Mode names a way of combining search providers.
type Mode string

// The search modes [NewSearch] accepts.
const (
	// ModeParallel queries every provider at once and merges the lists
	// ([Parallel]).
	ModeParallel Mode = "parallel"
	// ModeFallback tries the providers in order until one succeeds
	// ([Fallback]).
	ModeFallback Mode = "fallback"
	// ModeSingle uses the first provider only, with the same domain
	// enforcement, budget and tracing as [Fallback].
	ModeSingle Mode = "single"
)

// Modes lists every search mode, in a stable order.
var Modes = []Mode{ModeParallel, ModeFallback, ModeSingle}

// DefaultSearchMode is the search mode used when configuration names none.
const DefaultSearchMode = ModeParallel

// Defaults shared by the policies.
const (
	// DefaultBudget is the overall time limit of one search or extraction
	// when configuration sets none. A deadline on the caller's context
	// shortens it.
	DefaultBudget = 20 * time.Second
	// DefaultExtractBudget is the overall time limit of one extraction
	// when configuration sets none: a little less than a search's, so that
	// a page reader that probed the page first still answers within a
	// hook's budget.
	DefaultExtractBudget = 18 * time.Second
	// DefaultMaxResults is the length of a merged [Parallel] list when
	// neither the query nor configuration asks for another.
	DefaultMaxResults = 10
	// maxMargin bounds the time [Parallel] keeps in hand between its
	// providers' deadline and its own budget, to merge and answer.
	maxMargin = 250 * time.Millisecond
	// rrfK is the constant of reciprocal rank fusion: a result at rank r
	// (from 1) of a list scores 1/(rrfK + r).
	rrfK = 60
)

// ParseMode reads a mode name as configuration writes it, ignoring case and
// surrounding space. An empty name gives [DefaultSearchMode].
func ParseMode(s string) (Mode, error) {
	m := Mode(strings.ToLower(strings.TrimSpace(s)))
	if m == "" {
		return DefaultSearchMode, nil
	}
	for _, known := range Modes {
		if m == known {
			return m, nil
		}
	}
	return "", fmt.Errorf("policy: unknown search mode %q (want parallel, fallback or single)", s)
}

// SearchConfig configures the search policies. The zero value, and a nil
// *SearchConfig, mean the documented defaults. Constructors copy it and
// never modify the caller's value.
type SearchConfig struct {
	// Budget is the overall time limit of one search; 0 means
	// [DefaultBudget]. A deadline on the caller's context shortens it.
	Budget time.Duration `koanf:"budget"`
	// PerProvider is each provider's own deadline, counted from the start of
	// its attempt and never beyond the budget. For [Parallel], 0 means the
	// budget minus a small margin (a tenth of the budget, at most 250ms),
	// kept to merge and answer. For [Fallback], 0 means an even share of
	// the remaining budget among the providers not yet started, so that a
	// hung provider cannot use up the time of those after it.
	PerProvider time.Duration `koanf:"per_provider"`
	// MaxResults caps the number of results returned. The limit is the
	// query's MaxResults, lowered to this cap when it is set; [Parallel]
	// uses [DefaultMaxResults] when neither is set, [Fallback] then keeps
	// the provider's own count.
	MaxResults int `koanf:"max_results"`
	// Hedge, for [Fallback] only, starts the next provider when the
	// running ones have not answered within this delay, without canceling
	// them; the first success wins. 0 disables hedging.
	Hedge time.Duration `koanf:"hedge"`
	// AcceptEmpty, for [Fallback] only, makes an answer with no results
	// (after domain filtering) end the fallback. By default such an answer
	// is kept aside and the next provider is tried; the empty answer is
	// returned, as a success, only when no later provider finds anything.
	AcceptEmpty bool `koanf:"accept_empty"`
	// Observer, when set, is told how every search went; see [Observer].
	Observer Observer `koanf:"-"`
}

func (c *SearchConfig) withDefaults() SearchConfig {
	var out SearchConfig
	if c != nil {
		out = *c
	}
	out.Budget = defaults.Positive(out.Budget, DefaultBudget)
	if out.PerProvider < 0 {
		out.PerProvider = 0
	}
	if out.MaxResults < 0 {
		out.MaxResults = 0
	}
	if out.Hedge < 0 {
		out.Hedge = 0
	}
	return out
}

// NewSearch builds the search policy of the given mode over providers, in
// their order: a [*Parallel] for [ModeParallel], a [*Fallback] for
// [ModeFallback], and a [*Fallback] over the first provider alone for
// [ModeSingle]. An empty mode means [DefaultSearchMode]. It fails when
// providers is empty or holds nil, or the mode is unknown.
func NewSearch(mode Mode, providers []provider.Searcher, cfg *SearchConfig) (provider.Searcher, error) {
	if mode == "" {
		mode = DefaultSearchMode
	}
	switch mode {
	case ModeParallel:
		return NewParallel(providers, cfg)
	case ModeFallback:
		return NewFallback(providers, cfg)
	case ModeSingle:
		if len(providers) == 0 {
			return nil, errors.New("policy: single search needs a provider")
		}
		return newFallback("single", providers[:1], cfg)
	}
	return nil, fmt.Errorf("policy: unknown search mode %q (want parallel, fallback or single)", string(mode))
}

// providerNames returns the names of ps for provenance, making repeated
// names unique ("unnamed", "unnamed#2"). It fails on a nil provider.
func providerNames[T any](kind string, ps []T) ([]string, error) {
	if len(ps) == 0 {
		return nil, fmt.Errorf("policy: no %s providers given", kind)
	}
	names := make([]string, len(ps))
	count := make(map[string]int, len(ps))
	for i, p := range ps {
		if any(p) == nil {
			return nil, fmt.Errorf("policy: %s provider %d is nil", kind, i)
		}
		n := provider.NameOf(p)
		count[n]++
		if count[n] > 1 {
			n = fmt.Sprintf("%s#%d", n, count[n])
		}
		names[i] = n
	}
	return names, nil
}

// label renders a policy name such as "parallel(tavily,exa)".
func label(policy string, names []string) string {
	return policy + "(" + strings.Join(names, ",") + ")"
}

// searchOnce calls s, turning a panic into an error and a nil answer into
// empty results.
func searchOnce(ctx context.Context, s provider.Searcher, name string, q provider.Query) (res *provider.Results, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, panicError(name, "search")
		}
	}()
	res, err = s.Search(ctx, q)
	if err == nil && res == nil {
		res = &provider.Results{Query: q.Text}
	}
	return res, err
}

// checkQuery rejects a query no provider could answer.
func checkQuery(policy string, q provider.Query) error {
	if strings.TrimSpace(q.Text) == "" {
		return &provider.Error{Provider: policy, Op: "search", Kind: provider.KindBadRequest, Message: "empty query text"}
	}
	return nil
}

// resultLimit returns the number of results to keep: the query's
// MaxResults, lowered to the configured cap, else def (0: no limit).
func resultLimit(q provider.Query, capN, def int) int {
	n := q.MaxResults
	if n <= 0 {
		n = def
	}
	if capN > 0 && (n <= 0 || capN < n) {
		n = capN
	}
	return n
}
