package provider_test

import (
	"errors"
	"testing"

	"github.com/webgate-dev/webgate/provider"
)

func TestNameOr(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"given", named("brave"), "given"},
		{"", named("brave"), "brave"},
		{"", struct{}{}, "fallback"},
		{"", nil, "fallback"},
	} {
		if got := provider.NameOr(tc.name, tc.v, "fallback"); got != tc.want {
			t.Errorf("NameOr(%q, %v) = %q, want %q", tc.name, tc.v, got, tc.want)
		}
	}
}

func TestFailuresOr(t *testing.T) {
	plain := errors.New("boom")
	fs := provider.FailuresOr(plain, "search")
	if len(fs) != 1 || fs[0].Provider != "search" || fs[0].Err != plain || fs[0].Kind != provider.KindOf(plain) {
		t.Fatalf("FailuresOr(plain) = %+v, want one failure named search", fs)
	}
	pe := &provider.Error{Provider: "exa", Op: "search", Kind: provider.KindAuth, Message: "no"}
	fs = provider.FailuresOr(pe, "search")
	if len(fs) != 1 || fs[0].Provider != "exa" || fs[0].Kind != provider.KindAuth {
		t.Fatalf("FailuresOr(provider error) = %+v, want the exa failure", fs)
	}
}
