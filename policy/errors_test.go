package policy

import (
	"errors"
	"fmt"
	"testing"

	"github.com/webgate-dev/webgate/provider"
)

func TestFailures_ReadsAllFailedErrorsJoinedErrorsAndNothingElse(t *testing.T) {
	auth := &provider.Error{Provider: "tavily", Kind: provider.KindAuth}
	quota := &provider.Error{Provider: "exa", Kind: provider.KindQuota}
	all := &AllFailedError{Policy: "parallel", Op: "search", Failures: []provider.Failure{{Provider: "tavily", Kind: provider.KindAuth}}}
	if got := Failures(fmt.Errorf("wrapped: %w", all)); len(got) != 1 || got[0].Provider != "tavily" {
		t.Errorf("AllFailedError: %+v", got)
	}
	got := Failures(errors.Join(auth, quota))
	if len(got) != 2 || got[0].Kind != provider.KindAuth || got[1].Kind != provider.KindQuota || got[1].Provider != "exa" {
		t.Errorf("joined: %+v", got)
	}
	if got := Failures(errors.New("plain")); got != nil {
		t.Errorf("plain error: %+v", got)
	}
	if got := Failures(nil); got != nil {
		t.Errorf("nil: %+v", got)
	}
}

func TestAllFailedError_ClassifiesItselfWithoutInventingAProviderError(t *testing.T) {
	rate := &provider.Error{Provider: "tavily", Op: "search", Status: 429, Kind: provider.KindRateLimited}
	all := &AllFailedError{Policy: "parallel(tavily,exa)", Op: "search", Failures: []provider.Failure{
		{Provider: "tavily", Kind: provider.KindRateLimited, Err: rate},
		{Provider: "exa", Kind: provider.KindTransient, TimedOut: true},
	}}
	err := fmt.Errorf("hook: %w", all)
	if got := provider.KindOf(err); got != provider.KindTransient {
		t.Errorf("KindOf = %q, want the overall kind %q", got, provider.KindTransient)
	}
	var pe *provider.Error
	if !errors.As(err, &pe) || pe != rate {
		t.Errorf("errors.As found %+v, want the first provider's own error", pe)
	}
	if got := fmt.Sprint(all.Failures[1]); got != "exa (transient-provider-failed, timed out)" {
		t.Errorf("Failure.String = %q", got)
	}
}
