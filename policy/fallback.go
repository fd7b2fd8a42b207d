package policy

import (
	"context"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

// Fallback is a [provider.Searcher] that tries its providers in order and
// returns the first success.
//
// Guarantees:
//   - After a failure of any kind the next provider is started; when the
//     caller's context is canceled, or a provider reports kind canceled,
//     Fallback stops.
//   - Each attempt has its own deadline inside the overall budget (see
//     [SearchConfig.PerProvider]); Fallback never waits beyond it, even for a
//     provider that ignores its context, and reports the provider as timed
//     out.
//   - With [SearchConfig.Hedge] set, the next provider is also started when
//     the running ones have not answered within the delay; the first success
//     wins and the others are canceled.
//   - An answer with no results (after domain filtering) is a success, but by
//     default the next provider is tried and the empty answer is returned
//     only when none finds anything ([SearchConfig.AcceptEmpty] changes this).
//   - The winner's results are returned with the failures of the providers
//     that failed before it in Results.Failures; when every provider fails
//     the error is an [*AllFailedError].
//   - The caller's domain filters are passed on and enforced again with
//     [FilterDomains].
//   - The filters the winner did not apply (the entries of its answer's
//     Ignored, else its [provider.Ignorer] answer) come back in
//     Results.Ignored.
//
// A Fallback is safe for concurrent use.
type Fallback struct {
	searchers
}

var (
	_ provider.Searcher = (*Fallback)(nil)
	_ provider.Namer    = (*Fallback)(nil)
)

// NewFallback returns a [Fallback] over providers, tried in their order.
// cfg may be nil for the defaults; it is copied. It fails when providers is
// empty or holds nil.
func NewFallback(providers []provider.Searcher, cfg *SearchConfig) (*Fallback, error) {
	return newFallback("fallback", providers, cfg)
}

func newFallback(policy string, providers []provider.Searcher, cfg *SearchConfig) (*Fallback, error) {
	s, err := newSearchers(policy, providers, cfg)
	if err != nil {
		return nil, err
	}
	return &Fallback{s}, nil
}

// searchers is what a search policy holds: its providers in order, their
// names, its own name and its configuration.
type searchers struct {
	providers []provider.Searcher
	names     []string
	name      string
	cfg       SearchConfig
}

// newSearchers returns the searchers of the policy named policy over a
// copy of providers, with cfg's defaults filled in; it fails when
// providers is empty or holds nil.
func newSearchers(policy string, providers []provider.Searcher, cfg *SearchConfig) (searchers, error) {
	names, err := providerNames("search", providers)
	if err != nil {
		return searchers{}, err
	}
	return searchers{
		providers: append([]provider.Searcher(nil), providers...),
		names:     names,
		name:      label(policy, names),
		cfg:       cfg.withDefaults(),
	}, nil
}

// Name returns "fallback(" followed by the providers' names and ")", or
// "single(…)" for a [ModeSingle] policy.
func (f *Fallback) Name() string { return f.name }

// Search tries the providers in order; see [Fallback] for the guarantees.
func (f *Fallback) Search(ctx context.Context, q provider.Query) (out *provider.Results, err error) {
	start := time.Now()
	var attempts []Attempt
	defer f.cfg.Observer.observe(f.name, "search", start, &attempts, &err)
	if err := checkQuery(f.name, q); err != nil {
		return nil, err
	}
	limit := resultLimit(q, f.cfg.MaxResults, 0)
	seq := sequence[*provider.Results]{
		policy: f.name, op: "search", names: f.names,
		budget: f.cfg.Budget, per: f.cfg.PerProvider, hedge: f.cfg.Hedge,
		acceptEmpty: f.cfg.AcceptEmpty,
		try: func(ctx context.Context, i int) (*provider.Results, error) {
			return searchOnce(ctx, f.providers[i], f.names[i], q)
		},
		check: func(i int, res *provider.Results) (*provider.Results, int, error) {
			// Copy: the provider's answer may be shared with other callers.
			cp := *res
			cp.Results = FilterDomains(res.Results, q.IncludeDomains, q.ExcludeDomains)
			if limit > 0 && len(cp.Results) > limit {
				cp.Results = cp.Results[:limit:limit]
			}
			if cp.Provider == "" {
				cp.Provider = f.names[i]
			}
			if cp.Query == "" {
				cp.Query = q.Text
			}
			cp.Ignored = addIgnored(nil, f.providers[i], f.names[i], q, res)
			return &cp, len(cp.Results), nil
		},
	}
	order := make([]int, len(f.providers))
	for i := range order {
		order[i] = i
	}
	res, failures, attempts, err := seq.run(ctx, order)
	if err != nil {
		return nil, err
	}
	if len(failures) > 0 {
		res.Failures = append(append([]provider.Failure(nil), res.Failures...), failures...)
	}
	return res, nil
}
