package policy_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
)

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
