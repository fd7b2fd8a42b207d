package webpage

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/internal/fakeweb"
	"github.com/webgate-dev/webgate/provider"
)

// article is a page the classifier reads as fetch-readable.
var article = "<html><head><title>Contexts</title></head><body><main><article><h1>Contexts</h1>" +
	strings.Repeat("<p>A context carries a deadline, a cancellation signal and request-scoped values across API boundaries and between processes, and every function that does I/O on behalf of a request takes one as its first argument.</p>", 8) +
	"</article></main></body></html>"

// shell is an app shell the classifier reads as browser-render-required.
const shell = `<html><head><title>App</title><script src="/static/js/main.3f2a.js"></script></head><body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>`

type fakeExtractor struct {
	name  string
	page  *provider.Page
	err   error
	calls atomic.Int32
	query string
}

func (f *fakeExtractor) Name() string { return f.name }
func (f *fakeExtractor) Extract(_ context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	f.calls.Add(1)
	f.query = req.Query
	if f.err != nil {
		return nil, f.err
	}
	p := *f.page
	return &p, nil
}

func serve(t *testing.T, status int, ctype, body string) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// loopbackReader reads pages on loopback with x as a self-hosted
// extraction provider, which may read them too.
func loopbackReader(x provider.Extractor) *Reader {
	return &Reader{Extractor: x, Probe: ProbeConfig{AllowPrivate: true, Timeout: 2 * time.Second}, PrivateExtractor: true}
}

func TestReader_ConvertsAReadablePageLocallyWithoutAskingAProvider(t *testing.T) {
	x := &fakeExtractor{name: "x", page: &provider.Page{Content: "never"}}
	u := serve(t, 200, "text/html; charset=utf-8", article)
	res, err := loopbackReader(x).Read(context.Background(), Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != SourceLocal || res.Plan.Action != ActionLocal || res.Plan.Verdict.Class != classify.FetchReadable {
		t.Errorf("source %s, action %s, verdict %v", res.Source, res.Plan.Action, res.Plan.Verdict)
	}
	// The title is the result's field; the content does not repeat it.
	if res.Title != "Contexts" || strings.Contains(res.Content, "# Contexts") || !strings.Contains(res.Content, "cancellation signal") {
		t.Errorf("title %q, content %q", res.Title, res.Content)
	}
	if x.calls.Load() != 0 {
		t.Errorf("the extractor was called %d times", x.calls.Load())
	}
}

func TestReader_ExtractsAnAppShellWithTheProvider(t *testing.T) {
	x := &fakeExtractor{name: "tavily", page: &provider.Page{Title: "Dashboard", Content: "# Dashboard\n\nRendered content."}}
	u := serve(t, 200, "text/html", shell)
	res, err := loopbackReader(x).Read(context.Background(), Request{URL: u, Prompt: "the totals"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != SourceProvider || res.Provider != "tavily" || res.Title != "Dashboard" {
		t.Errorf("source %s provider %q title %q", res.Source, res.Provider, res.Title)
	}
	if res.Plan.Why != "shows its content only after JavaScript runs" || x.query != "the totals" {
		t.Errorf("why %q, query %q", res.Plan.Why, x.query)
	}
}

func TestReader_ExtractsAPageThatRefusedTheProbe(t *testing.T) {
	x := &fakeExtractor{name: "exa", page: &provider.Page{Content: "page text"}}
	u := serve(t, 403, "text/html", "<html><body>Access denied</body></html>")
	res, err := loopbackReader(x).Read(context.Background(), Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan.Why != "refused a direct read (HTTP 403)" || res.Source != SourceProvider {
		t.Errorf("why %q source %s", res.Plan.Why, res.Source)
	}
}

func TestReader_AnErrorStatusIsAnErrorAndNoProviderIsAsked(t *testing.T) {
	x := &fakeExtractor{name: "x", page: &provider.Page{Content: "never"}}
	u := serve(t, 404, "text/html", "<html><body>Not found</body></html>")
	_, err := loopbackReader(x).Read(context.Background(), Request{URL: u})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindHTTPStatus || e.Status != 404 {
		t.Fatalf("err = %v, want an http-status error with 404", err)
	}
	if x.calls.Load() != 0 {
		t.Error("the extractor was called for a 404")
	}
}

func TestReader_RefusesLoopbackUnlessAllowed(t *testing.T) {
	u := serve(t, 200, "text/html", article)
	_, err := (&Reader{}).Read(context.Background(), Request{URL: u})
	if KindOf(err) != KindBlocked || !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("err = %v, want a blocked-address error", err)
	}
	_, err = (&Reader{}).Read(context.Background(), Request{URL: "ftp://example.org/x"})
	if KindOf(err) != KindBadURL {
		t.Fatalf("err = %v, want a bad-url error", err)
	}
}

func TestReader_FallsBackToThePagesOwnTextWhenExtractionFails(t *testing.T) {
	// A template-heavy page with enough text of its own.
	var b strings.Builder
	b.WriteString("<html><head><title>Portal</title></head><body><nav>")
	for i := range 60 {
		b.WriteString(`<a href="/section/` + string(rune('a'+i%26)) + `">Section link</a> `)
	}
	b.WriteString("</nav><div>")
	for i := range 6 {
		// Six stories, not one said six times (a copy is read once).
		n := strconv.Itoa(i + 1)
		b.WriteString(`<div class="teaser"><h3><a href="/story/` + n + `">A linked story title ` + n + `</a></h3><p>A short teaser sentence about story ` + n + ` that continues on another page.</p></div>`)
	}
	b.WriteString("</div><footer>Footer links</footer></body></html>")
	u := serve(t, 200, "text/html", b.String())
	quota := &provider.Error{Provider: "tavily", Op: "extract", Kind: provider.KindQuota, Status: 432}
	x := &fakeExtractor{name: "tavily", err: quota}
	r := loopbackReader(x)
	r.Order = ProvidersOnly
	p, err := r.Plan(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	if p.Action != ActionExtract {
		t.Skipf("the classifier reads this page as %v; the fallback needs a page that asks for extraction", p.Verdict)
	}
	res, err := r.Execute(context.Background(), p, Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != SourceLocalFallback || !strings.Contains(res.Note, "tavily (credit-or-quota-failed)") || len(res.Failures) != 1 {
		t.Errorf("source %s note %q failures %v", res.Source, res.Note, res.Failures)
	}
}

func TestReader_SaysWhyWhenNeitherTheProviderNorThePageHasText(t *testing.T) {
	u := serve(t, 200, "text/html", shell)
	_, err := (&Reader{Probe: ProbeConfig{AllowPrivate: true}}).Read(context.Background(), Request{URL: u})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindNoProvider || e.Why != "shows its content only after JavaScript runs" || e.LocalOnly {
		t.Fatalf("err = %v, want no-provider with the reason", err)
	}
	x := &fakeExtractor{name: "exa", err: &provider.Error{Provider: "exa", Kind: provider.KindAuth, Status: 401}}
	// A provider is configured, but the reading order keeps pages from it:
	// the error says so, and no key is missing.
	local := loopbackReader(x)
	local.Order = LocalOnly
	_, err = local.Read(context.Background(), Request{URL: u})
	if !errors.As(err, &e) || e.Kind != KindNoProvider || !e.LocalOnly || !strings.Contains(err.Error(), "the reading order is local only") {
		t.Fatalf("err = %v, want no-provider kept from the provider by the order", err)
	}
	_, err = loopbackReader(x).Read(context.Background(), Request{URL: u})
	if !errors.As(err, &e) || e.Kind != KindExtraction || len(e.Failures) != 1 || e.Failures[0].Kind != provider.KindAuth {
		t.Fatalf("err = %v, want extraction-failed with exa's auth failure", err)
	}
	if !strings.Contains(err.Error(), "exa (auth-failed)") {
		t.Errorf("message %q does not name the failure", err)
	}
}

func TestReader_ReadsTextAsServedAndSendsOtherDocumentsToTheProvider(t *testing.T) {
	u := serve(t, 200, "text/plain; charset=utf-8", "plain notes\nsecond line")
	res, err := (&Reader{Probe: ProbeConfig{AllowPrivate: true}}).Read(context.Background(), Request{URL: u})
	if err != nil || res.Source != SourceLocal || res.Content != "plain notes\nsecond line" || res.Format != provider.Text {
		t.Fatalf("res %+v err %v", res, err)
	}
	u = serve(t, 200, "application/octet-stream", "\x00\x01binary")
	x := &fakeExtractor{name: "x", page: &provider.Page{Content: "extracted"}}
	res, err = loopbackReader(x).Read(context.Background(), Request{URL: u})
	if err != nil || res.Source != SourceProvider || !res.Plan.Document() {
		t.Fatalf("res %+v err %v", res, err)
	}
}

func TestReader_AnEmptyExtractionIsAFailure(t *testing.T) {
	u := serve(t, 200, "text/html", shell)
	x := &fakeExtractor{name: "x", page: &provider.Page{Content: "  \n"}}
	_, err := loopbackReader(x).Read(context.Background(), Request{URL: u})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindExtraction || e.Failures[0].Kind != provider.KindUnsupported {
		t.Fatalf("err = %v, want an unsupported extraction failure", err)
	}
}

func TestPlanBody_ClassifiesASavedPageWithoutFetching(t *testing.T) {
	p := (&Reader{}).PlanBody("https://example.org/app", "", []byte(shell))
	if p.Action != ActionExtract || p.Verdict == nil || p.Verdict.Class != classify.BrowserRenderRequired {
		t.Errorf("plan %+v", p)
	}
}

func TestProbe_ClassifiesItsFailuresByType(t *testing.T) {
	// A server that never answers: a timeout.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	_, err := Probe(context.Background(), hang.URL, &ProbeConfig{AllowPrivate: true, Timeout: 200 * time.Millisecond})
	if FailureOf(err) != ProbeTimeout {
		t.Errorf("hanging server: %v (failure %q)", err, FailureOf(err))
	}
	// A TLS server whose certificate is not trusted.
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer tlsSrv.Close()
	_, err = Probe(context.Background(), tlsSrv.URL, &ProbeConfig{AllowPrivate: true, Timeout: 2 * time.Second})
	if FailureOf(err) != ProbeTLS {
		t.Errorf("untrusted certificate: %v (failure %q)", err, FailureOf(err))
	}
	// A port nothing listens on: the connection is refused.
	addr := fakeweb.RefusedAddr(t)
	_, err = Probe(context.Background(), "http://"+addr+"/", &ProbeConfig{AllowPrivate: true, Timeout: 2 * time.Second})
	if FailureOf(err) != ProbeRefused {
		t.Errorf("closed port: %v (failure %q)", err, FailureOf(err))
	}
}

func TestRefusedStatus(t *testing.T) {
	for code, want := range map[int]bool{401: true, 403: true, 406: true, 429: true, 451: true, 500: true, 503: true, 404: false, 410: false, 400: false, 200: false} {
		if got := RefusedStatus(code); got != want {
			t.Errorf("RefusedStatus(%d) = %v", code, got)
		}
	}
}
