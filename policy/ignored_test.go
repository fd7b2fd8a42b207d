package policy_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
)

// ignoringSearcher is a fakeSearcher that says which filters it cannot
// apply, and may also report them in its answer (as backends do).
type ignoringSearcher struct {
	*fakeSearcher
	ignores func(provider.Query) []string
	// reports makes the answer's Ignored say what Ignores says.
	reports bool
}

func (s *ignoringSearcher) Ignores(q provider.Query) []string { return s.ignores(q) }

func (s *ignoringSearcher) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	res, err := s.fakeSearcher.Search(ctx, q)
	if res != nil && s.reports {
		res.Ignored = provider.IgnoredBy(s.name, s.ignores(q))
	}
	return res, err
}

// hidden wraps a searcher the way a guard does: the name stays, the
// Ignorer interface is hidden, the answer passes through.
type hidden struct{ s provider.Searcher }

func (h hidden) Name() string { return provider.NameOf(h.s) }
func (h hidden) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	return h.s.Search(ctx, q)
}

func noCountry(q provider.Query) []string {
	if q.Country != "" {
		return []string{provider.FilterCountry}
	}
	return nil
}

func noTopic(q provider.Query) []string {
	if q.Topic.Specific() {
		return []string{provider.FilterTopic}
	}
	return nil
}

func TestParallel_ListsTheFiltersEachAnsweringProviderIgnored(t *testing.T) {
	exa := &ignoringSearcher{fakeSearcher: newFake("exa", "https://a.example/"), ignores: noCountry}
	// A backend behind a wrapper that hides Ignorer still reports what it
	// ignored in its answer.
	brave := &ignoringSearcher{fakeSearcher: newFake("brave", "https://b.example/"), ignores: noTopic, reports: true}
	tavily := newFake("tavily", "https://c.example/") // says nothing: applies everything
	failing := &ignoringSearcher{fakeSearcher: newFake("jina"), ignores: noTopic}
	failing.err = &provider.Error{Provider: "jina", Kind: provider.KindTransient}

	p, err := policy.NewParallel([]provider.Searcher{exa, hidden{brave}, tavily, failing}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Search(context.Background(), provider.Query{Text: "q", Country: "de", Topic: provider.TopicNews})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"exa": {"country"}, "brave": {"topic"}}
	if !reflect.DeepEqual(res.Ignored, want) {
		t.Errorf("Ignored = %v, want %v (a provider that failed answers nothing)", res.Ignored, want)
	}

	// Nothing ignored: no map at all.
	res, err = p.Search(context.Background(), provider.Query{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ignored != nil {
		t.Errorf("Ignored = %v for a query without filters", res.Ignored)
	}
}

func TestFallback_ListsWhatTheWinnerIgnoredOnly(t *testing.T) {
	first := &ignoringSearcher{fakeSearcher: newFake("jina"), ignores: noTopic}
	first.err = &provider.Error{Provider: "jina", Kind: provider.KindQuota}
	winner := &ignoringSearcher{fakeSearcher: newFake("exa", "https://a.example/"), ignores: noCountry}
	f, err := policy.NewFallback([]provider.Searcher{first, winner}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.Search(context.Background(), provider.Query{Text: "q", Country: "fr", Topic: provider.TopicFinance})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string][]string{"exa": {"country"}}; !reflect.DeepEqual(res.Ignored, want) {
		t.Errorf("Ignored = %v, want %v", res.Ignored, want)
	}
}

func TestParallel_PassesOnWhatANestedPolicyReports(t *testing.T) {
	inner, err := policy.NewFallback([]provider.Searcher{
		&ignoringSearcher{fakeSearcher: newFake("brave", "https://b.example/"), ignores: noTopic},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	exa := &ignoringSearcher{fakeSearcher: newFake("exa", "https://a.example/"), ignores: noTopic, reports: true}
	p, err := policy.NewParallel([]provider.Searcher{inner, exa}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Search(context.Background(), provider.Query{Text: "q", Topic: provider.TopicNews})
	if err != nil {
		t.Fatal(err)
	}
	// exa's answer and its Ignores agree: the filter is listed once.
	if want := map[string][]string{"brave": {"topic"}, "exa": {"topic"}}; !reflect.DeepEqual(res.Ignored, want) {
		t.Errorf("Ignored = %v, want %v", res.Ignored, want)
	}
}
