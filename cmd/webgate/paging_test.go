package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/internal/fakeweb"
	"github.com/webgate-dev/webgate/webpage"
)

// longDocument is a Markdown document of about 40,000 characters with
// links and characters outside the Basic Multilingual Plane.
func longDocument() string {
	var b strings.Builder
	b.WriteString("# The long manual\n\n")
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&b, "## Part %d\n\nPart %d 🧭 describes [the section on gears %d](https://example.org/gears/%d) in words. ", i, i, i, i)
		b.WriteString(strings.Repeat("It goes on about the same matter. ", 5))
		b.WriteString("\n\n")
	}
	return strings.TrimSpace(b.String())
}

// docServer serves doc as text/markdown on 127.0.0.1 and counts the
// requests.
func docServer(t *testing.T, doc string) (string, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		_, _ = io.WriteString(w, doc)
	})}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/manual.md", &hits
}

// fetchPage is the --json output of a paged fetch.
type fetchPage struct {
	Content    string `json:"content"`
	Path       string `json:"path"`
	TotalChars int    `json:"total_chars"`
	Offset     int    `json:"offset"`
	NextOffset *int   `json:"next_offset"`
	CachedAt   string `json:"cached_at"`
}

// TestFetchBinary_PagesThroughALongDocumentFromOneRead runs the built
// webgate: every page of a long loopback document comes from one read of
// it, the pages after the first from the result cache in the store.
func TestFetchBinary_PagesThroughALongDocumentFromOneRead(t *testing.T) {
	bin := buildWebgate(t)
	doc := longDocument()
	url, hits := docServer(t, doc)
	home := t.TempDir()
	env := []string{
		"HOME=" + home,
		"PATH=/usr/bin:/bin",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"),
		"WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=1",
		"WEBGATE_BROWSER=off",
		"WEBGATE_STORE_TIMEOUT=5s",
	}
	run := func(args ...string) (string, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"fetch"}, args...)...)
		cmd.Env = env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("webgate fetch %v: exit %d\nstderr: %s", args, ee.ExitCode(), errb.String())
			}
			t.Fatal(err)
		}
		return out.String(), errb.String()
	}

	total := webpage.TextLen(doc)
	var joined strings.Builder
	offset, pages := 0, 0
	for {
		pages++
		if pages > 20 {
			t.Fatal("paging does not end")
		}
		out, errOut := run("--json", "--offset", fmt.Sprint(offset), "--max-chars", "8000", url)
		var p fetchPage
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("page %d: stdout is not JSON: %v\n%s\nstderr: %s", pages, err, out, errOut)
		}
		if p.TotalChars != total || p.Offset != offset || webpage.TextLen(p.Content) > 8000 || p.Path != "readable" {
			t.Fatalf("page %d: total %d offset %d, %d characters, path %s", pages, p.TotalChars, p.Offset, webpage.TextLen(p.Content), p.Path)
		}
		if (pages == 1) != (p.CachedAt == "") {
			t.Errorf("page %d: cached_at %q", pages, p.CachedAt)
		}
		joined.WriteString(p.Content)
		if p.NextOffset == nil {
			break
		}
		if *p.NextOffset != offset+webpage.TextLen(p.Content) {
			t.Fatalf("page %d: next offset %d, want %d", pages, *p.NextOffset, offset+webpage.TextLen(p.Content))
		}
		offset = *p.NextOffset
	}
	if joined.String() != doc {
		t.Fatalf("the %d pages do not add up to the document", pages)
	}
	if pages < 5 {
		t.Errorf("%d pages of at most 8000 characters for %d characters", pages, total)
	}

	// The text output says where the page sits and where to read on.
	out, _ := run("--offset", "8000", "--max-chars", "8000", url)
	header, body, _ := strings.Cut(out, "\n\n")
	if !strings.Contains(header, "Read: not HTML (text/markdown); the document as served, cached") {
		t.Errorf("header:\n%s", header)
	}
	m := regexp.MustCompile(`\n\n\[Characters 8000–(\d+) of (\d+); next: offset=(\d+)\.\]\n$`).FindStringSubmatch(body)
	if m == nil || m[1] != m[3] || m[2] != fmt.Sprint(total) {
		t.Errorf("page text does not end with its range:\n…%s", body[max(0, len(body)-200):])
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the page server was read %d times for %d pages, want once", n, pages+1)
	}
}

func TestFetch_OffsetAndMaxCharsPageThroughTheContent(t *testing.T) {
	pages := fakeweb.Pages(t)
	env := webEnv(t, &fakeweb.Tavily{})
	u := pages + "/readable/blog-article.html"
	code, out, errOut := fetchCLI(t, env, "--json", "--offset", "0", "--max-chars", "500", u)
	var first fetchPage
	if err := json.Unmarshal([]byte(out), &first); err != nil || code != exitOK {
		t.Fatalf("code %d, %v\n%s\nstderr: %s", code, err, out, errOut)
	}
	if first.NextOffset == nil || first.Offset != 0 || webpage.TextLen(first.Content) > 500 || first.TotalChars <= 500 {
		t.Fatalf("first page %+v", first)
	}
	code, out, _ = fetchCLI(t, env, "--offset", fmt.Sprint(*first.NextOffset), "--max-chars", "500", "--prompt", "ice", u)
	if code != exitOK || !strings.Contains(out, fmt.Sprintf("[Characters %d–", *first.NextOffset)) || strings.Contains(out, "[Content cut") {
		t.Fatalf("code %d, second page:\n%s", code, out)
	}
	// --max-chars alone in JSON keeps the beginning and says where the
	// rest starts; without it the whole content comes with a null next
	// offset.
	_, out, _ = fetchCLI(t, env, "--json", "--max-chars", "500", u)
	var cut fetchPage
	if err := json.Unmarshal([]byte(out), &cut); err != nil || cut.Content != first.Content || cut.NextOffset == nil {
		t.Errorf("--json --max-chars: %+v (%v)", cut, err)
	}
	_, out, _ = fetchCLI(t, env, "--json", u)
	if !strings.Contains(out, `"next_offset": null`) || !strings.Contains(out, fmt.Sprintf(`"total_chars": %d`, first.TotalChars)) {
		t.Errorf("--json:\n%s", out[max(0, len(out)-300):])
	}
}

func TestFetch_BadOffsetsAreUsageErrors(t *testing.T) {
	pages := fakeweb.Pages(t)
	env := webEnv(t, &fakeweb.Tavily{})
	u := pages + "/readable/blog-article.html"
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--offset", "-3", u}, "--offset must not be negative"},
		{[]string{"--offset", "99999999", u}, "is past the end of the page's content"},
	} {
		code, _, errOut := fetchCLI(t, env, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%v: code %d, stderr %q", tc.args, code, errOut)
		}
	}
}

func TestSearch_TopicAndTimeRangeReachTheProvider(t *testing.T) {
	fake := &fakeweb.Tavily{Hits: webHits}
	code, out, errOut := searchCLI(t, webEnv(t, fake), "--topic", "news", "--time-range", "week", "--provider", "tavily", "go", "release")
	if code != exitOK {
		t.Fatalf("code %d, stderr %s", code, errOut)
	}
	body := fake.Requests()[0].Body
	if body["topic"] != "news" || body["time_range"] != "week" {
		t.Errorf("request = %v", body)
	}
	if strings.Contains(out, "Filters not applied") {
		t.Errorf("tavily applies both filters:\n%s", out)
	}
	for _, tc := range []struct{ args []string }{
		{[]string{"--topic", "sports", "q"}},
		{[]string{"--time-range", "fortnight", "q"}},
	} {
		if code, _, errOut := searchCLI(t, webEnv(t, &fakeweb.Tavily{}), tc.args...); code != exitUsage || !strings.Contains(errOut, "must be") {
			t.Errorf("%v: code %d, stderr %q", tc.args, code, errOut)
		}
	}
}

func TestSearch_SaysWhichProvidersIgnoredAFilter(t *testing.T) {
	// A fake Jina Search, which has no date filter, next to the fake
	// Tavily, which has one: both are built as the hooks build them, with
	// the memory's guards around them and the search policy over them.
	answer, err := os.ReadFile(filepath.Join("..", "..", "provider", "jina", "testdata", "search_ok.json"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	jina := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	})}}
	jina.Start()
	t.Cleanup(jina.Close)
	env := webEnv(t, &fakeweb.Tavily{Hits: webHits}, "JINA_API_KEY=jina-test-key", "JINA_SEARCH_URL="+jina.URL)

	code, out, errOut := searchCLI(t, env, "--provider", "tavily,jina", "--time-range", "week", "go", "release")
	if code != exitOK || !strings.Contains(out, "Filters not applied: ignored by jina: time_range.") {
		t.Fatalf("code %d, stderr %s, stdout:\n%s", code, errOut, out)
	}
	code, out, _ = searchCLI(t, env, "--json", "--provider", "tavily,jina", "--topic", "news", "go", "release")
	var res struct {
		Ignored map[string][]string `json:"ignored"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitOK {
		t.Fatalf("code %d, %v\n%s", code, err, out)
	}
	if got := res.Ignored; len(got) != 1 || len(got["jina"]) != 1 || got["jina"][0] != "topic" {
		t.Errorf("ignored = %v, want jina: [topic]", got)
	}
}
