package policy_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
)

func newParallel(t *testing.T, cfg *policy.SearchConfig, ps ...provider.Searcher) *policy.Parallel {
	t.Helper()
	p, err := policy.NewParallel(ps, cfg)
	if err != nil {
		t.Fatalf("NewParallel: %v", err)
	}
	return p
}

func TestParallel_RanksByReciprocalRankFusion(t *testing.T) {
	a := newFake("a", "https://ex.com/u1", "https://ex.com/u2", "https://ex.com/u3")
	b := newFake("b", "https://ex.com/u2", "https://ex.com/u4", "https://ex.com/u1")
	c := newFake("c", "https://ex.com/u4", "https://ex.com/u2")
	res, err := newParallel(t, nil, a, b, c).Search(context.Background(), provider.Query{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	// k = 60: u2 = 1/62 + 1/61 + 1/62, u4 = 1/62 + 1/61, u1 = 1/61 + 1/63,
	// u3 = 1/63. u4 overtakes u1 although a lists u1 first.
	want := []struct {
		url   string
		score float64
		provs []string
	}{
		{"https://ex.com/u2", 1.0/61 + 2.0/62, []string{"a", "b", "c"}},
		{"https://ex.com/u4", 1.0/61 + 1.0/62, []string{"b", "c"}},
		{"https://ex.com/u1", 1.0/61 + 1.0/63, []string{"a", "b"}},
		{"https://ex.com/u3", 1.0 / 63, []string{"a"}},
	}
	if len(res.Results) != len(want) {
		t.Fatalf("got %d results %q, want %d", len(res.Results), urlsOf(res.Results), len(want))
	}
	for i, w := range want {
		r := res.Results[i]
		if r.URL != w.url || math.Abs(r.Score-w.score) > 1e-12 || !slices.Equal(r.Providers, w.provs) {
			t.Errorf("result %d = %s score %.6f providers %v; want %s score %.6f providers %v", i, r.URL, r.Score, r.Providers, w.url, w.score, w.provs)
		}
	}
	if !strings.HasPrefix(res.Provider, "parallel(") {
		t.Errorf("Provider = %q, want the policy's name", res.Provider)
	}
}

func TestParallel_DeduplicatesByNormalisedURLAndKeepsTheBestOccurrence(t *testing.T) {
	a := newFake("a")
	a.results = []provider.Result{
		{URL: "https://example.com/other", Title: "other"},
		{URL: "https://example.com/page", Title: "A title", Snippet: "a much longer snippet from a", Content: "short"},
	}
	b := newFake("b")
	b.results = []provider.Result{
		{URL: "HTTP://WWW.Example.com:80/page/?utm_source=feed#top", Title: "B title", Snippet: "b snippet", Content: "the longest content of all", Provider: "b"},
		{URL: "https://example.com/page?gclid=1", Title: "repeat within b"},
	}
	res, err := newParallel(t, nil, a, b).Search(context.Background(), provider.Query{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 {
		t.Fatalf("got %q, want the page once and the other page", urlsOf(res.Results))
	}
	page := res.Results[0]
	if page.URL != "HTTP://WWW.Example.com:80/page/?utm_source=feed#top" || page.Title != "B title" || page.Provider != "b" {
		t.Errorf("display fields come from %q %q %q, want b's best-ranked occurrence", page.URL, page.Title, page.Provider)
	}
	if page.Snippet != "a much longer snippet from a" || page.Content != "the longest content of all" {
		t.Errorf("snippet %q content %q, want the longest of each", page.Snippet, page.Content)
	}
	if !slices.Equal(page.Providers, []string{"a", "b"}) {
		t.Errorf("Providers = %v, want [a b]", page.Providers)
	}
	if want := 1.0/62 + 1.0/61; math.Abs(page.Score-want) > 1e-12 {
		t.Errorf("Score = %v, want %v (b's repeat must not count twice)", page.Score, want)
	}
}

func TestParallel_BreaksTiesByProviderOrder(t *testing.T) {
	for range 20 {
		a := newFake("a", "https://a.com/1", "https://x.com/")
		b := newFake("b", "https://b.com/1", "https://y.com/")
		c := newFake("c", "https://y.com/", "https://x.com/")
		res, err := newParallel(t, nil, a, b, c).Search(context.Background(), provider.Query{Text: "q"})
		if err != nil {
			t.Fatal(err)
		}
		// y.com (1/61 + 1/62, best rank 1) beats x.com (1/62 + 1/62), then
		// the rank-1 singletons in provider order.
		want := []string{"https://y.com/", "https://x.com/", "https://a.com/1", "https://b.com/1"}
		if got := urlsOf(res.Results); !slices.Equal(got, want) {
			t.Fatalf("order %q, want %q", got, want)
		}
	}
}

func TestParallel_ReturnsPartialResultsWhenOneProviderFails(t *testing.T) {
	for _, k := range []provider.Kind{provider.KindAuth, provider.KindQuota, provider.KindRateLimited, provider.KindTransient, provider.KindBadRequest, provider.KindUnsupported, provider.KindUnknown} {
		t.Run(string(k), func(t *testing.T) {
			res, err := newParallel(t, nil, failing("a", k), newFake("b", "https://b.com/")).Search(context.Background(), provider.Query{Text: "q"})
			if err != nil {
				t.Fatalf("err = %v, want partial results", err)
			}
			if got := urlsOf(res.Results); !slices.Equal(got, []string{"https://b.com/"}) {
				t.Errorf("results %q", got)
			}
			if got := kindsOf(res.Failures); !slices.Equal(got, []string{"a:" + string(k)}) {
				t.Errorf("failures %q, want [a:%s]", got, k)
			}
			if res.Failures[0].TimedOut {
				t.Error("failure marked as timed out")
			}
		})
	}
}

func TestParallel_FailsWithEveryKindWhenAllProvidersFail(t *testing.T) {
	K := func(ks ...provider.Kind) []provider.Kind { return ks }
	cases := []struct {
		kinds []provider.Kind
		want  provider.Kind
	}{
		{K(provider.KindAuth, provider.KindAuth), provider.KindAuth},
		{K(provider.KindQuota, provider.KindQuota, provider.KindQuota), provider.KindQuota},
		{K(provider.KindAuth, provider.KindQuota), provider.KindQuota},
		{K(provider.KindAuth, provider.KindTransient), provider.KindTransient},
		{K(provider.KindQuota, provider.KindRateLimited, provider.KindBadRequest), provider.KindRateLimited},
		{K(provider.KindBadRequest, provider.KindUnknown), provider.KindBadRequest},
		{K(provider.KindUnsupported, provider.KindUnknown), provider.KindUnsupported},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.kinds), func(t *testing.T) {
			var ps []provider.Searcher
			var want []string
			for i, k := range c.kinds {
				name := fmt.Sprintf("p%d", i)
				ps = append(ps, failing(name, k))
				want = append(want, name+":"+string(k))
			}
			res, err := newParallel(t, nil, ps...).Search(context.Background(), provider.Query{Text: "q"})
			if res != nil || err == nil {
				t.Fatalf("got %v, %v; want an error", res, err)
			}
			var all *policy.AllFailedError
			if !errors.As(err, &all) {
				t.Fatalf("err %T is not *AllFailedError", err)
			}
			if got := kindsOf(all.Failures); !slices.Equal(got, want) {
				t.Errorf("failures %q, want %q", got, want)
			}
			if got := provider.KindOf(err); got != c.want {
				t.Errorf("KindOf = %s, want %s", got, c.want)
			}
			if got := provider.ClassOf(err); got != c.want.Class() {
				t.Errorf("ClassOf = %s, want %s", got, c.want.Class())
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), strings.Replace(w, ":", ": ", 1)) {
					t.Errorf("message %q does not name %s", err, w)
				}
			}
		})
	}
}

func TestParallel_AllFailedErrorReachesEachProviderError(t *testing.T) {
	sentinel := errors.New("disk on fire")
	a := newFake("a")
	a.err = fmt.Errorf("wrapped: %w", sentinel)
	_, err := newParallel(t, nil, a, failing("b", provider.KindAuth)).Search(context.Background(), provider.Query{Text: "q"})
	if !errors.Is(err, sentinel) {
		t.Errorf("errors.Is(err, sentinel) = false for %v", err)
	}
}

func TestParallel_ReturnsAtPerProviderDeadlineWhenAProviderHangs(t *testing.T) {
	for _, ignores := range []bool{false, true} {
		t.Run(fmt.Sprintf("ignores context %v", ignores), func(t *testing.T) {
			hung := newFake("hung", "https://never.com/")
			if ignores {
				hung.hangIgnoringContext(t)
			} else {
				hung.block = true
			}
			rec := &recorder{}
			p := newParallel(t, &policy.SearchConfig{PerProvider: 100 * time.Millisecond, Observer: rec.observe}, newFake("fast", "https://fast.com/"), hung)
			start := time.Now()
			res, err := p.Search(context.Background(), provider.Query{Text: "q"})
			elapsed := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if elapsed >= policy.DefaultBudget {
				t.Fatalf("waited %v, beyond the budget", elapsed)
			}
			if got := urlsOf(res.Results); !slices.Equal(got, []string{"https://fast.com/"}) {
				t.Errorf("results %q", got)
			}
			if len(res.Failures) != 1 {
				t.Fatalf("failures %+v", res.Failures)
			}
			f := res.Failures[0]
			if f.Provider != "hung" || !f.TimedOut || f.Kind != provider.KindTransient || f.Elapsed < 100*time.Millisecond {
				t.Errorf("failure %+v, want hung timed out (transient) after at least 100ms", f)
			}
			if tr := rec.only(t); len(tr.Attempts) != 2 || !tr.Attempts[1].TimedOut || tr.Attempts[0].Results != 1 {
				t.Errorf("trace %s", tr)
			}
			if !ignores {
				select {
				case <-hung.ctxEnded:
				case <-time.After(5 * time.Second):
					t.Error("the hung provider's context was never ended")
				}
			}
		})
	}
}

func TestParallel_AnswersBeforeTheCallersDeadline(t *testing.T) {
	hung := newFake("hung")
	hung.block = true
	// Parallel keeps a tenth of the caller's time (at most 250 ms) to
	// answer in; two seconds leave a margin a busy machine keeps to.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	res, err := newParallel(t, nil, newFake("fast", "https://fast.com/"), hung).Search(ctx, provider.Query{Text: "q"})
	if err != nil {
		t.Fatalf("err = %v, want the fast provider's results before the caller's deadline", err)
	}
	if ctx.Err() != nil {
		t.Error("answered only after the caller's deadline")
	}
	if len(res.Results) != 1 || len(res.Failures) != 1 || !res.Failures[0].TimedOut {
		t.Errorf("results %q failures %+v", urlsOf(res.Results), res.Failures)
	}
}

func TestParallel_EnforcesDomainFiltersOnALeakyProvider(t *testing.T) {
	leaky := newFake("leaky", "https://evil.com/1", "https://docs.github.com/2", "https://notgithub.com/3", "https://github.com/blocked/4")
	q := provider.Query{Text: "q", IncludeDomains: []string{"github.com"}, ExcludeDomains: []string{"https://github.com/blocked"}}
	res, err := newParallel(t, nil, leaky, newFake("other", "https://github.com/5")).Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	// The exclude entry is a URL, so its host github.com is excluded too:
	// exclusion wins over inclusion.
	if got := urlsOf(res.Results); len(got) != 0 {
		t.Errorf("results %q, want none", got)
	}
	if got := leaky.lastQuery(); !slices.Equal(got.IncludeDomains, q.IncludeDomains) || !slices.Equal(got.ExcludeDomains, q.ExcludeDomains) {
		t.Errorf("provider got filters %q / %q, want them passed on", got.IncludeDomains, got.ExcludeDomains)
	}

	q.ExcludeDomains = []string{"docs.github.com"}
	res, err = newParallel(t, nil, leaky, newFake("other", "https://github.com/5")).Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if got := urlsOf(res.Results); !slices.Equal(got, []string{"https://github.com/blocked/4", "https://github.com/5"}) {
		t.Errorf("results %q", got)
	}
}

func TestParallel_ReturnsCanceledWhenTheCallerCancels(t *testing.T) {
	a, b := newFake("a"), newFake("b")
	a.block, b.block = true, true
	p := newParallel(t, nil, a, b)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	res, err := p.Search(ctx, provider.Query{Text: "q"})
	if res != nil || provider.KindOf(err) != provider.KindCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, %v (kind %s); want a canceled error", res, err, provider.KindOf(err))
	}
	for _, f := range []*fakeSearcher{a, b} {
		select {
		case <-f.ctxEnded:
		case <-time.After(5 * time.Second):
			t.Errorf("%s never saw its context end", f.name)
		}
	}

	_, err = p.Search(ctx, provider.Query{Text: "q"})
	if provider.KindOf(err) != provider.KindCanceled {
		t.Errorf("already canceled: kind %s", provider.KindOf(err))
	}
}

func TestParallel_LimitsTheMergedList(t *testing.T) {
	var urls []string
	for i := range 15 {
		urls = append(urls, fmt.Sprintf("https://ex.com/%d", i))
	}
	cases := []struct {
		name        string
		query, capN int
		want        int
	}{
		{"default", 0, 0, policy.DefaultMaxResults},
		{"query asks for fewer", 3, 0, 3},
		{"query asks for more", 12, 0, 12},
		{"config caps the default", 0, 5, 5},
		{"config caps the query", 8, 5, 5},
		{"query below the cap", 3, 5, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newParallel(t, &policy.SearchConfig{MaxResults: c.capN}, newFake("a", urls...), newFake("b", urls[5:]...))
			res, err := p.Search(context.Background(), provider.Query{Text: "q", MaxResults: c.query})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Results) != c.want {
				t.Errorf("got %d results, want %d", len(res.Results), c.want)
			}
		})
	}
}

func TestParallel_SucceedsWithNoResultsWhenEveryProviderFindsNothing(t *testing.T) {
	res, err := newParallel(t, nil, newFake("a"), failing("b", provider.KindQuota)).Search(context.Background(), provider.Query{Text: "q"})
	if err != nil || len(res.Results) != 0 || len(res.Failures) != 1 {
		t.Fatalf("got %+v, %v; want empty results with b's failure", res, err)
	}
}

func TestParallel_RecoversFromAPanickingProviderWithoutLeakingItsValue(t *testing.T) {
	bad := newFake("bad")
	bad.panicWith = "sk-live-secret-key"
	res, err := newParallel(t, nil, bad, newFake("good", "https://good.com/")).Search(context.Background(), provider.Query{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if got := kindsOf(res.Failures); !slices.Equal(got, []string{"bad:unknown"}) {
		t.Errorf("failures %q", got)
	}
	if strings.Contains(res.Failures[0].Err.Error(), "sk-live") {
		t.Errorf("error %q repeats the panic value", res.Failures[0].Err)
	}
}

func TestParallel_RejectsAnEmptyQuery(t *testing.T) {
	a := newFake("a", "https://a.com/")
	_, err := newParallel(t, nil, a).Search(context.Background(), provider.Query{Text: "  "})
	if provider.KindOf(err) != provider.KindBadRequest || a.calls.Load() != 0 {
		t.Errorf("err %v, calls %d; want bad-request without calling providers", err, a.calls.Load())
	}
}

func TestParallel_NamesRepeatedProvidersApart(t *testing.T) {
	p := newParallel(t, nil, newFake("x", "https://1.com/"), newFake("x", "https://1.com/"))
	res, err := p.Search(context.Background(), provider.Query{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "parallel(x,x#2)" || !slices.Equal(res.Results[0].Providers, []string{"x", "x#2"}) {
		t.Errorf("name %q providers %v", p.Name(), res.Results[0].Providers)
	}
}

func TestNewParallel_RejectsNoProvidersAndNil(t *testing.T) {
	if _, err := policy.NewParallel(nil, nil); err == nil {
		t.Error("no providers: want an error")
	}
	if _, err := policy.NewParallel([]provider.Searcher{newFake("a"), nil}, nil); err == nil {
		t.Error("nil provider: want an error")
	}
}
