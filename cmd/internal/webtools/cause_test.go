package webtools_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/internal/fakeweb"
	"github.com/webgate-dev/webgate/memory"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
)

// closedPort returns a loopback address where a connection is refused.
func closedPort(t *testing.T) string { return fakeweb.RefusedAddr(t) }

func TestSearch_AFailureSaysItsCauseWhereItIsKnown(t *testing.T) {
	// A real refused connection, on loopback.
	_, refused := http.Get("http://" + closedPort(t) + "/search")
	if refused == nil {
		t.Fatal("a closed port answered")
	}
	until := time.Date(2026, 11, 28, 14, 5, 6, 0, time.Local)
	const secret = "tvly-SECRET-in-a-host-name"
	for name, tc := range map[string]struct {
		err  error
		want string
	}{
		"connection refused": {refused, "tavily (transient-provider-failed: connection refused)"},
		"no such host":       {&net.DNSError{Err: "no such host", Name: "api.tavily.example", IsNotFound: true}, "tavily (transient-provider-failed: no such host api.tavily.example)"},
		"breaker open": {&memory.SkipError{Provider: "tavily", Why: "circuit open after 5 transient failures", Until: until},
			"tavily (transient-provider-failed: skipped until 14:05:06: circuit open after 5 transient failures)"},
		"budget spent": {&memory.SkipError{Provider: "tavily", Why: "monthly budget of 1000 requests reached"},
			"tavily (credit-or-quota-failed: skipped: monthly budget of 1000 requests reached)"},
		"scrubbed": {&net.DNSError{Err: "no such host", Name: secret + ".example", IsNotFound: true}, "no such host [redacted].example"},
	} {
		t.Run(name, func(t *testing.T) {
			kind := provider.KindTransient
			if strings.Contains(tc.want, "credit") {
				kind = provider.KindQuota
			}
			pe := &provider.Error{Provider: "tavily", Op: "search", Kind: kind, Err: tc.err}
			tools := &webtools.Tools{Secrets: []string{secret}, Searcher: searcherFunc(func(context.Context, provider.Query) (*provider.Results, error) {
				return nil, &policy.AllFailedError{Failures: []provider.Failure{{Provider: "tavily", Kind: kind, Err: pe}}}
			})}
			_, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "q"})
			var e *webtools.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v", err)
			}
			if !strings.Contains(e.Message, tc.want) {
				t.Errorf("message %q lacks %q", e.Message, tc.want)
			}
			if len(e.Failures) != 1 || e.Failures[0].Cause == "" || strings.Contains(e.Failures[0].Cause, secret) {
				t.Errorf("failures %+v: want one with its cause, scrubbed", e.Failures)
			}
		})
	}
}

func TestSearch_AFailureWhoseClassSaysItAllHasNoCause(t *testing.T) {
	tools := &webtools.Tools{Searcher: searcherFunc(func(context.Context, provider.Query) (*provider.Results, error) {
		return nil, &provider.Error{Provider: "tavily", Op: "search", Kind: provider.KindAuth, Status: 401, Message: "bad key"}
	})}
	_, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "q"})
	if err == nil || !strings.Contains(err.Error(), "tavily (auth-failed).") {
		t.Errorf("error %v", err)
	}
}
