package jina_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/jina"
	"github.com/webgate-dev/webgate/provider/providertest"
)

// start runs a fake Jina endpoint answering every request with a, and a
// client whose reader and search URLs both point at it. cfg's URLs and
// HTTP settings are filled in.
func start(t *testing.T, keys provider.KeySource, cfg jina.Config, a providertest.Answer) (*providertest.Server, *jina.Client) {
	t.Helper()
	srv := providertest.NewServer(t, bearer, func(int, providertest.Request) providertest.Answer { return a })
	cfg.ReaderURL, cfg.SearchURL = srv.URL, srv.URL
	if cfg.HTTP.AttemptTimeout == 0 {
		cfg.HTTP = providertest.HTTPConfig()
	}
	c, err := jina.New(keys, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func oneKey() *provider.Pool { return provider.NewPool(providertest.Secrets[:1], nil) }

func extract(c *jina.Client, format provider.Format) (*provider.Page, error) {
	return c.Extract(context.Background(), provider.ExtractRequest{URL: "https://example.org/article", Format: format})
}

func expectKind(t *testing.T, err error, want provider.Kind) *provider.Error {
	t.Helper()
	providertest.CheckNoSecrets(t, err, providertest.Secrets...)
	if k := provider.KindOf(err); k != want {
		t.Fatalf("KindOf = %q, want %q; err: %v", k, want, err)
	}
	var pe *provider.Error
	if !errors.As(err, &pe) {
		t.Fatalf("err %v is not a *provider.Error", err)
	}
	return pe
}

func TestNew_RejectsInvalidConfigurations(t *testing.T) {
	for name, cfg := range map[string]jina.Config{
		"relative reader URL":   {ReaderURL: "r.jina.ai"},
		"search URL with query": {SearchURL: "https://s.jina.ai/?q=x"},
		"return format":         {ReturnFormat: "screenshot"},
		"engine":                {Engine: "chrome"},
		"retain images":         {RetainImages: "some"},
		"reader timeout":        {ReaderTimeout: 181 * time.Second},
		"negative timeout":      {ReaderTimeout: -time.Second},
		"max tokens":            {MaxTokens: 100},
		"token budget":          {TokenBudget: -1},
		"max characters":        {MaxCharacters: -1},
		"max results":           {MaxResults: 21},
		"selector line break":   {RemoveSelector: "nav\r\nX-Evil: 1"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := jina.New(nil, &cfg); err == nil {
				t.Fatal("New accepted the configuration")
			} else if !strings.HasPrefix(err.Error(), "jina: ") {
				t.Errorf("error %q does not name the backend", err)
			}
		})
	}
}

func TestNew_AcceptsNilKeysAndNilConfig(t *testing.T) {
	c, err := jina.New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != "jina" || provider.NameOf(c) != "jina" {
		t.Errorf("Name() = %q", c.Name())
	}
}

func TestNew_DoesNotModifyTheCallersConfig(t *testing.T) {
	cfg := jina.Config{ReaderURL: "https://r.example/", ReaderTimeout: time.Minute}
	if _, err := jina.New(nil, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg != (jina.Config{ReaderURL: "https://r.example/", ReaderTimeout: time.Minute}) {
		t.Errorf("New modified its Config: %+v", cfg)
	}
}

func TestExtract_SendsTheURLInTheBodyAndTheOptionsAsHeaders(t *testing.T) {
	hc := providertest.HTTPConfig()
	hc.AttemptTimeout = 10 * time.Second
	srv, c := start(t, oneKey(), jina.Config{
		HTTP:            hc,
		Engine:          "browser",
		ReaderTimeout:   time.Minute, // capped below the 10s attempt timeout
		TargetSelector:  "article",
		RemoveSelector:  "nav, footer",
		WaitForSelector: "#main",
		RetainImages:    "none",
		NoCache:         true,
		MaxTokens:       2000,
		TokenBudget:     50000,
	}, fixture(t, "reader_ok.json"))
	if _, err := c.Extract(context.Background(), provider.ExtractRequest{URL: "https://example.org/a?b=1#c", Query: "ignored"}); err != nil {
		t.Fatal(err)
	}
	req := srv.Last()
	if req.Method != http.MethodPost || req.Path != "/" || string(req.Body) != `{"url":"https://example.org/a?b=1#c"}` {
		t.Errorf("request = %s %s %s", req.Method, req.Path, req.Body)
	}
	for name, want := range map[string]string{
		"Accept":              "application/json",
		"Content-Type":        "application/json",
		"Authorization":       "Bearer " + providertest.Secrets[0],
		"X-Respond-With":      "content",
		"X-Engine":            "browser",
		"X-Timeout":           "9",
		"X-Target-Selector":   "article",
		"X-Remove-Selector":   "nav, footer",
		"X-Wait-For-Selector": "#main",
		"X-Retain-Images":     "none",
		"X-No-Cache":          "true",
		"X-Max-Tokens":        "2000",
		"X-Token-Budget":      "50000",
	} {
		if got := req.Header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestExtract_SendsNoOptionalHeadersByDefault(t *testing.T) {
	srv, c := start(t, nil, jina.Config{}, fixture(t, "reader_ok.json"))
	if _, err := extract(c, ""); err != nil {
		t.Fatal(err)
	}
	for name := range srv.Last().Header {
		if strings.HasPrefix(name, "X-") && name != "X-Respond-With" {
			t.Errorf("unexpected header %s", name)
		}
	}
	if h := srv.Last().Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization = %q, want none without keys", h)
	}
}

func TestExtract_SendsNoTimeoutBelowOneSecondAfterTheCap(t *testing.T) {
	hc := providertest.HTTPConfig()
	hc.AttemptTimeout = 1500 * time.Millisecond
	srv, c := start(t, nil, jina.Config{HTTP: hc, ReaderTimeout: 30 * time.Second}, fixture(t, "reader_ok.json"))
	if _, err := extract(c, ""); err != nil {
		t.Fatal(err)
	}
	if v := srv.Last().Header.Get("X-Timeout"); v != "" {
		t.Errorf("X-Timeout = %q, want none", v)
	}
}

func TestExtract_MapsFormatsOntoRespondWith(t *testing.T) {
	for _, tc := range []struct {
		configured string
		format     provider.Format
		sent       string
		got        provider.Format
		body       string
	}{
		{"", "", "content", provider.Markdown, `{"code":200,"data":{"url":"https://example.org/article","content":"# A"}}`},
		{"", provider.Markdown, "content", provider.Markdown, `{"code":200,"data":{"content":"# A"}}`},
		{"markdown", "", "markdown", provider.Markdown, `{"code":200,"data":{"content":"# A"}}`},
		{"markdown", provider.Markdown, "markdown", provider.Markdown, `{"code":200,"data":{"content":"# A"}}`},
		{"text", provider.Markdown, "content", provider.Markdown, `{"code":200,"data":{"content":"# A"}}`},
		{"", provider.Text, "text", provider.Text, `{"code":200,"data":{"text":"A","content":"# ignored"}}`},
		{"text", "", "text", provider.Text, `{"code":200,"data":{"text":"A"}}`},
		{"", "html", "html", "html", `{"code":200,"data":{"html":"<h1>A</h1>"}}`},
	} {
		srv, c := start(t, nil, jina.Config{ReturnFormat: tc.configured}, providertest.Answer{Body: tc.body})
		p, err := extract(c, tc.format)
		if err != nil {
			t.Fatalf("configured %q, format %q: %v", tc.configured, tc.format, err)
		}
		if rw := srv.Last().Header.Get("X-Respond-With"); rw != tc.sent {
			t.Errorf("configured %q, format %q: X-Respond-With %q, want %q", tc.configured, tc.format, rw, tc.sent)
		}
		if p.Format != tc.got || p.Content == "" || strings.Contains(p.Content, "ignored") {
			t.Errorf("configured %q, format %q: page %+v", tc.configured, tc.format, p)
		}
		if p.URL != "https://example.org/article" {
			t.Errorf("Page.URL = %q, want the request's URL when data.url is missing", p.URL)
		}
	}
}

func TestExtract_RefusesBadRequestsBeforeAnyRequest(t *testing.T) {
	srv, c := start(t, nil, jina.Config{}, fixture(t, "reader_ok.json"))
	for _, req := range []provider.ExtractRequest{
		{URL: "https://example.org/", Format: "pdf"},
		{URL: ""},
		{URL: "example.org/page"},
		{URL: "file:///etc/passwd"},
	} {
		_, err := c.Extract(context.Background(), req)
		expectKind(t, err, provider.KindBadRequest)
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("server received %d requests, want 0", n)
	}
}

func TestExtract_ReturnsThePage(t *testing.T) {
	_, c := start(t, oneKey(), jina.Config{MaxCharacters: 12}, fixture(t, "reader_ok.json"))
	p, err := extract(c, "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "An article" || p.URL != "https://example.org/article" || p.Content != "# An article" ||
		p.Format != provider.Markdown || p.Provider != "jina" {
		t.Errorf("page = %+v", p)
	}
	if p.Usage == nil || *p.Usage != (provider.Usage{Tokens: 42}) {
		t.Errorf("Usage = %+v, want 42 tokens", p.Usage)
	}
}

func TestExtract_ReadsTheTokensUsed(t *testing.T) {
	page := func(usage, meta string) string {
		return `{"code":200,"status":20000,"data":{"url":"https://example.org/article","content":"# A"` + usage + `}` + meta + `}`
	}
	for _, tc := range []struct {
		name string
		a    providertest.Answer
		want *provider.Usage
	}{
		{"data.usage", providertest.Answer{Body: page(`,"usage":{"tokens":42}`, `,"meta":{"usage":{"tokens":42}}`)}, &provider.Usage{Tokens: 42}},
		{"meta.usage alone", providertest.Answer{Body: page(``, `,"meta":{"usage":{"tokens":"17"}}`)}, &provider.Usage{Tokens: 17}},
		{"none", providertest.Answer{Body: page(``, ``)}, nil},
		{"not a whole number", providertest.Answer{Body: page(`,"usage":{"tokens":1.5}`, ``)}, nil},
		{"negative", providertest.Answer{Body: page(`,"usage":{"tokens":-3}`, ``)}, nil},
		{"usage of another shape", providertest.Answer{Body: page(`,"usage":7`, `,"meta":[]`)}, nil},
		{"the text layout's header", providertest.Answer{Header: http.Header{"Content-Type": {"text/plain"}, "X-Usage-Tokens": {"128"}},
			Body: readFile(t, "reader_text.txt")}, &provider.Usage{Tokens: 128}},
		{"the text layout without the header", providertest.Answer{Header: http.Header{"Content-Type": {"text/plain"}},
			Body: readFile(t, "reader_text.txt")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := start(t, nil, jina.Config{}, tc.a)
			p, err := extract(c, "")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Usage, tc.want) {
				t.Errorf("Usage = %+v, want %+v", p.Usage, tc.want)
			}
		})
	}
}

func TestExtract_DrawsKeysOncePerRequest(t *testing.T) {
	pool := provider.NewPool(providertest.Secrets[:2], &provider.PoolConfig{Order: provider.RoundRobin})
	srv, c := start(t, pool, jina.Config{}, fixture(t, "reader_ok.json"))
	for range 2 {
		if _, err := extract(c, ""); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	if reqs[0].Key == reqs[1].Key {
		t.Errorf("both requests used key %q; a round-robin pool must alternate", reqs[0].Key)
	}
	if pool.Outcomes(1)["ok"] != 1 || pool.Outcomes(2)["ok"] != 1 {
		t.Errorf("pool outcomes %v, %v; want one success each", pool.Outcomes(1), pool.Outcomes(2))
	}
}

func TestExtract_ReportsAFailedTargetAsUnsupported(t *testing.T) {
	for name, tc := range map[string]struct {
		body, message string
	}{
		"404 warning": {readFile(t, "reader_target_404.json"), "Target URL returned error 404: Not Found"},
		"second warning line": {`{"code":200,"data":{"content":"x","warning":"This is a cached snapshot of the original page, consider retry with caching opt-out.\nTarget URL returned error 503: Service Unavailable"}}`,
			"Target URL returned error 503: Service Unavailable"},
		"CAPTCHA": {`{"code":200,"data":{"content":"Verify you are human","warning":"This page maybe requiring CAPTCHA, please make sure you are authorized to access this page."}}`,
			"This page maybe requiring CAPTCHA, please make sure you are authorized to access this page."},
		"empty content": {`{"code":200,"data":{"title":"t","content":"  "}}`, "no content returned for the URL"},
		"no data":       {`{"code":200,"status":20000,"data":null}`, "no content returned for the URL"},
		"422 envelope in a 200": {envelope(422, "AssertionFailureError", 42206, "No content available for URL https://example.org/article"),
			"code 422: No content available for URL https://example.org/article"},
	} {
		t.Run(name, func(t *testing.T) {
			srv, c := start(t, nil, jina.Config{}, providertest.Answer{Body: tc.body})
			_, err := extract(c, "")
			pe := expectKind(t, err, provider.KindUnsupported)
			if pe.Message != tc.message {
				t.Errorf("Message = %q, want %q", pe.Message, tc.message)
			}
			if n := srv.Count(); n != 1 {
				t.Errorf("server received %d requests, want 1", n)
			}
		})
	}
}

func TestExtract_KeepsAPageWithAnInformationalWarning(t *testing.T) {
	_, c := start(t, nil, jina.Config{}, fixture(t, "reader_not_loaded.json"))
	p, err := extract(c, "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Content != "Loading the first part of the page." {
		t.Errorf("Content = %q", p.Content)
	}
}

func TestExtract_ReadsTheTextLayout(t *testing.T) {
	_, c := start(t, nil, jina.Config{}, providertest.Answer{Header: http.Header{"Content-Type": {"text/plain"}}, Body: readFile(t, "reader_text.txt")})
	p, err := extract(c, "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "An article" || p.URL != "https://example.org/article" || p.Content != "# An article\n\nThe article's first paragraph." {
		t.Errorf("page = %+v", p)
	}
}

func TestExtract_ClassifiesStatusesThatDescribeThePage(t *testing.T) {
	for name, tc := range map[string]struct {
		answer providertest.Answer
		kind   provider.Kind
	}{
		"422 no content":       {errorAnswer(422, "AssertionFailureError", 42206, "No content available for URL https://example.org/article"), provider.KindUnsupported},
		"422 upstream failure": {errorAnswer(422, "DownstreamServiceFailureError", 42205, "Failed to offload scrap"), provider.KindTransient},
		"451 refused":          {errorAnswer(451, "SecurityCompromiseError", 45102, "Circular hostname: r.jina.ai"), provider.KindUnsupported},
		"413 too large":        {errorAnswer(413, "TargetFileTooLargeError", 41302, "File too large"), provider.KindUnsupported},
		"409 over budget":      {errorAnswer(409, "BudgetExceededError", 40904, "Token budget (100) exceeded"), provider.KindUnsupported},
		"409 lock conflict":    {errorAnswer(409, "LockConflictError", 40903, "Lock conflict"), provider.KindTransient},
		"data not an object":   {providertest.Answer{Body: `{"code":200,"data":"text"}`}, provider.KindUnknown},
	} {
		t.Run(name, func(t *testing.T) {
			_, c := start(t, nil, jina.Config{}, tc.answer)
			_, err := extract(c, "")
			expectKind(t, err, tc.kind)
		})
	}
}

func TestSearch_ClassifiesStatusesAsRequestErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		answer providertest.Answer
		kind   provider.Kind
	}{
		"409 over budget":      {errorAnswer(409, "BudgetExceededError", 40904, "Token budget exceeded"), provider.KindBadRequest},
		"451 refused":          {errorAnswer(451, "HarmfulContentError", 45101, "Refused"), provider.KindBadRequest},
		"422 upstream failure": {errorAnswer(422, "DownstreamServiceFailureError", 42205, "Search failed"), provider.KindTransient},
		"422 other":            {errorAnswer(422, "SubmittedDataMalformedError", 42203, "Malformed"), provider.KindBadRequest},
		"data not a list":      {providertest.Answer{Body: `{"code":200,"data":{"url":"x"}}`}, provider.KindUnknown},
	} {
		t.Run(name, func(t *testing.T) {
			_, c := start(t, oneKey(), jina.Config{}, tc.answer)
			_, err := c.Search(context.Background(), provider.Query{Text: "go"})
			expectKind(t, err, tc.kind)
		})
	}
}

func TestErrors_CarryJinasClassNameAndMessage(t *testing.T) {
	_, c := start(t, oneKey(), jina.Config{}, errorAnswer(402, "InsufficientBalanceError", 40203, "Account balance not enough to run this query, please recharge."))
	_, err := extract(c, "")
	pe := expectKind(t, err, provider.KindQuota)
	if pe.Tag != "InsufficientBalanceError" || pe.Status != 402 {
		t.Errorf("Tag %q, Status %d", pe.Tag, pe.Status)
	}
	want := "jina extract: quota (HTTP 402 InsufficientBalanceError): Account balance not enough to run this query, please recharge."
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
}

func TestRateLimit_UsesTheBodysRetryAfterWhenTheHeaderHasNone(t *testing.T) {
	for name, body := range map[string]string{
		"seconds": `{"data":null,"code":429,"name":"RateLimitTriggeredError","status":42903,"message":"Per IP rate limit exceeded","retryAfter":3600}`,
		"date": `{"data":null,"code":429,"name":"RateLimitTriggeredError","status":42903,"message":"Rate limit exceeded (20 times in last 60 seconds)","retryAfterDate":"` +
			time.Now().Add(time.Hour+time.Minute).UTC().Format(time.RFC3339) + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv, c := start(t, nil, jina.Config{}, providertest.Answer{Status: 429, Body: body})
			_, err := extract(c, "")
			pe := expectKind(t, err, provider.KindRateLimited)
			if pe.RetryAfter < time.Hour || pe.RetryAfter > time.Hour+2*time.Minute {
				t.Errorf("RetryAfter = %v, want about an hour (from the body)", pe.RetryAfter)
			}
			if n := srv.Count(); n != 1 {
				t.Errorf("server received %d requests, want 1 (the wait exceeds MaxRetryAfter)", n)
			}
		})
	}
}

func TestRateLimit_PrefersTheRetryAfterHeader(t *testing.T) {
	_, c := start(t, nil, jina.Config{}, providertest.Answer{Status: 429, Header: http.Header{"Retry-After": {"7200"}},
		Body: `{"code":429,"name":"RateLimitTriggeredError","message":"slow down","retryAfter":2}`})
	_, err := extract(c, "")
	if pe := expectKind(t, err, provider.KindRateLimited); pe.RetryAfter != 2*time.Hour {
		t.Errorf("RetryAfter = %v, want 2h (from the header)", pe.RetryAfter)
	}
}

func TestSearch_SendsTheQueryFieldsAsJinaParameters(t *testing.T) {
	srv, c := start(t, oneKey(), jina.Config{}, fixture(t, "search_ok.json"))
	_, err := c.Search(context.Background(), provider.Query{
		Text:           " go generics ",
		MaxResults:     30,
		IncludeDomains: []string{"https://Go.dev/doc", "pkg.go.dev"},
		ExcludeDomains: []string{"example.com"},
		TimeRange:      provider.PastWeek, // not expressible; ignored
		Country:        "US",
		Language:       "en-US",
	})
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Last()
	if err := validateSearchRequest(req); err != nil {
		t.Error(err)
	}
	want := url.Values{
		"q":     {"go generics -site:example.com"},
		"count": {"20"},
		"site":  {"go.dev", "pkg.go.dev"},
		"gl":    {"us"},
		"hl":    {"en"},
	}
	got, _ := url.ParseQuery(req.RawQuery)
	if got.Encode() != want.Encode() {
		t.Errorf("parameters\n got %s\nwant %s", got.Encode(), want.Encode())
	}
	if rw := req.Header.Get("X-Respond-With"); rw != "no-content" {
		t.Errorf("X-Respond-With = %q, want no-content", rw)
	}
	if req.Key != providertest.Secrets[0] {
		t.Errorf("request carried key %q", req.Key)
	}
}

func TestSearch_MapsLanguagesOntoJinasHL(t *testing.T) {
	for lang, want := range map[string]string{"en": "en", "EN-gb": "en", "zh-CN": "zh-cn", "pt_BR": "pt-br", "es-419": "es-419", "fil": "fil"} {
		srv, c := start(t, oneKey(), jina.Config{}, fixture(t, "search_ok.json"))
		if _, err := c.Search(context.Background(), provider.Query{Text: "go", Language: lang}); err != nil {
			t.Fatal(err)
		}
		if got, _ := url.ParseQuery(srv.Last().RawQuery); got.Get("hl") != want {
			t.Errorf("language %q: hl %q, want %q", lang, got.Get("hl"), want)
		}
	}
}

func TestSearch_RefusesInvalidFiltersBeforeAnyRequest(t *testing.T) {
	srv, c := start(t, oneKey(), jina.Config{}, fixture(t, "search_ok.json"))
	for _, q := range []provider.Query{{Text: " "}, {Text: "go", Country: "usa"}, {Text: "go", Language: "english"}, {Text: "go", Language: "e1"}} {
		_, err := c.Search(context.Background(), q)
		expectKind(t, err, provider.KindBadRequest)
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("server received %d requests, want 0", n)
	}
}

func TestSearch_FailsWithAuthAndSendsNothingWithoutAKey(t *testing.T) {
	for name, keys := range map[string]provider.KeySource{"nil source": nil, "empty pool": provider.NewPool(nil, nil)} {
		t.Run(name, func(t *testing.T) {
			srv, c := start(t, keys, jina.Config{}, fixture(t, "search_ok.json"))
			_, err := c.Search(context.Background(), provider.Query{Text: "go"})
			expectKind(t, err, provider.KindAuth)
			if !errors.Is(err, provider.ErrNoKeys) {
				t.Errorf("err %v does not wrap provider.ErrNoKeys", err)
			}
			if n := srv.Count(); n != 0 {
				t.Errorf("server received %d requests, want 0", n)
			}
		})
	}
}

func TestSearch_ReturnsRankedResults(t *testing.T) {
	_, c := start(t, oneKey(), jina.Config{}, fixture(t, "search_ok.json"))
	res, err := c.Search(context.Background(), provider.Query{Text: "go language"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Provider != "jina" || res.Query != "go language" || len(res.Results) != 2 {
		t.Fatalf("results = %+v", res)
	}
	r0, r1 := res.Results[0], res.Results[1]
	if r0.URL != "https://go.dev/" || r0.Title != "The Go Programming Language" || !strings.HasPrefix(r0.Snippet, "Go is an open source") ||
		r0.Score != 1 || r0.Provider != "jina" || !r0.Published.Equal(time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("result 0 = %+v", r0)
	}
	if r1.Score != 0.5 || !r1.Published.IsZero() {
		t.Errorf("result 1: Score %v, Published %v", r1.Score, r1.Published)
	}
	// meta.usage is what the search was charged (at least 10,000 tokens),
	// more than the hits' own counts.
	if res.Usage == nil || *res.Usage != (provider.Usage{Tokens: 10000}) {
		t.Errorf("Usage = %+v, want meta.usage's 10000 tokens", res.Usage)
	}
}

func TestSearch_SumsTheHitsTokensWithoutMetaUsage(t *testing.T) {
	for body, want := range map[string]*provider.Usage{
		`{"code":200,"data":[{"url":"https://a.example","usage":{"tokens":300}},{"url":"https://b.example","usage":{"tokens":200}}]}`: {Tokens: 500},
		`{"code":200,"data":[{"url":"https://a.example"}]}`:                                                                           nil,
	} {
		_, c := start(t, oneKey(), jina.Config{}, providertest.Answer{Body: body})
		res, err := c.Search(context.Background(), provider.Query{Text: "go"})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Usage, want) {
			t.Errorf("%s: Usage = %+v, want %+v", body, res.Usage, want)
		}
	}
}

func TestSearch_ReturnsContentOnlyWhenAskedFor(t *testing.T) {
	body := `{"code":200,"data":[{"title":"A","url":"https://a.example","description":"d","content":"0123456789abcdef"},{"title":"no URL","content":"x"}]}`
	srv, c := start(t, oneKey(), jina.Config{IncludeContent: true, MaxCharacters: 10, MaxResults: 1}, providertest.Answer{Body: body})
	res, err := c.Search(context.Background(), provider.Query{Text: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if rw := srv.Last().Header.Get("X-Respond-With"); rw != "" {
		t.Errorf("X-Respond-With = %q, want none with IncludeContent", rw)
	}
	if got, _ := url.ParseQuery(srv.Last().RawQuery); got.Get("count") != "1" {
		t.Errorf("count = %q, want 1", got.Get("count"))
	}
	if len(res.Results) != 1 || res.Results[0].Content != "0123456789" {
		t.Errorf("results = %+v", res.Results)
	}
}

func TestSearch_TreatsNoResultsAsAnEmptySuccess(t *testing.T) {
	for name, a := range map[string]providertest.Answer{
		"422 AssertionFailureError":      {Status: 422, Body: readFile(t, "search_no_results.json")},
		"AssertionFailureError in 200":   {Body: readFile(t, "search_no_results.json")},
		"empty list":                     fixture(t, "search_empty.json"),
		"null data":                      {Body: `{"code":200,"status":20000,"data":null}`},
		"AssertionFailureError, no code": {Status: 422, Body: `{"name":"AssertionFailureError","message":"No search results available for query go"}`},
	} {
		t.Run(name, func(t *testing.T) {
			srv, c := start(t, oneKey(), jina.Config{}, a)
			res, err := c.Search(context.Background(), provider.Query{Text: "go"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Results == nil || len(res.Results) != 0 || res.Provider != "jina" {
				t.Errorf("results = %+v", res)
			}
			if n := srv.Count(); n != 1 {
				t.Errorf("server received %d requests, want 1", n)
			}
		})
	}
}

func TestExtract_MovesPastAnExhaustedKeyButNeverFallsBackToAnonymous(t *testing.T) {
	pool := provider.NewPool(providertest.Secrets[:2], &provider.PoolConfig{Order: provider.RoundRobin})
	srv, c := start(t, pool, jina.Config{}, errorAnswer(402, "InsufficientBalanceError", 40203, "recharge"))
	_, err := extract(c, "")
	expectKind(t, err, provider.KindQuota)
	for i, r := range srv.Requests() {
		if r.Key == "" {
			t.Errorf("request %d was anonymous", i)
		}
	}
	if n := srv.Count(); n != 2 {
		t.Errorf("server received %d requests, want 2 (one per key)", n)
	}
}
