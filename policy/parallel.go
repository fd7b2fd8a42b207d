package policy

import (
	"context"
	"errors"
	"sort"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/webgate-dev/webgate/provider"
)

// Parallel is a [provider.Searcher] that queries every provider at once and
// returns one merged list, ranked by reciprocal rank fusion.
//
// Guarantees:
//   - Every provider gets the query, with its domain filters, and its own
//     deadline inside the overall budget (see [SearchConfig.PerProvider]).
//     At that deadline Search returns what is ready; a provider that has not
//     answered is reported in Results.Failures with TimedOut set and kind
//     transient, even if it ignores its context.
//   - Results are deduplicated by [NormalizeURL]; each keeps the original
//     URL and title of its best-ranked occurrence, the longest snippet and
//     content, the fused score in Score and every provider that returned it
//     in Providers.
//   - The caller's domain filters are enforced again with [FilterDomains],
//     so a provider that ignores them cannot leak results.
//   - The filters each answering provider did not apply (the entries of
//     its answer's Ignored, else its [provider.Ignorer] answer) come back
//     in Results.Ignored.
//   - Failures of some providers come back in Results.Failures; only when
//     every provider fails is the answer an [*AllFailedError].
//   - When the caller's context is canceled, Search returns at once with an
//     error of kind canceled.
//
// A Parallel is safe for concurrent use.
type Parallel struct {
	searchers
}

var (
	_ provider.Searcher = (*Parallel)(nil)
	_ provider.Namer    = (*Parallel)(nil)
)

// NewParallel returns a [Parallel] over providers. Their order decides ties
// in the merged ranking. cfg may be nil for the defaults; it is copied. It
// fails when providers is empty or holds nil.
func NewParallel(providers []provider.Searcher, cfg *SearchConfig) (*Parallel, error) {
	s, err := newSearchers("parallel", providers, cfg)
	if err != nil {
		return nil, err
	}
	return &Parallel{s}, nil
}

// Name returns "parallel(" followed by the providers' names and ")".
func (p *Parallel) Name() string { return p.name }

// margin is the time Parallel keeps between its providers' deadline and its
// budget: a tenth of the budget, at most maxMargin.
func margin(budget time.Duration) time.Duration {
	return min(budget/10, maxMargin)
}

// parallelSlot holds one provider's answer. Its fields are written by the
// provider's goroutine before done is closed, and read only after.
type parallelSlot struct {
	done    chan struct{}
	res     *provider.Results
	err     error
	end     time.Time
	elapsed time.Duration
}

// Search queries every provider at once and merges their lists; see
// [Parallel] for the guarantees.
func (p *Parallel) Search(ctx context.Context, q provider.Query) (out *provider.Results, err error) {
	start := time.Now()
	var attempts []Attempt
	defer p.cfg.Observer.observe(p.name, "search", start, &attempts, &err)
	if err := checkQuery(p.name, q); err != nil {
		return nil, err
	}
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
		return nil, canceledError(p.name, "search", ctx)
	}

	budget := p.cfg.Budget
	if d, ok := ctx.Deadline(); ok {
		budget = min(budget, time.Until(d))
	}
	per := budget - margin(budget)
	if p.cfg.PerProvider > 0 {
		per = min(per, p.cfg.PerProvider)
	}
	deadline := start.Add(per)
	pctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel() // stops laggards once the answer is ready

	slots := make([]parallelSlot, len(p.providers))
	// The goroutines never return an error: each provider's outcome is kept
	// in its slot, and one provider's failure must not cancel the others.
	var g errgroup.Group
	for i, s := range p.providers {
		slot := &slots[i]
		slot.done = make(chan struct{})
		g.Go(func() error {
			defer close(slot.done)
			slot.res, slot.err = searchOnce(pctx, s, p.names[i], q)
			slot.end = time.Now()
			slot.elapsed = slot.end.Sub(start) // all providers start with the call
			return nil
		})
	}
	allDone := make(chan struct{})
	go func() {
		_ = g.Wait()
		close(allDone)
	}()

	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-allDone:
	case <-timer.C:
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, canceledError(p.name, "search", ctx)
		}
		// The caller's deadline came first: answer with what is ready.
	}

	var lists []rankedList
	var failures []provider.Failure
	var ignored map[string][]string
	for i := range slots {
		slot := &slots[i]
		select {
		case <-slot.done:
		default:
			f := provider.Failure{
				Provider: p.names[i], Kind: provider.KindTransient, TimedOut: true,
				Err: timeoutError(p.names[i], "search", per), Elapsed: time.Since(start),
			}
			failures = append(failures, f)
			attempts = append(attempts, attemptOf(f))
			continue
		}
		if slot.err != nil {
			f := provider.Failure{Provider: p.names[i], Kind: provider.KindOf(slot.err), Err: slot.err, Elapsed: slot.elapsed}
			if !errors.Is(ctx.Err(), context.Canceled) && (errors.Is(slot.err, context.DeadlineExceeded) || !slot.end.Before(deadline)) {
				f.TimedOut, f.Kind = true, provider.KindTransient
			}
			failures = append(failures, f)
			attempts = append(attempts, attemptOf(f))
			continue
		}
		kept := FilterDomains(slot.res.Results, q.IncludeDomains, q.ExcludeDomains)
		ignored = addIgnored(ignored, p.providers[i], p.names[i], q, slot.res)
		lists = append(lists, rankedList{index: i, name: p.names[i], results: kept, answer: slot.res.Answer})
		attempts = append(attempts, Attempt{Provider: p.names[i], Results: len(kept), Elapsed: slot.elapsed})
	}
	if len(lists) == 0 {
		return nil, &AllFailedError{Policy: p.name, Op: "search", Failures: failures}
	}
	out = &provider.Results{
		Query:    q.Text,
		Results:  fuse(lists, resultLimit(q, p.cfg.MaxResults, DefaultMaxResults)),
		Provider: p.name,
		Failures: failures,
		Ignored:  ignored,
	}
	for _, l := range lists {
		if l.answer != "" {
			out.Answer = l.answer
			break
		}
	}
	return out, nil
}

// rankedList is one provider's successful answer, ready for fusion.
type rankedList struct {
	index   int // the provider's position, for tie-breaking
	name    string
	results []provider.Result
	answer  string
}

// fused is one distinct result while lists are merged.
type fused struct {
	r         provider.Result // display fields of the best-ranked occurrence
	bestRank  int
	bestIndex int
	seq       int
	ranks     []int
	providers []string
	score     float64
}

// fuse merges lists by reciprocal rank fusion: a result's score is the sum,
// over the lists that contain it, of 1/(rrfK + rank), rank counted from 1
// after dropping repeats within a list. Ties are broken by the best rank,
// then by provider order, then by first appearance, so the order is
// deterministic. limit > 0 truncates the merged list.
func fuse(lists []rankedList, limit int) []provider.Result {
	byKey := make(map[string]*fused)
	var all []*fused
	for _, l := range lists {
		seen := make(map[string]bool, len(l.results))
		rank := 0
		for _, r := range l.results {
			if r.URL == "" {
				continue
			}
			key := NormalizeURL(r.URL)
			if seen[key] {
				continue
			}
			seen[key] = true
			rank++
			names := r.Providers
			if len(names) == 0 {
				names = []string{l.name}
			}
			if r.Provider == "" {
				r.Provider = l.name
			}
			f := byKey[key]
			if f == nil {
				f = &fused{r: r, bestRank: rank, bestIndex: l.index, seq: len(all)}
				byKey[key] = f
				all = append(all, f)
			} else {
				if rank < f.bestRank {
					snippet, content, title, published := f.r.Snippet, f.r.Content, f.r.Title, f.r.Published
					f.r = r
					f.bestRank, f.bestIndex = rank, l.index
					if f.r.Title == "" {
						f.r.Title = title
					}
					if f.r.Published.IsZero() {
						f.r.Published = published
					}
					f.r.Snippet, f.r.Content = longer(snippet, r.Snippet), longer(content, r.Content)
				} else {
					f.r.Snippet, f.r.Content = longer(f.r.Snippet, r.Snippet), longer(f.r.Content, r.Content)
					if f.r.Title == "" {
						f.r.Title = r.Title
					}
					if f.r.Published.IsZero() {
						f.r.Published = r.Published
					}
				}
			}
			f.ranks = append(f.ranks, rank)
			for _, n := range names {
				if !contains(f.providers, n) {
					f.providers = append(f.providers, n)
				}
			}
		}
	}
	for _, f := range all {
		// Summing in rank order makes equal rank sets give bit-identical
		// scores, whatever the provider order.
		sort.Ints(f.ranks)
		for _, rank := range f.ranks {
			f.score += 1 / float64(rrfK+rank)
		}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if a.bestRank != b.bestRank {
			return a.bestRank < b.bestRank
		}
		if a.bestIndex != b.bestIndex {
			return a.bestIndex < b.bestIndex
		}
		return a.seq < b.seq
	})
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	out := make([]provider.Result, len(all))
	for i, f := range all {
		out[i] = f.r
		out[i].Score = f.score
		out[i].Providers = f.providers
	}
	return out
}

// longer returns the longer of a and b, a when they are as long.
func longer(a, b string) string {
	if len(b) > len(a) {
		return b
	}
	return a
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
