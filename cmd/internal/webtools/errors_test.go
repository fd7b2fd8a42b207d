package webtools_test

import (
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/provider"
)

func TestError_MessageUnderItsClassNamesTheClassOnce(t *testing.T) {
	e := &webtools.Error{
		Reason: webtools.ProviderFailed,
		Class:  provider.ClassRateLimited,
		Failures: []webtools.Failure{
			{Provider: "tavily", Class: provider.ClassAuthFailed},
			{Provider: "exa", Class: provider.ClassRateLimited, TimedOut: true},
			{Provider: "brave", Class: provider.ClassRateLimited},
		},
		Message: "every provider failed: tavily (auth-failed), exa (rate-limited, timed out), brave (rate-limited). The provider is rate limiting.",
	}
	want := "every provider failed: tavily (auth-failed), exa (timed out), brave. The provider is rate limiting."
	if got := e.MessageUnder(provider.ClassRateLimited); got != want {
		t.Errorf("MessageUnder = %q\nwant            %q", got, want)
	}
	if e.Error() != e.Message {
		t.Error("MessageUnder changed the error's own message")
	}
}

func TestSummary_AnErrorPageIsNotCalledNotHTML(t *testing.T) {
	r := &webtools.FetchResult{Status: 503, ContentType: "text/html", Path: webtools.PathExtraction, Provider: "tavily", Why: "answered a direct read with HTTP 503 Service Unavailable"}
	got := r.Summary()
	if !strings.HasPrefix(got, "HTTP 503; extracted via tavily") || strings.Contains(got, "not HTML") {
		t.Errorf("summary %q", got)
	}
	r = &webtools.FetchResult{Status: 200, ContentType: "application/pdf", Path: webtools.PathReadable}
	if got := r.Summary(); got != "not HTML (application/pdf); read locally as a PDF document" {
		t.Errorf("summary %q", got)
	}
}

func TestSummary_AnHTMLPageWithoutAVerdictIsNotCalledNotHTML(t *testing.T) {
	// An answer that carries no verdict (an entry kept by an older
	// version, a page read by a provider after the probe failed) is
	// not classified; its media type says HTML.
	for _, ct := range []string{"text/html", "application/xhtml+xml"} {
		r := &webtools.FetchResult{Status: 200, ContentType: ct, Path: webtools.PathExtraction, Provider: "tavily", Why: "is mostly navigation and page template"}
		if got := r.Summary(); strings.Contains(got, "not HTML") || !strings.HasPrefix(got, "not classified; ") {
			t.Errorf("%s: summary %q", ct, got)
		}
	}
}
