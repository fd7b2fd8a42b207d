package webtools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/webpage"
)

// longText is a plain-text document of about 12,000 characters whose
// paragraphs hold characters outside the Basic Multilingual Plane (two
// UTF-16 code units each) and Markdown links.
func longText() string {
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "Paragraph %d 😀 talks about 𝄞 music and [the notes of part %d](https://example.org/notes/%d) at length; ", i, i, i)
		b.WriteString(strings.Repeat("more words follow here ", 5))
		b.WriteString("\n\n")
	}
	return strings.TrimSpace(b.String())
}

// page reads one page of a result that Fetch would return for content.
func page(t *testing.T, content string, offset, max int) *webtools.FetchResult {
	t.Helper()
	r := &webtools.FetchResult{URL: "https://example.org/doc", Path: webtools.PathReadable, Content: content}
	if err := r.Page(offset, max); err != nil {
		t.Fatalf("Page(%d, %d): %v", offset, max, err)
	}
	return r
}

func TestFetchResultPage_PagesAddUpToTheContentAndTheLastHasNoNextOffset(t *testing.T) {
	content := longText()
	total := webpage.TextLen(content)
	var joined strings.Builder
	offset, pages := 0, 0
	for {
		r := page(t, content, offset, 1000)
		pages++
		if r.Offset != offset || r.TotalChars != total {
			t.Fatalf("page %d: offset %d total %d, want %d and %d", pages, r.Offset, r.TotalChars, offset, total)
		}
		if !utf8.ValidString(r.Content) || webpage.TextLen(r.Content) > 1000 {
			t.Fatalf("page %d: %d code units, valid %v", pages, webpage.TextLen(r.Content), utf8.ValidString(r.Content))
		}
		if i, j := strings.LastIndex(r.Content, "["), strings.LastIndex(r.Content, ")"); i > j {
			t.Errorf("page %d splits a Markdown link: …%q", pages, r.Content[max(0, len(r.Content)-60):])
		}
		joined.WriteString(r.Content)
		text := r.Text(0)
		end := offset + webpage.TextLen(r.Content)
		if r.NextOffset == nil {
			if end != total || !strings.HasSuffix(text, fmt.Sprintf("[Characters %d–%d of %d: the end of the page.]\n", offset, total, total)) {
				t.Fatalf("last page: end %d, text ends %q", end, text[max(0, len(text)-80):])
			}
			raw, _ := json.Marshal(r)
			if !strings.Contains(string(raw), `"next_offset":null`) {
				t.Errorf("JSON of the last page: %s", raw[max(0, len(raw)-120):])
			}
			break
		}
		if *r.NextOffset != end || !strings.HasSuffix(text, fmt.Sprintf("[Characters %d–%d of %d; next: offset=%d.]\n", offset, end, total, end)) {
			t.Fatalf("page %d: next %d end %d, text ends %q", pages, *r.NextOffset, end, text[max(0, len(text)-80):])
		}
		if strings.Contains(text, "Content cut to fit") {
			t.Errorf("a page was fitted by relevance")
		}
		offset = *r.NextOffset
	}
	if joined.String() != content {
		t.Fatalf("the %d pages do not add up to the content", pages)
	}
	if pages < 12 {
		t.Errorf("%d pages of at most 1000 characters for %d characters", pages, total)
	}
}

func TestFetchResultPage_NeverSplitsASurrogatePair(t *testing.T) {
	content := "ab😀cd😀😀ef"
	// A page of 3 would end inside the first emoji (code units 2–3).
	r := page(t, content, 0, 3)
	if r.Content != "ab" || *r.NextOffset != 2 {
		t.Errorf("page = %q next %v", r.Content, *r.NextOffset)
	}
	// An offset inside a pair starts at the pair.
	r = page(t, content, 3, 4)
	if r.Offset != 2 || r.Content != "😀cd" || *r.NextOffset != 6 {
		t.Errorf("page = %q offset %d next %v", r.Content, r.Offset, *r.NextOffset)
	}
	// The end of the content.
	r = page(t, content, 6, 100)
	if r.Content != "😀😀ef" || r.NextOffset != nil || r.TotalChars != 12 {
		t.Errorf("page = %q next %v total %d", r.Content, r.NextOffset, r.TotalChars)
	}
}

func TestFetchResultPage_RejectsOffsetsPastTheEndAndNegativeValues(t *testing.T) {
	for _, tc := range []struct{ offset, max int }{{-1, 10}, {0, -5}, {12, 10}, {500, 10}} {
		r := &webtools.FetchResult{Path: webtools.PathReadable, Content: "twelve chars"}
		if e := reasonOf(t, r.Page(tc.offset, tc.max)); e.Reason != webtools.BadInput {
			t.Errorf("Page(%d, %d): %+v", tc.offset, tc.max, e)
		}
	}
	// An empty document has one empty page.
	r := page(t, "", 0, 10)
	if r.Content != "" || r.NextOffset != nil || r.TotalChars != 0 {
		t.Errorf("empty document: %+v", r)
	}
}

func TestFetchResultPage_KeepsARouteMessageWhole(t *testing.T) {
	r := &webtools.FetchResult{Path: webtools.PathRoute, Content: "Use the gh CLI for GitHub."}
	if err := r.Page(5, 3); err != nil || r.Text(0) != "Use the gh CLI for GitHub." || r.NextOffset != nil {
		t.Fatalf("err %v, text %q", err, r.Text(0))
	}
}

func TestFetchResultRender_WithoutAPageKeepsTheCutByRelevanceAndSaysWhereToReadOn(t *testing.T) {
	var parts []string
	for i := 1; i <= 40; i++ {
		body := fmt.Sprintf("Section %d is about assembly. ", i)
		if i == 33 {
			body = "Section 33 covers the warranty and its claims. "
		}
		parts = append(parts, strings.Repeat(body, 8))
	}
	doc := strings.Join(parts, "\n\n")
	r := &webtools.FetchResult{URL: "https://example.org/", Path: webtools.PathReadable, Content: doc, Prompt: "warranty claims"}
	got := r.Render(3000, 0)
	if !got.ByRelevance || got.NextOffset == nil || *got.NextOffset != 0 || !strings.Contains(got.Text, "Section 33 covers the warranty") ||
		!strings.Contains(got.Text, "read it from offset=0") || webpage.TextLen(got.Text) > 3000 {
		t.Errorf("relevance cut: by relevance %v next %v, %d chars:\n%s", got.ByRelevance, got.NextOffset, webpage.TextLen(got.Text), got.Text[max(0, len(got.Text)-300):])
	}
	r.Prompt = ""
	got = r.Render(3000, 0)
	if got.ByRelevance || got.NextOffset == nil || webpage.TextLen(got.Text) > 3000 {
		t.Fatalf("beginning cut: %+v", got)
	}
	// The next offset is where the text shown stops: the next page starts
	// right after it.
	shown := doc[:len(webpage.CutText(doc, *got.NextOffset))]
	if !strings.Contains(got.Text, shown[len(shown)-40:]+"\n\n[Content cut") ||
		!strings.Contains(got.Text, fmt.Sprintf("(characters 0–%d of %d; next: offset=%d).]", *got.NextOffset, got.TotalChars, *got.NextOffset)) {
		t.Errorf("beginning cut does not say where to read on:\n%s", got.Text[len(got.Text)-300:])
	}
	// A bound on the content alone.
	got = r.Render(0, 500)
	_, body, _ := strings.Cut(got.Text, "\n\n")
	body, _, _ = strings.Cut(body, "\n\n[Content cut")
	if n := webpage.TextLen(body); n > 500 || n < 400 || got.NextOffset == nil || *got.NextOffset != n {
		t.Errorf("content bound 500: %d characters shown, next %v", n, got.NextOffset)
	}
	if full := r.Render(0, 0); full.NextOffset != nil || full.ByRelevance || full.TotalChars != webpage.TextLen(doc) {
		t.Errorf("uncut: %+v", full)
	}
}

// mapCache is a webpage.Cache in memory.
type mapCache struct {
	mu sync.Mutex
	m  map[string]*webpage.Cached
	at time.Time
}

func (c *mapCache) Get(_ context.Context, key string) (*webpage.Cached, time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[key]
	return p, c.at, ok
}

func (c *mapCache) Put(_ context.Context, key string, p *webpage.Cached) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*webpage.Cached{}
	}
	cp := *p
	c.m[key] = &cp
	c.at = time.Now()
}

func TestFetch_PagesOfOneDocumentAreCutFromOneRead(t *testing.T) {
	content := longText()
	var hits atomic.Int32
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, content)
	})}}
	srv.Start()
	t.Cleanup(srv.Close)

	tools := &webtools.Tools{Reader: &webpage.Reader{Probe: webpage.ProbeConfig{AllowPrivate: true}, Cache: &mapCache{}}}
	read := func(offset int) *webtools.FetchResult {
		t.Helper()
		res, err := tools.Fetch(context.Background(), webtools.FetchRequest{URL: srv.URL + "/doc.txt", Prompt: "music"})
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Page(offset, 4000); err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := read(0)
	second := read(*first.NextOffset)
	if n := hits.Load(); n != 1 {
		t.Errorf("the page server was asked %d times, want 1: the second page comes from the cache", n)
	}
	if second.Cached.IsZero() || !first.Cached.IsZero() {
		t.Errorf("cached: first %v, second %v", first.Cached, second.Cached)
	}
	if second.Offset != *first.NextOffset || first.TotalChars != second.TotalChars || !strings.HasPrefix(content[len(first.Content):], second.Content) {
		t.Errorf("second page does not follow the first: offset %d, next %d", second.Offset, *first.NextOffset)
	}
}

func TestSearch_PassesTheTopicAndListsTheFiltersProvidersIgnored(t *testing.T) {
	var got provider.Query
	tools := &webtools.Tools{Searcher: searcherFunc(func(_ context.Context, q provider.Query) (*provider.Results, error) {
		got = q
		return &provider.Results{Provider: "parallel(tavily,exa,jina)",
			Results: []provider.Result{{Title: "T", URL: "https://example.org/"}},
			Ignored: map[string][]string{"jina": {"time_range", "topic"}, "exa": {"topic"}, "brave": nil}}, nil
	})}
	res, err := tools.Search(context.Background(), webtools.SearchRequest{Query: "q", Topic: provider.TopicFinance, TimeRange: provider.PastDay})
	if err != nil {
		t.Fatal(err)
	}
	if got.Topic != provider.TopicFinance || got.TimeRange != provider.PastDay {
		t.Errorf("query = %+v", got)
	}
	if want := map[string][]string{"jina": {"time_range", "topic"}, "exa": {"topic"}}; !reflect.DeepEqual(res.Ignored, want) {
		t.Errorf("Ignored = %v, want %v", res.Ignored, want)
	}
	if !strings.Contains(res.Text(), "Filters not applied: ignored by exa: topic; ignored by jina: time_range, topic.\n") {
		t.Errorf("text:\n%s", res.Text())
	}
	raw, _ := json.Marshal(res)
	if !strings.Contains(string(raw), `"ignored":{"exa":["topic"],"jina":["time_range","topic"]}`) {
		t.Errorf("JSON = %s", raw)
	}
	_, err = tools.Search(context.Background(), webtools.SearchRequest{Query: "q", Topic: "sports"})
	if e := reasonOf(t, err); e.Reason != webtools.BadInput || !strings.Contains(e.Message, "topic must be general, news or finance") {
		t.Fatalf("error = %+v", e)
	}
}
