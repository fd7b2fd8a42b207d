package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/internal/sanitize"
	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/webpage"
)

// Tool names.
const (
	SearchTool = "web_search"
	FetchTool  = "web_fetch"
)

// DefaultMaxChars caps a web_fetch answer: about 8,000 tokens, below the
// size at which agents warn about large tool output.
const DefaultMaxChars = 30000

// Options configure a server. The zero value means the defaults.
type Options struct {
	// Version is the server version announced to clients; empty means
	// "dev".
	Version string
	// MaxChars caps the text of a web_fetch answer; 0 means
	// [DefaultMaxChars].
	MaxChars int
	// Logger receives one line per tool call (tool, outcome, duration);
	// nil means no logging. It never receives queries, page content or
	// keys.
	Logger *slog.Logger
	// ToolsFor, when set, returns the tools of one call from its context
	// (a server that meters or scopes each caller's calls, built once);
	// nil from it, or no ToolsFor, means the tools given to New.
	ToolsFor func(ctx context.Context) *webtools.Tools
}

// SearchInput is the input of the web_search tool.
type SearchInput struct {
	// Query is what to search the web for. Required.
	Query string `json:"query" jsonschema:"What to search the web for."`
	// AllowedDomains restricts results to these domains and their
	// subdomains.
	AllowedDomains []string `json:"allowed_domains,omitempty" jsonschema:"Only return results from these domains and their subdomains, e.g. [\"go.dev\"]."`
	// BlockedDomains removes results from these domains.
	BlockedDomains []string `json:"blocked_domains,omitempty" jsonschema:"Never return results from these domains."`
	// MaxResults is how many results to return; 0 means the default.
	MaxResults int `json:"max_results,omitempty" jsonschema:"How many results to return."`
	// TimeRange restricts results to pages published within the past
	// day, week, month or year; empty means any time.
	TimeRange string `json:"time_range,omitempty" jsonschema:"Only return pages published within the past day, week, month or year. Some providers cannot filter by date: they return pages of any date, and the answer names them."`
	// Topic asks for a kind of search: general, news or finance; empty
	// leaves it to the providers' configuration.
	Topic string `json:"topic,omitempty" jsonschema:"The kind of search: general, news (recent articles from news sources) or finance. Providers that cannot search by topic run a general search, and the answer names them."`
}

// FetchInput is the input of the web_fetch tool.
type FetchInput struct {
	// URL is the page to read. Required.
	URL string `json:"url" jsonschema:"The page to read: an absolute http or https URL."`
	// Prompt says what the caller wants from the page.
	Prompt string `json:"prompt,omitempty" jsonschema:"What you want from the page. When the page is long, the parts most relevant to it are kept."`
	// Offset, when set, reads the page in order from this character on;
	// nil keeps the parts most relevant to the prompt.
	Offset *int `json:"offset,omitempty"`
	// MaxChars bounds the characters of the page's text in the answer; 0
	// means the server's cap.
	MaxChars int `json:"max_chars,omitempty"`
}

const searchDescription = `Search the web. Returns the title, URL and a snippet of each result, best first. ` +
	`Use it for current information and for anything outside your training data; cite the URLs you use. ` +
	`To read a result in full, pass its URL to web_fetch.`

const fetchDescription = `Read a web page or a PDF document and return its content as Markdown (title, headings, text, lists, links, code). ` +
	`Pages built by JavaScript are read from the data they embed or rendered in a browser, or read through an extraction service; PDF documents are read directly. ` +
	`Only public http and https URLs are fetched. ` +
	`A long page is cut to the parts most relevant to the prompt; to read it in order instead, pass offset (0 for the beginning) ` +
	`and read on from the next offset the answer gives, until it says the end of the page.`

const instructions = `webgate gives web access: web_search finds pages, web_fetch reads one page as Markdown.`

// New returns an MCP server offering web_search and web_fetch over tools.
// Run it with [mcp.Server.Run] on a transport ([mcp.StdioTransport] for
// agents). Failures are tool errors (isError results) whose text names the
// failure class; a handler never crashes the server.
//
// Every call answers within its deadline, tools.SearchTimeout or
// tools.FetchTimeout ([webtools.DefaultSearchTimeout], 25s, and
// [webtools.DefaultFetchTimeout], 30s, when zero), or stops at once when
// the client cancels it; past the deadline the answer is a tool error
// labelled [Timeout]. Results carry the untrusted-content label and the
// agent rule of package sanitize.
func New(tools *webtools.Tools, opts *Options) *mcp.Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.MaxChars <= 0 {
		o.MaxChars = DefaultMaxChars
	}
	if tools == nil {
		tools = &webtools.Tools{}
	}
	h := &handlers{tools: tools, opts: o}
	s := mcp.NewServer(&mcp.Implementation{Name: "webgate", Title: "webgate web search and fetch", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions})
	mcp.AddTool(s, &mcp.Tool{
		Name:        SearchTool,
		Title:       "Web search",
		Description: searchDescription,
		InputSchema: searchSchema(),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)},
	}, h.search)
	mcp.AddTool(s, &mcp.Tool{
		Name:        FetchTool,
		Title:       "Web fetch",
		Description: fetchDescription,
		InputSchema: fetchSchema(o.MaxChars),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)},
	}, h.fetch)
	return s
}

func ptr[T any](v T) *T { return &v }

// searchSchema is SearchInput's schema with bounds an agent can see.
func searchSchema() *jsonschema.Schema {
	s, err := jsonschema.For[SearchInput](nil)
	if err != nil {
		panic(err) // a static type; covered by the tests
	}
	s.Properties["query"].MinLength = ptr(1)
	mr := s.Properties["max_results"]
	mr.Minimum = ptr(1.0)
	mr.Maximum = ptr(float64(webtools.MaxResultsLimit))
	mr.Description = fmt.Sprintf("How many results to return (default %d).", policy.DefaultMaxResults)
	tr := s.Properties["time_range"]
	for _, r := range webtools.TimeRanges {
		tr.Enum = append(tr.Enum, string(r))
	}
	tp := s.Properties["topic"]
	for _, t := range webtools.Topics {
		tp.Enum = append(tp.Enum, string(t))
	}
	return s
}

// fetchSchema is FetchInput's schema with bounds an agent can see;
// maxChars is the server's cap.
func fetchSchema(maxChars int) *jsonschema.Schema {
	s, err := jsonschema.For[FetchInput](nil)
	if err != nil {
		panic(err) // a static type; covered by the tests
	}
	s.Properties["url"].MinLength = ptr(1)
	off := s.Properties["offset"]
	off.Type, off.Types = "integer", nil
	off.Minimum = ptr(0.0)
	off.Description = "Read the page in order from this character on (0: its beginning), instead of keeping the parts most relevant to the prompt. " +
		"Characters are counted as JavaScript counts string length. The answer gives the range shown, the page's total length and the next offset to read on from."
	mc := s.Properties["max_chars"]
	mc.Minimum = ptr(0.0)
	mc.Maximum = ptr(float64(maxChars))
	mc.Description = fmt.Sprintf("At most this many characters of the page's text (default and maximum %d, the whole answer's cap; a page may hold a little less to leave room for its header).", maxChars)
	return s
}

type handlers struct {
	tools *webtools.Tools
	opts  Options
}

// toolsOf returns the tools of the call of ctx (see Options.ToolsFor).
func (h *handlers) toolsOf(ctx context.Context) *webtools.Tools {
	if h.opts.ToolsFor != nil {
		if t := h.opts.ToolsFor(ctx); t != nil {
			return t
		}
	}
	return h.tools
}

func (h *handlers) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (res *mcp.CallToolResult, _ any, _ error) {
	start := time.Now()
	defer h.recover(SearchTool, &res)
	out, err := h.toolsOf(ctx).Search(ctx, webtools.SearchRequest{
		Query:          in.Query,
		AllowedDomains: in.AllowedDomains,
		BlockedDomains: in.BlockedDomains,
		MaxResults:     in.MaxResults,
		TimeRange:      provider.TimeRange(in.TimeRange),
		Topic:          provider.Topic(in.Topic),
	})
	if err != nil {
		h.log(SearchTool, start, "error", reasonOf(err))
		return toolError(SearchTool, err), nil, nil
	}
	h.log(SearchTool, start, "ok", fmt.Sprintf("%d result(s) via %s", len(out.Results), out.Provider))
	text := webText(out.Text())
	res = textResult(text)
	return res, nil, nil
}

// rangeReserve is the room kept for the line that ends a page of a
// document ("[Characters 8000–16000 of 52311; next: offset=16000.]").
const rangeReserve = 100

func (h *handlers) fetch(ctx context.Context, _ *mcp.CallToolRequest, in FetchInput) (res *mcp.CallToolResult, _ any, _ error) {
	start := time.Now()
	defer h.recover(FetchTool, &res)
	var err error
	switch {
	case in.Offset != nil && *in.Offset < 0:
		err = &webtools.Error{Reason: webtools.BadInput, Message: fmt.Sprintf("offset must not be negative, got %d.", *in.Offset)}
	case in.MaxChars < 0 || in.MaxChars > h.opts.MaxChars:
		err = &webtools.Error{Reason: webtools.BadInput, Message: fmt.Sprintf("max_chars must be between 0 (the default, %d) and %d, got %d.", h.opts.MaxChars, h.opts.MaxChars, in.MaxChars)}
	}
	var out *webtools.FetchResult
	if err == nil {
		out, err = h.toolsOf(ctx).Fetch(ctx, webtools.FetchRequest{URL: in.URL, Prompt: in.Prompt})
	}
	// The label counts towards the cap.
	room := max(h.opts.MaxChars-webpage.TextLen(sanitize.UntrustedNotice)-2, 1)
	if err == nil && in.Offset != nil {
		// A page is cut by position; it holds at most max_chars
		// characters, and fewer when the header leaves less room.
		limit := h.opts.MaxChars
		if in.MaxChars > 0 {
			limit = in.MaxChars
		}
		limit = min(limit, max(room-webpage.TextLen(out.Header())-rangeReserve, 200))
		err = out.Page(*in.Offset, limit)
	}
	if err != nil {
		h.log(FetchTool, start, "error", reasonOf(err))
		return toolError(FetchTool, err), nil, nil
	}
	h.log(FetchTool, start, "ok", out.Summary())
	var text string
	if out.Path == webtools.PathRoute {
		// A tool route's message is the user's configuration, not web
		// content.
		text = sanitize.Agent(out.Text(h.opts.MaxChars))
	} else {
		text = webText(out.Render(room, in.MaxChars).Text)
	}
	res = textResult(text)
	return res, nil, nil
}

// recover turns a panic in a handler into a tool error.
func (h *handlers) recover(tool string, res **mcp.CallToolResult) {
	if r := recover(); r != nil {
		if h.opts.Logger != nil {
			h.opts.Logger.Error("tool panicked", "tool", tool)
		}
		*res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
			Text: fmt.Sprintf("%s failed (unknown): internal error in webgate.", tool),
		}}}
	}
}

func (h *handlers) log(tool string, start time.Time, outcome, detail string) {
	if h.opts.Logger == nil {
		return
	}
	h.opts.Logger.Info("tool call", "tool", tool, "outcome", outcome, "detail", detail, "elapsed", time.Since(start).Round(time.Millisecond))
}

func reasonOf(err error) string {
	var e *webtools.Error
	if errors.As(err, &e) {
		if e.Class != "" {
			return string(e.Reason) + " " + string(e.Class)
		}
		return string(e.Reason)
	}
	return "unknown"
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// webText is the answer for text holding web content: the
// untrusted-content label, then the text under the agent rule
// ([sanitize.Agent]), so that nothing in it can imitate the framing of the
// agent's runtime.
func webText(text string) string {
	return sanitize.UntrustedNotice + "\n\n" + sanitize.Agent(text)
}

// toolError renders err as a tool error. The text starts with the tool and
// a short label, then the message under the agent rule: "timeout" when the
// call ran out of time, the failure class for other provider failures (the
// one place the overall class is stated; the message names the class of
// each provider that failed differently), the reason otherwise.
func toolError(tool string, err error) *mcp.CallToolResult {
	label := string(provider.ClassUnknown)
	msg := "An unexpected error occurred."
	var e *webtools.Error
	if errors.As(err, &e) {
		msg = e.Message
		switch {
		case e.TimedOut:
			label = Timeout
		case e.Reason == webtools.ProviderFailed:
			label = string(e.Class)
			// The label states the class; the providers that failed
			// that way are named without repeating it.
			msg = e.MessageUnder(e.Class)
		default:
			label = string(e.Reason)
		}
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
		Text: fmt.Sprintf("%s failed (%s): %s", tool, label, sanitize.AgentLine(msg)),
	}}}
}

// Timeout is the label of a tool error for a call that ran out of time.
const Timeout = "timeout"
