package policy_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
)

func newFallback(t *testing.T, cfg *policy.SearchConfig, ps ...provider.Searcher) *policy.Fallback {
	t.Helper()
	f, err := policy.NewFallback(ps, cfg)
	if err != nil {
		t.Fatalf("NewFallback: %v", err)
	}
	return f
}

// waitEnded fails the test unless f's context ends soon.
func waitEnded(t *testing.T, f *fakeSearcher) {
	t.Helper()
	select {
	case <-f.ctxEnded:
	case <-time.After(5 * time.Second):
		t.Errorf("%s never saw its context end", f.name)
	}
}

func TestFallback_ReturnsTheFirstSuccessAndReportsEarlierFailures(t *testing.T) {
	for _, k := range []provider.Kind{provider.KindAuth, provider.KindQuota, provider.KindRateLimited, provider.KindTransient, provider.KindBadRequest, provider.KindUnsupported, provider.KindUnknown} {
		t.Run(string(k), func(t *testing.T) {
			a, b, c := failing("a", k), newFake("b", "https://b.com/"), newFake("c", "https://c.com/")
			res, err := newFallback(t, nil, a, b, c).Search(context.Background(), provider.Query{Text: "q"})
			if err != nil {
				t.Fatal(err)
			}
			if got := urlsOf(res.Results); !slices.Equal(got, []string{"https://b.com/"}) {
				t.Errorf("results %q, want b's", got)
			}
			if got := kindsOf(res.Failures); !slices.Equal(got, []string{"a:" + string(k)}) {
				t.Errorf("failures %q", got)
			}
			if res.Provider != "b" {
				t.Errorf("Provider = %q, want the winner", res.Provider)
			}
			if c.calls.Load() != 0 {
				t.Error("c was called after b succeeded")
			}
		})
	}
}

func TestFallback_StopsWhenTheCallerCancels(t *testing.T) {
	a, b := newFake("a"), newFake("b", "https://b.com/")
	a.block = true
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	res, err := newFallback(t, nil, a, b).Search(ctx, provider.Query{Text: "q"})
	if res != nil || provider.KindOf(err) != provider.KindCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, %v; want a canceled error", res, err)
	}
	if b.calls.Load() != 0 {
		t.Error("b was called after the caller canceled")
	}
	waitEnded(t, a)
}

func TestFallback_StopsOnACanceledFailure(t *testing.T) {
	b := newFake("b", "https://b.com/")
	_, err := newFallback(t, nil, failing("a", provider.KindCanceled), b).Search(context.Background(), provider.Query{Text: "q"})
	if provider.KindOf(err) != provider.KindCanceled || b.calls.Load() != 0 {
		t.Errorf("err %v, b calls %d; want canceled without trying b", err, b.calls.Load())
	}
}

func TestFallback_HedgeStartsTheNextProviderAfterTheDelayAndCancelsTheLoser(t *testing.T) {
	slow, fast := newFake("slow", "https://slow.com/"), newFake("fast", "https://fast.com/")
	slow.block = true
	rec := &recorder{}
	f := newFallback(t, &policy.SearchConfig{Hedge: 50 * time.Millisecond, Observer: rec.observe}, slow, fast)
	start := time.Now() // the lower bound: see TestFallback_HedgesAgainAndCancelsEveryLoser
	res, err := f.Search(context.Background(), provider.Query{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if got := urlsOf(res.Results); !slices.Equal(got, []string{"https://fast.com/"}) {
		t.Errorf("results %q, want the hedge's", got)
	}
	if gap := fast.startedAt().Sub(start); gap < 50*time.Millisecond {
		t.Errorf("second provider started %v after the call, want at least the hedge delay", gap)
	}
	if len(res.Failures) != 0 {
		t.Errorf("failures %+v; a superseded provider is not a failure", res.Failures)
	}
	waitEnded(t, slow)
	tr := rec.only(t)
	if len(tr.Attempts) != 2 || !tr.Attempts[0].Superseded || tr.Attempts[1].Results != 1 {
		t.Errorf("trace %s", tr)
	}
}

func TestFallback_HedgeKeepsTheFirstProviderWhenItAnswersFirst(t *testing.T) {
	first, hedge := newFake("first", "https://first.com/"), newFake("hedge", "https://hedge.com/")
	first.delay = 150 * time.Millisecond
	hedge.block = true
	res, err := newFallback(t, &policy.SearchConfig{Hedge: 20 * time.Millisecond}, first, hedge).Search(context.Background(), provider.Query{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if got := urlsOf(res.Results); !slices.Equal(got, []string{"https://first.com/"}) {
		t.Errorf("results %q", got)
	}
	// The hedge's goroutine may still be starting when the first answers;
	// once it has seen its context end, its call was made.
	waitEnded(t, hedge)
	if hedge.calls.Load() != 1 {
		t.Error("the hedge was not started")
	}
}

func TestFallback_WithoutHedgeWaitsForTheCurrentProvider(t *testing.T) {
	a, b := newFake("a", "https://a.com/"), newFake("b", "https://b.com/")
	a.delay = 50 * time.Millisecond
	res, err := newFallback(t, nil, a, b).Search(context.Background(), provider.Query{Text: "q"})
	if err != nil || res.Provider != "a" || b.calls.Load() != 0 {
		t.Errorf("got %v from %q, b calls %d; want a's answer alone", err, res.Provider, b.calls.Load())
	}
}

func TestFallback_TimesOutAHungProviderAndMovesOn(t *testing.T) {
	cases := []struct {
		name string
		cfg  policy.SearchConfig
	}{
		{"per-provider deadline", policy.SearchConfig{PerProvider: 100 * time.Millisecond}},
		{"even share of the budget", policy.SearchConfig{Budget: 300 * time.Millisecond}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hung := newFake("hung").hangIgnoringContext(t)
			res, err := newFallback(t, &c.cfg, hung, newFake("b", "https://b.com/")).Search(context.Background(), provider.Query{Text: "q"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Provider != "b" || len(res.Failures) != 1 {
				t.Fatalf("provider %q failures %+v", res.Provider, res.Failures)
			}
			if f := res.Failures[0]; f.Provider != "hung" || !f.TimedOut || f.Kind != provider.KindTransient {
				t.Errorf("failure %+v, want hung timed out", f)
			}
		})
	}
}

func TestFallback_SkipsTheRestWhenTheBudgetIsUsedUp(t *testing.T) {
	hung, b := newFake("hung").hangIgnoringContext(t), newFake("b", "https://b.com/")
	_, err := newFallback(t, &policy.SearchConfig{Budget: 100 * time.Millisecond, PerProvider: time.Minute}, hung, b).Search(context.Background(), provider.Query{Text: "q"})
	var all *policy.AllFailedError
	if !errors.As(err, &all) {
		t.Fatalf("err %v, want *AllFailedError", err)
	}
	if got := kindsOf(all.Failures); !slices.Equal(got, []string{"hung:transient", "b:transient"}) {
		t.Errorf("failures %q", got)
	}
	if !all.Failures[0].TimedOut || !all.Failures[1].TimedOut || b.calls.Load() != 0 {
		t.Errorf("failures %+v, b calls %d", all.Failures, b.calls.Load())
	}
	if !strings.Contains(err.Error(), "not tried") {
		t.Errorf("message %q does not say b was not tried", err)
	}
}

func TestFallback_HandlesEmptyAnswers(t *testing.T) {
	offDomain := newFake("offdomain", "https://evil.com/")
	cases := []struct {
		name        string
		acceptEmpty bool
		ps          []*fakeSearcher
		want        []string // result URLs
		provider    string
		failures    []string
	}{
		{"empty moves on by default", false, []*fakeSearcher{newFake("a"), newFake("b", "https://b.com/")}, []string{"https://b.com/"}, "b", nil},
		{"empty is final with AcceptEmpty", true, []*fakeSearcher{newFake("a"), newFake("b", "https://b.com/")}, nil, "a", nil},
		{"all empty is an empty success", false, []*fakeSearcher{newFake("a"), newFake("b")}, nil, "a", nil},
		{"empty then failure keeps the empty answer", false, []*fakeSearcher{newFake("a"), failing("b", provider.KindQuota)}, nil, "a", []string{"b:quota"}},
		{"filtered to nothing counts as empty", false, []*fakeSearcher{offDomain, newFake("b", "https://github.com/x")}, []string{"https://github.com/x"}, "b", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ps []provider.Searcher
			for _, p := range c.ps {
				ps = append(ps, p)
			}
			res, err := newFallback(t, &policy.SearchConfig{AcceptEmpty: c.acceptEmpty}, ps...).Search(context.Background(), provider.Query{Text: "q", ExcludeDomains: []string{"evil.com"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := urlsOf(res.Results); !slices.Equal(got, c.want) {
				t.Errorf("results %q, want %q", got, c.want)
			}
			if res.Provider != c.provider {
				t.Errorf("provider %q, want %q", res.Provider, c.provider)
			}
			if got := kindsOf(res.Failures); !slices.Equal(got, c.failures) {
				t.Errorf("failures %q, want %q", got, c.failures)
			}
			if c.acceptEmpty && c.ps[1].calls.Load() != 0 {
				t.Error("the next provider was tried after an accepted empty answer")
			}
		})
	}
}

func TestFallback_EnforcesDomainFiltersOnALeakyProvider(t *testing.T) {
	leaky := newFake("leaky", "https://evil.com/1", "https://docs.github.com/2", "https://notgithub.com/3")
	q := provider.Query{Text: "q", IncludeDomains: []string{"GitHub.com"}}
	res, err := newFallback(t, nil, leaky).Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if got := urlsOf(res.Results); !slices.Equal(got, []string{"https://docs.github.com/2"}) {
		t.Errorf("results %q", got)
	}
	if got := leaky.lastQuery().IncludeDomains; !slices.Equal(got, q.IncludeDomains) {
		t.Errorf("provider got include %q", got)
	}
}

func TestFallback_FailsWithEveryKindWhenAllProvidersFail(t *testing.T) {
	_, err := newFallback(t, nil, failing("a", provider.KindAuth), failing("b", provider.KindQuota)).Search(context.Background(), provider.Query{Text: "q"})
	var all *policy.AllFailedError
	if !errors.As(err, &all) {
		t.Fatalf("err %v, want *AllFailedError", err)
	}
	if got := kindsOf(all.Failures); !slices.Equal(got, []string{"a:auth", "b:quota"}) {
		t.Errorf("failures %q", got)
	}
	if provider.KindOf(err) != provider.KindQuota {
		t.Errorf("KindOf = %s, want quota", provider.KindOf(err))
	}
}

func TestFallback_LimitsResultsToTheQuery(t *testing.T) {
	a := newFake("a", "https://1.com/", "https://2.com/", "https://3.com/", "https://4.com/")
	res, err := newFallback(t, nil, a).Search(context.Background(), provider.Query{Text: "q", MaxResults: 2})
	if err != nil || len(res.Results) != 2 {
		t.Fatalf("got %v, %v; want 2 results", res, err)
	}
	res, err = newFallback(t, nil, a).Search(context.Background(), provider.Query{Text: "q"})
	if err != nil || len(res.Results) != 4 {
		t.Fatalf("got %v, %v; want the provider's 4 results", res, err)
	}
}

func TestFallback_ComposesWithParallel(t *testing.T) {
	inner, err := policy.NewParallel([]provider.Searcher{failing("a", provider.KindAuth), failing("b", provider.KindRateLimited)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := newFallback(t, nil, inner, newFake("c", "https://c.com/")).Search(context.Background(), provider.Query{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if got := kindsOf(res.Failures); !slices.Equal(got, []string{"parallel(a,b):rate-limited"}) {
		t.Errorf("failures %q", got)
	}
}

func TestNewSearch_BuildsEachMode(t *testing.T) {
	ps := []provider.Searcher{failing("a", provider.KindAuth), newFake("b", "https://b.com/")}
	cases := []struct {
		mode    policy.Mode
		name    string
		wantErr provider.Kind
	}{
		{"", "parallel(a,b)", ""},
		{policy.ModeParallel, "parallel(a,b)", ""},
		{policy.ModeFallback, "fallback(a,b)", ""},
		{policy.ModeSingle, "single(a)", provider.KindAuth},
	}
	for _, c := range cases {
		t.Run(string(c.mode), func(t *testing.T) {
			s, err := policy.NewSearch(c.mode, ps, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := provider.NameOf(s); got != c.name {
				t.Errorf("name %q, want %q", got, c.name)
			}
			_, err = s.Search(context.Background(), provider.Query{Text: "q"})
			if provider.KindOf(err) != c.wantErr {
				t.Errorf("search error kind %q, want %q", provider.KindOf(err), c.wantErr)
			}
		})
	}
	if _, err := policy.NewSearch("roundrobin", ps, nil); err == nil {
		t.Error("unknown mode: want an error")
	}
	if _, err := policy.NewSearch(policy.ModeSingle, nil, nil); err == nil {
		t.Error("single without providers: want an error")
	}
}

func TestFallback_HedgesAgainAndCancelsEveryLoser(t *testing.T) {
	a, b, c := newFake("a"), newFake("b"), newFake("c", "https://c.com/")
	a.block, b.block = true, true
	rec := &recorder{}
	fb := newFallback(t, &policy.SearchConfig{Hedge: 30 * time.Millisecond, Observer: rec.observe}, a, b, c)
	// Measured from before the call: each hedge delay runs from its
	// provider's launch, which comes before that provider's goroutine notes
	// its own start, so a's noted start is no lower bound.
	start := time.Now()
	res, err := fb.Search(context.Background(), provider.Query{Text: "q"})
	if err != nil || res.Provider != "c" {
		t.Fatalf("got %v, %v; want c's answer", res, err)
	}
	if gap := c.startedAt().Sub(start); gap < 60*time.Millisecond {
		t.Errorf("third provider started %v after the call, want two hedge delays", gap)
	}
	waitEnded(t, a)
	waitEnded(t, b)
	tr := rec.only(t)
	if len(tr.Attempts) != 3 || !tr.Attempts[0].Superseded || !tr.Attempts[1].Superseded {
		t.Errorf("trace %s", tr)
	}
}

func TestFallback_MovesOnAtOnceAfterAFailureEvenWithAHedge(t *testing.T) {
	a, b := failing("a", provider.KindTransient), newFake("b", "https://b.com/")
	res, err := newFallback(t, &policy.SearchConfig{Hedge: time.Minute}, a, b).Search(context.Background(), provider.Query{Text: "q"})
	if err != nil || res.Provider != "b" {
		t.Fatalf("got %v, %v; want b's answer", res, err)
	}
	if got := kindsOf(res.Failures); !slices.Equal(got, []string{"a:transient"}) {
		t.Errorf("failures %q", got)
	}
}
