package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webgate-dev/webgate/cmd/internal/mcpserver"
	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/webpage"
)

// servePage serves body as text/plain on 127.0.0.1 and returns its URL.
func servePage(t *testing.T, body string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, body)
	})}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/manual.txt"
}

// longManual is a document of about 40,000 characters with characters
// outside the Basic Multilingual Plane.
func longManual() string {
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&b, "Step %d 🔧 of the manual explains one more part of the machine in plain words, with care. ", i)
		b.WriteString(strings.Repeat("Then it goes on. ", 5))
		b.WriteString("\n\n")
	}
	return b.String()
}

// callFull calls a tool and returns its result, failing on a protocol
// error.
func callFull(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error %v", tool, args, err)
	}
	return res
}

func textOf(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// pageRange is what the line ending a page of a document says: the
// range shown, the page's whole length and the next offset (nil at the
// end of the page).
type pageRange struct {
	From, To, Total int
	Next            *int
}

var rangeLine = regexp.MustCompile(`\[Characters (\d+)–(\d+) of (\d+)(?:; next: offset=(\d+)\.| *: the end of the page\.)\]`)

// rangeOf reads the range line of a page's answer; ok is false when the
// answer has none.
func rangeOf(text string) (r pageRange, ok bool) {
	ms := rangeLine.FindAllStringSubmatch(text, -1)
	if len(ms) == 0 {
		return r, false
	}
	m := ms[len(ms)-1]
	r.From, _ = strconv.Atoi(m[1])
	r.To, _ = strconv.Atoi(m[2])
	r.Total, _ = strconv.Atoi(m[3])
	if m[4] != "" {
		n, _ := strconv.Atoi(m[4])
		r.Next = &n
	}
	return r, true
}

func pagingTools(t *testing.T) *webtools.Tools {
	return &webtools.Tools{Reader: &webpage.Reader{Probe: webpage.ProbeConfig{AllowPrivate: true}}}
}

func TestWebFetch_PagesThroughALongDocumentWithOffsetAndMaxChars(t *testing.T) {
	doc := longManual()
	u := servePage(t, doc)
	const limit = 12000
	cs := connect(t, pagingTools(t), &mcpserver.Options{MaxChars: limit})
	total := webpage.TextLen(doc)
	var joined strings.Builder
	offset := 0
	for pages := 1; ; pages++ {
		if pages > 50 {
			t.Fatal("paging does not end")
		}
		args := map[string]any{"url": u, "offset": offset, "prompt": "step 150"}
		if pages == 1 {
			args["max_chars"] = 5000
		}
		res := callFull(t, cs, mcpserver.FetchTool, args)
		text := textOf(res)
		if res.IsError {
			t.Fatalf("page %d: %s", pages, text)
		}
		if n := webpage.TextLen(text); n > limit {
			t.Errorf("page %d: answer of %d characters, over the cap of %d", pages, n, limit)
		}
		out, ok := rangeOf(text)
		if !ok || out.Total != total || out.From != offset || res.StructuredContent != nil {
			t.Fatalf("page %d: range %+v (found %v), structured %v", pages, out, ok, res.StructuredContent)
		}
		_, body, _ := strings.Cut(text, "\n\nURL: ")
		_, body, _ = strings.Cut(body, "\n\n")
		i := strings.LastIndex(body, "\n\n[Characters ")
		if i < 0 {
			t.Fatalf("page %d lacks its range line:\n%s", pages, text[max(0, len(text)-200):])
		}
		shown, trailer := body[:i], body[i:]
		if pages == 1 && webpage.TextLen(shown) > 5000 {
			t.Errorf("first page shows %d characters, asked for 5000", webpage.TextLen(shown))
		}
		if !strings.HasPrefix(doc[len(joined.String()):], shown) {
			t.Fatalf("page %d does not continue the document at %d", pages, offset)
		}
		if out.Next == nil {
			if !strings.Contains(trailer, fmt.Sprintf("of %d: the end of the page.]", total)) {
				t.Errorf("last page trailer %q", trailer)
			}
			break
		}
		if !strings.Contains(trailer, fmt.Sprintf("[Characters %d–%d of %d; next: offset=%d.]", offset, *out.Next, total, *out.Next)) {
			t.Errorf("page %d trailer %q", pages, trailer)
		}
		// The page's text is the document from offset to the next offset,
		// less the white space the page's end drops.
		joined.WriteString(doc[len(joined.String()):][:len(webpage.CutText(doc[len(joined.String()):], *out.Next-offset))])
		offset = *out.Next
	}
}

func TestWebFetch_WithoutOffsetKeepsThePartsMostRelevantToThePrompt(t *testing.T) {
	u := servePage(t, longManual())
	cs := connect(t, pagingTools(t), &mcpserver.Options{MaxChars: 6000})
	res := callFull(t, cs, mcpserver.FetchTool, map[string]any{"url": u, "prompt": "Step 150"})
	text := textOf(res)
	if res.IsError || !strings.Contains(text, "Step 150 🔧") || !strings.Contains(text, "read it from offset=0") {
		t.Fatalf("text:\n%s", text)
	}
	if n := webpage.TextLen(text); n > 6000 {
		t.Errorf("answer of %d characters, over the cap", n)
	}
}

func TestWebFetch_SchemaBoundsOffsetAndMaxChars(t *testing.T) {
	u := servePage(t, "A short page.")
	cs := connect(t, pagingTools(t), &mcpserver.Options{MaxChars: 8000})
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range lt.Tools {
		if tl.Name != mcpserver.FetchTool {
			continue
		}
		raw, _ := json.Marshal(tl.InputSchema)
		var s struct {
			Properties map[string]struct {
				Type        any      `json:"type"`
				Minimum     *float64 `json:"minimum"`
				Maximum     *float64 `json:"maximum"`
				Description string   `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		off, mc := s.Properties["offset"], s.Properties["max_chars"]
		if off.Type != "integer" || off.Minimum == nil || *off.Minimum != 0 || off.Description == "" {
			t.Errorf("offset schema: %+v", off)
		}
		if mc.Type != "integer" || mc.Minimum == nil || *mc.Minimum != 0 || mc.Maximum == nil || *mc.Maximum != 8000 || !strings.Contains(mc.Description, "default and maximum 8000") {
			t.Errorf("max_chars schema: %+v", mc)
		}
		if tl.OutputSchema != nil {
			t.Errorf("web_fetch declares an output schema: clients would give the model its JSON instead of the text")
		}
	}
	for _, args := range []map[string]any{
		{"url": u, "offset": -1},
		{"url": u, "offset": "ten"},
		{"url": u, "offset": 1.5},
		{"url": u, "max_chars": -1},
		{"url": u, "max_chars": 8001},
		{"url": u, "offset": 13},  // the end of the page
		{"url": u, "offset": 500}, // past it
	} {
		res := callFull(t, cs, mcpserver.FetchTool, args)
		if !res.IsError || res.StructuredContent != nil {
			t.Errorf("%v: isError %v, structured %v", args, res.IsError, res.StructuredContent)
		}
	}
	if res := callFull(t, cs, mcpserver.FetchTool, map[string]any{"url": u, "offset": 500}); !strings.Contains(textOf(res), "web_fetch failed (bad-input): offset 500 is past the end of the page's content, which has 13 characters.") {
		t.Errorf("past the end: %q", textOf(res))
	}
	// Offset 0 of a short page is the whole page, at its end.
	res := callFull(t, cs, mcpserver.FetchTool, map[string]any{"url": u, "offset": 0, "max_chars": 0})
	text := textOf(res)
	if out, ok := rangeOf(text); res.IsError || !ok || out.Next != nil || out.Total != 13 || !strings.Contains(text, "A short page.\n\n[Characters 0–13 of 13: the end of the page.]") {
		t.Errorf("short page: %+v\n%s", out, text)
	}
}

func TestWebSearch_PassesTheTopicAndSaysWhichProvidersIgnoredFilters(t *testing.T) {
	got := make(chan provider.Query, 1)
	cs := connect(t, &webtools.Tools{Searcher: searcherFunc(func(_ context.Context, q provider.Query) (*provider.Results, error) {
		got <- q
		return &provider.Results{Provider: "parallel(tavily,exa)",
			Results: []provider.Result{{Title: "Rates", URL: "https://example.org/rates"}},
			Ignored: map[string][]string{"exa": {"topic"}}}, nil
	})}, nil)
	res := callFull(t, cs, mcpserver.SearchTool, map[string]any{"query": "interest rates", "topic": "finance"})
	if res.IsError {
		t.Fatal(textOf(res))
	}
	if q := <-got; q.Topic != provider.TopicFinance {
		t.Errorf("topic = %q, want finance", q.Topic)
	}
	text := textOf(res)
	if !strings.HasPrefix(text, sanitize.UntrustedNotice) || !strings.Contains(text, "Filters not applied: ignored by exa: topic.") {
		t.Errorf("text:\n%s", text)
	}
	if res.StructuredContent != nil {
		t.Errorf("structured content %v: clients would give the model its JSON instead of the text", res.StructuredContent)
	}
	for _, bad := range []any{"sports", 3, ""} {
		if res := callFull(t, cs, mcpserver.SearchTool, map[string]any{"query": "q", "topic": bad}); !res.IsError {
			t.Errorf("topic %v: isError false", bad)
		}
	}
}
