package webpage

import (
	"context"
	"errors"
	"github.com/webgate-dev/webgate/webpage/pdf"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/internal/fakeweb"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/tavily"
)

// mapCache is a Cache over a map, shared by the readers of a test as a
// store is shared by the processes of a machine.
type mapCache struct {
	mu sync.Mutex
	m  map[string]*Cached
}

func (c *mapCache) Get(_ context.Context, key string) (*Cached, time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[key]
	return p, time.Now(), ok
}

func (c *mapCache) Put(_ context.Context, key string, page *Cached) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*Cached{}
	}
	c.m[key] = page
}

func TestReader_ACachedLoopbackPageIsNotServedToAReaderThatMayNotReadIt(t *testing.T) {
	cache := &mapCache{}
	u := serve(t, 200, "text/html", article) + "/article.html?x=1"
	private := &Reader{Probe: ProbeConfig{AllowPrivate: true}, Cache: cache}
	if res, err := private.Read(context.Background(), Request{URL: u}); err != nil || res.Source != SourceLocal {
		t.Fatalf("a reader allowed loopback: %+v %v", res, err)
	}
	if res, err := private.Read(context.Background(), Request{URL: u}); err != nil || res.Cached.IsZero() {
		t.Fatalf("the second read is not from the cache: %+v %v", res, err)
	}
	public := &Reader{Cache: cache}
	res, err := public.Read(context.Background(), Request{URL: u})
	if KindOf(err) != KindBlocked || res != nil {
		t.Fatalf("a reader not allowed loopback got %+v, %v; want the refusal a fresh read gets", res, err)
	}
}

func TestReader_AnEntryReadFromAPrivateAddressIsNotServedWhateverItsKey(t *testing.T) {
	// A store shared with an older version, or a cache that mixes keys:
	// the entry itself says where the page came from, and the address
	// rule decides.
	cache := &mapCache{}
	public := &Reader{Cache: cache}
	for _, c := range []*Cached{
		{URL: "https://intranet.example/", Content: "secret", Addrs: []netip.Addr{netip.MustParseAddr("10.0.0.7")}},
		{URL: "https://intranet.example/", FinalURL: "http://127.0.0.1:8080/", Content: "secret"},
		{URL: "https://intranet.example/", Redirects: []string{"http://[::1]/"}, FinalURL: "https://intranet.example/x", Content: "secret"},
	} {
		cache.Put(context.Background(), public.readKey("https://intranet.example/"), c)
		if p := public.cachedPlan(context.Background(), "https://intranet.example/"); p != nil {
			t.Errorf("entry %+v answered a reader not allowed private addresses", c)
		}
	}
	ok := &Cached{URL: "https://intranet.example/", Content: "public", Addrs: []netip.Addr{netip.MustParseAddr("93.184.215.14")}}
	cache.Put(context.Background(), public.readKey("https://intranet.example/"), ok)
	if p := public.cachedPlan(context.Background(), "https://intranet.example/"); p == nil {
		t.Error("an entry read from a public address was not served")
	}
}

func TestReader_CacheKeysCarryWhatChangesTheAnswer(t *testing.T) {
	base := &Reader{}
	u := "https://example.org/a"
	for name, r := range map[string]*Reader{
		"allow private":          {Probe: ProbeConfig{AllowPrivate: true}},
		"a self-hosted provider": {PrivateExtractor: true},
		"order":                  {Order: ProvidersFirst},
		"a browser":              {Renderer: &fakeRenderer{}},
		"render template-heavy":  {RenderTemplateHeavy: true},
		"max bytes":              {Probe: ProbeConfig{MaxBytes: 1 << 10}},
		"pdftotext off":          {PDF: pdf.Options{Pdftotext: "off"}},
		"a pdftotext program":    {PDF: pdf.Options{Pdftotext: "/opt/poppler/bin/pdftotext"}},
		"pages of a PDF":         {PDF: pdf.Options{MaxPages: 3}},
	} {
		if r.readKey(u) == base.readKey(u) {
			t.Errorf("%s: same key as the default reader's", name)
		}
	}
	if (&Reader{PDF: pdf.Options{Timeout: time.Second}}).readKey(u) != base.readKey(u) {
		t.Error("the PDF reader's timeout changes the key, though not the answer")
	}
	if (&Reader{Probe: ProbeConfig{Timeout: time.Second}}).readKey(u) != base.readKey(u) {
		t.Error("the probe's timeout changes the key, though not the answer")
	}
	if extractKey(u, "pricing") == extractKey(u, "") {
		t.Error("the prompt an extraction provider selects by is not in its key")
	}
}

func TestReader_AProvidersReadForOnePromptIsNotServedForAnother(t *testing.T) {
	cache := &mapCache{}
	x := &fakeExtractor{name: "x", page: &provider.Page{Content: "the parts about pricing"}}
	u := serve(t, 200, "text/html", shell)
	r := loopbackReader(x)
	r.Cache = cache
	if res, err := r.Read(context.Background(), Request{URL: u, Prompt: "pricing"}); err != nil || res.Source != SourceProvider {
		t.Fatalf("%+v %v", res, err)
	}
	x.page = &provider.Page{Content: "the parts about the team"}
	res, err := r.Read(context.Background(), Request{URL: u, Prompt: "team"})
	if err != nil || res.Content != "the parts about the team" || x.calls.Load() != 2 {
		t.Errorf("another prompt got %q (provider calls %d), %v", res.Content, x.calls.Load(), err)
	}
	if res, err := r.Read(context.Background(), Request{URL: u, Prompt: "team"}); err != nil || res.Content != "the parts about the team" || x.calls.Load() != 2 {
		t.Errorf("the same prompt again was not answered from the cache: %+v (provider calls %d), %v", res, x.calls.Load(), err)
	}
}

func TestReader_NeverSendsAPrivatePageToAnExtractionProvider(t *testing.T) {
	page := serve(t, 200, "text/html", shell)
	port := page[strings.LastIndex(page, ":")+1:]
	fake := &fakeweb.Tavily{Key: "k", Pages: map[string]string{}}
	for _, u := range []string{page + "/app", "http://localhost:" + port + "/app"} {
		fake.Pages[u] = "# Leaked\n\nThe provider read the private page."
	}
	x, err := tavily.New(provider.NewPool([]string{"k"}, nil), &tavily.Config{BaseURL: fake.Start(t)})
	if err != nil {
		t.Fatal(err)
	}
	r := &Reader{Extractor: x, Probe: ProbeConfig{AllowPrivate: true}, Cache: &mapCache{}}
	for _, u := range []string{page + "/app", "http://localhost:" + port + "/app"} {
		res, err := r.Read(context.Background(), Request{URL: u, NoFallback: true})
		var we *Error
		if !errors.As(err, &we) || we.Kind != KindPrivate || !strings.Contains(err.Error(), "127.0.0.1 is a loopback address") {
			t.Errorf("%s: res %+v, err %v; want a private-address error", u, res, err)
		}
		if we != nil && !strings.Contains(strings.Join(we.Misses, "; "), "provider: not sent to an extraction provider") {
			t.Errorf("%s: misses %q do not say why the provider was skipped", u, we.Misses)
		}
		if _, _, err := r.Extract(context.Background(), u, ""); KindOf(err) != KindPrivate {
			t.Errorf("Extract(%s) = %v, want a private-address error", u, err)
		}
	}
	for _, u := range []string{"http://10.1.2.3/", "http://169.254.169.254/latest/meta-data/", "http://printer.local/", "http://[::1]/"} {
		if _, _, err := r.Extract(context.Background(), u, ""); KindOf(err) != KindPrivate {
			t.Errorf("Extract(%s) = %v, want a private-address error", u, err)
		}
	}
	if n := fake.Count("/extract"); n != 0 {
		t.Errorf("the extraction provider was asked %d times for private pages", n)
	}
	// A self-hosted provider may read them, but never a metadata address.
	r.PrivateExtractor = true
	if res, err := r.Read(context.Background(), Request{URL: page + "/app"}); err != nil || res.Source != SourceProvider {
		t.Errorf("a self-hosted provider: %+v %v", res, err)
	}
	if _, _, err := r.Extract(context.Background(), "http://169.254.169.254/", ""); KindOf(err) != KindPrivate {
		t.Errorf("a metadata address went to a self-hosted provider: %v", err)
	}
}

func TestReader_PrivateTargetAsksNoResolverAboutReservedNames(t *testing.T) {
	r := &Reader{}
	if err := r.privateTarget(context.Background(), []string{"https://docs.example/a", "https://x.test/", "https://y.invalid/"}, nil); err != nil {
		t.Errorf("a reserved name was judged private: %v", err)
	}
	if err := r.privateTarget(context.Background(), []string{"https://docs.example/a"}, []netip.Addr{netip.MustParseAddr("192.168.1.2")}); err == nil {
		t.Error("a page the probe read from a private address was not judged private")
	}
}

func TestReader_ACachedReadDescribesThePageAsTheFreshOneDid(t *testing.T) {
	page := `<html lang="en-GB"><head><title>Ice on the mill river | Field Notes</title>
	<meta property="og:site_name" content="Field Notes"><meta property="og:type" content="article">
	<meta name="author" content="Ruth Okafor"><meta property="article:published_time" content="2024-02-03T08:00:00Z"></head>
	<body><main><article><h1>Ice on the mill river</h1>` + strings.Repeat("<p>Every winter the river freezes from the banks inward, and the town measures the ice before anyone walks on it.</p>", 8) +
		`</article></main></body></html>`
	u := serve(t, 200, "text/html", page) + "/ice"
	r := &Reader{Probe: ProbeConfig{AllowPrivate: true}, Cache: &mapCache{}}
	fresh, err := r.Read(context.Background(), Request{URL: u})
	if err != nil || !fresh.Cached.IsZero() {
		t.Fatalf("first read: %+v %v", fresh, err)
	}
	if fresh.Mode != ConvertArticle || fresh.Byline == "" || fresh.SiteName == "" || fresh.Language == "" || fresh.Published.IsZero() {
		t.Fatalf("the fresh read lacks what the test compares: mode %q, metadata %+v", fresh.Mode, fresh.Metadata)
	}
	cached, err := r.Read(context.Background(), Request{URL: u})
	if err != nil || cached.Cached.IsZero() {
		t.Fatalf("the second read is not from the cache: %+v %v", cached, err)
	}
	if cached.Mode != fresh.Mode || cached.Metadata != fresh.Metadata || cached.Title != fresh.Title || cached.Source != fresh.Source {
		t.Errorf("cached read: mode %q, metadata %+v, title %q, source %q; fresh: %q, %+v, %q, %q",
			cached.Mode, cached.Metadata, cached.Title, cached.Source, fresh.Mode, fresh.Metadata, fresh.Title, fresh.Source)
	}
	fv, cv := fresh.Plan.Verdict, cached.Plan.Verdict
	if fv == nil || cv == nil || cv.Class != fv.Class || cv.Confidence != fv.Confidence || cv.Article != fv.Article || !fv.Article {
		t.Errorf("cached verdict %+v, fresh %+v", cv, fv)
	}
	if cached.Plan.ContentType != fresh.Plan.ContentType || cached.Plan.Action != fresh.Plan.Action {
		t.Errorf("cached plan %q %q, fresh %q %q", cached.Plan.ContentType, cached.Plan.Action, fresh.Plan.ContentType, fresh.Plan.Action)
	}
}
