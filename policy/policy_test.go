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

func TestOrder_MovesThePrimaryToTheFront(t *testing.T) {
	cases := []struct {
		names   []string
		primary string
		want    []string
	}{
		{[]string{"tavily", "websearchapi", "exa"}, "exa", []string{"exa", "tavily", "websearchapi"}},
		{[]string{"tavily", "websearchapi", "exa"}, "websearchapi", []string{"websearchapi", "tavily", "exa"}},
		{[]string{"tavily", "websearchapi", "exa"}, "tavily", []string{"tavily", "websearchapi", "exa"}},
		{[]string{"tavily", "websearchapi", "exa"}, "", []string{"tavily", "websearchapi", "exa"}},
		{[]string{"tavily", "websearchapi"}, "exa", []string{"tavily", "websearchapi"}},
		{[]string{"tavily", "Exa", "exa", " ", "tavily"}, "EXA", []string{"Exa", "tavily"}},
		{nil, "exa", []string{}},
	}
	for _, c := range cases {
		names := slices.Clone(c.names)
		if got := policy.Order(names, c.primary); !slices.Equal(got, c.want) {
			t.Errorf("Order(%q, %q) = %q, want %q", c.names, c.primary, got, c.want)
		}
		if !slices.Equal(names, c.names) {
			t.Errorf("Order modified its input: %q", names)
		}
	}
}

func TestDefaultSearchOrder_AddsExaOnlyWhenItHasKeys(t *testing.T) {
	if got := policy.DefaultSearchOrder(false); !slices.Equal(got, []string{"tavily", "websearchapi"}) {
		t.Errorf("without exa: %q", got)
	}
	if got := policy.DefaultSearchOrder(true); !slices.Equal(got, []string{"tavily", "websearchapi", "exa"}) {
		t.Errorf("with exa: %q", got)
	}
	if policy.DefaultSearchMode != policy.ModeParallel {
		t.Errorf("DefaultSearchMode = %q", policy.DefaultSearchMode)
	}
}

func TestParseMode_ReadsConfiguredNames(t *testing.T) {
	for in, want := range map[string]policy.Mode{"": policy.ModeParallel, "Parallel": policy.ModeParallel, " fallback ": policy.ModeFallback, "SINGLE": policy.ModeSingle} {
		if got, err := policy.ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := policy.ParseMode("round-robin"); err == nil || !strings.Contains(err.Error(), "round-robin") {
		t.Errorf("unknown mode: err %v", err)
	}
}

func TestPickAndSearchers_BuildProvidersInConfiguredOrderWithTheirNames(t *testing.T) {
	anon := &anonSearcher{}
	available := []policy.Named[provider.Searcher]{
		{Name: "tavily", P: newFake("tavily", "https://t.com/")},
		{Name: "exa", P: anon},
	}
	picked, err := policy.Pick(available, policy.Order([]string{"tavily", "exa"}, "exa"))
	if err != nil {
		t.Fatal(err)
	}
	ss := policy.Searchers(picked)
	if got := []string{provider.NameOf(ss[0]), provider.NameOf(ss[1])}; !slices.Equal(got, []string{"exa", "tavily"}) {
		t.Errorf("names %q", got)
	}
	if ss[1] != available[0].P {
		t.Error("a searcher whose name already matches was wrapped")
	}
	if _, err := ss[0].Search(context.Background(), provider.Query{Text: "q"}); err != nil || !anon.called {
		t.Errorf("wrapped searcher not called through: %v", err)
	}
	if _, err := policy.Pick(available, []string{"websearchapi"}); err == nil || !strings.Contains(err.Error(), "tavily, exa") {
		t.Errorf("unknown name: err %v, want one listing the configured providers", err)
	}

	xs := policy.Extractors([]policy.Named[provider.Extractor]{{Name: "reader", P: okExtractor("x")}})
	if provider.NameOf(xs[0]) != "reader" {
		t.Errorf("extractor name %q", provider.NameOf(xs[0]))
	}
	if p, err := xs[0].Extract(context.Background(), req); err != nil || p.Content == "" {
		t.Errorf("wrapped extractor: %v, %v", p, err)
	}
}

// anonSearcher has no name.
type anonSearcher struct{ called bool }

func (a *anonSearcher) Search(context.Context, provider.Query) (*provider.Results, error) {
	a.called = true
	return &provider.Results{}, nil
}

func TestAllFailedError_PicksTheMostActionableKind(t *testing.T) {
	f := func(ks ...provider.Kind) []provider.Failure {
		var out []provider.Failure
		for _, k := range ks {
			out = append(out, provider.Failure{Provider: "p", Kind: k})
		}
		return out
	}
	cases := []struct {
		failures []provider.Failure
		want     provider.Kind
	}{
		{nil, provider.KindUnknown},
		{f(provider.KindUnknown, provider.KindUnknown), provider.KindUnknown},
		{f(provider.KindCanceled, provider.KindUnknown), provider.KindUnknown},
		{f(provider.KindUnsupported, provider.KindAuth), provider.KindAuth},
		{f(provider.KindAuth, provider.KindRateLimited, provider.KindTransient), provider.KindTransient},
		{[]provider.Failure{{Provider: "p", Err: errors.New("plain")}}, provider.KindUnknown},
		{[]provider.Failure{{Provider: "p", Err: context.DeadlineExceeded}}, provider.KindTransient},
	}
	for _, c := range cases {
		e := &policy.AllFailedError{Policy: "x", Op: "search", Failures: c.failures}
		if got := e.Kind(); got != c.want {
			t.Errorf("Kind(%v) = %s, want %s", c.failures, got, c.want)
		}
		if got := provider.KindOf(e); got != c.want {
			t.Errorf("KindOf(%v) = %s, want %s", c.failures, got, c.want)
		}
	}
}

func TestTrace_RendersOneLineForDebugOutput(t *testing.T) {
	tr := policy.Trace{
		Policy: "fallback(tavily,exa)", Op: "search", Elapsed: 930 * time.Millisecond,
		Attempts: []policy.Attempt{
			{Provider: "tavily", Kind: provider.KindRateLimited, Elapsed: 120 * time.Millisecond},
			{Provider: "exa", Kind: provider.KindTransient, TimedOut: true, Elapsed: 2 * time.Second},
			{Provider: "websearchapi", Results: 5, Elapsed: 810 * time.Millisecond},
			{Provider: "slow", Superseded: true, Elapsed: 900 * time.Millisecond},
		},
	}
	want := "fallback(tavily,exa) search in 930ms: tavily: rate-limited, 120ms; exa: transient, timed out, 2s; websearchapi: ok, 5 results, 810ms; slow: superseded, 900ms"
	if got := tr.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	tr.Err = &policy.AllFailedError{Failures: []provider.Failure{{Kind: provider.KindQuota}}}
	if got := tr.String(); !strings.HasSuffix(got, " => quota") {
		t.Errorf("with error: %s", got)
	}
}
