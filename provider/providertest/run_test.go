package providertest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/providertest"
)

// ref is a minimal backend speaking a made-up wire format, written the way
// a real backend is: one provider.HTTP per client, a Check that classifies
// status and body, and decoding after Do.
type ref struct {
	base string
	keys provider.KeySource
	http *provider.HTTP
}

func (c *ref) Name() string { return "ref" }

type refError struct {
	Error string `json:"error"`
}

func (c *ref) do(ctx context.Context, op, path string, body any, out any) error {
	data, _ := json.Marshal(body)
	resp, err := c.http.Do(ctx, c.keys, provider.Request{
		Provider: "ref", Op: op, URL: c.base + path, Body: data,
		Auth: func(h http.Header, k provider.Key) { h.Set("Authorization", "Bearer "+k.Secret()) },
		Check: func(r *provider.Response) *provider.Error {
			var e refError
			_ = json.Unmarshal(r.Body, &e)
			kind := provider.StatusKind(r.Status)
			if kind == "" && e.Error != "" {
				kind = provider.KindBadRequest
			}
			if kind == "" {
				return nil
			}
			return &provider.Error{Kind: kind, Message: provider.Message(e.Error, r.Key.Secret())}
		},
	})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return &provider.Error{Provider: "ref", Op: op, Kind: provider.KindUnknown, Status: resp.Status,
			Attempts: resp.Attempts, Message: "malformed response", Err: err}
	}
	return nil
}

func (c *ref) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	var out struct {
		Results []struct{ Title, URL string }
	}
	if err := c.do(ctx, "search", "/search", map[string]any{"query": q.Text, "max": q.MaxResults}, &out); err != nil {
		return nil, err
	}
	r := &provider.Results{Query: q.Text, Provider: "ref", Results: []provider.Result{}}
	for _, x := range out.Results {
		r.Results = append(r.Results, provider.Result{Title: x.Title, URL: x.URL, Provider: "ref"})
	}
	return r, nil
}

func (c *ref) Extract(ctx context.Context, req provider.ExtractRequest) (*provider.Page, error) {
	var out struct {
		Content string
		Failed  bool
	}
	if err := c.do(ctx, "extract", "/extract", map[string]any{"url": req.URL}, &out); err != nil {
		return nil, err
	}
	if out.Failed || out.Content == "" {
		return nil, &provider.Error{Provider: "ref", Op: "extract", Kind: provider.KindUnsupported, Status: 200, Attempts: 1, Message: "URL failed"}
	}
	return &provider.Page{URL: req.URL, Content: out.Content, Format: provider.Markdown, Provider: "ref"}, nil
}

func newRef(base string, keys provider.KeySource, hc provider.HTTPConfig) *ref {
	return &ref{base: base, keys: keys, http: provider.NewHTTP(&hc)}
}

func refWire() providertest.Wire {
	requireQuery := func(body []byte) error {
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			return err
		}
		if _, ok := m["query"].(string); !ok {
			return fmt.Errorf("query is missing")
		}
		return nil
	}
	return providertest.Wire{
		Name: "ref",
		NewSearcher: func(u string, k provider.KeySource, hc provider.HTTPConfig) provider.Searcher {
			return newRef(u, k, hc)
		},
		NewExtractor: func(u string, k provider.KeySource, hc provider.HTTPConfig) provider.Extractor {
			return newRef(u, k, hc)
		},
		SearchPath:  "/search",
		ExtractPath: "/extract",
		KeyOf: func(r *http.Request) string {
			return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		},
		ValidateSearch: requireQuery,
		SearchOK:       providertest.Answer{Body: `{"results":[{"title":"A","url":"https://a.example"},{"title":"B","url":"https://b.example"}]}`},
		SearchEmpty:    providertest.Answer{Body: `{"results":[]}`},
		ExtractOK:      providertest.Answer{Body: `{"content":"# Page\n\ntext"}`},
		ExtractPartial: providertest.Answer{Body: `{"failed":true}`},
		Faults: []providertest.Fault{
			{Name: "HTTP 400", Kind: provider.KindBadRequest, Answer: providertest.Answer{Status: 400, Body: `{"error":"bad"}`}},
			{Name: "HTTP 401", Kind: provider.KindAuth, Answer: providertest.Answer{Status: 401, Body: `{"error":"no"}`}},
			{Name: "HTTP 402", Kind: provider.KindQuota, Answer: providertest.Answer{Status: 402, Body: `{"error":"pay"}`}},
		},
		ErrorBody: func(_ int, msg string) string {
			b, _ := json.Marshal(refError{Error: msg})
			return string(b)
		},
		OKWithError: providertest.Fault{Name: "error field", Kind: provider.KindBadRequest,
			Answer: providertest.Answer{Body: `{"error":"query too long"}`}},
	}
}

func TestRun_PassesForAWellBehavedBackend(t *testing.T) {
	providertest.Run(t, refWire())
}

func TestCheckNoSecrets_FlagsAKeyInTheMessage(t *testing.T) {
	err := &provider.Error{Provider: "x", Kind: provider.KindAuth, Message: "bad key " + providertest.Secrets[0]}
	ft := &fakeT{TB: t}
	providertest.CheckNoSecrets(ft, err, providertest.Secrets...)
	if !ft.failed {
		t.Fatal("CheckNoSecrets passed an error whose message holds a key")
	}
}

func TestCheckNoSecrets_FlagsAKeyInAWrappedError(t *testing.T) {
	inner := fmt.Errorf("dial with %s", providertest.Secrets[1])
	err := fmt.Errorf("outer: %w", &provider.Error{Provider: "x", Kind: provider.KindTransient, Message: "failed", Err: inner})
	ft := &fakeT{TB: t}
	providertest.CheckNoSecrets(ft, err, providertest.Secrets...)
	if !ft.failed {
		t.Fatal("CheckNoSecrets passed an error that wraps a key")
	}
}

func TestCheckNoSecrets_PassesACleanError(t *testing.T) {
	err := &provider.Error{Provider: "x", Kind: provider.KindAuth, Message: "invalid API key"}
	ft := &fakeT{TB: t}
	providertest.CheckNoSecrets(ft, err, providertest.Secrets...)
	if ft.failed {
		t.Fatal("CheckNoSecrets failed a clean error")
	}
}

// fakeT records failures instead of failing the real test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true }
func (f *fakeT) Error(...any)          { f.failed = true }
func (f *fakeT) Fatal(...any)          { f.failed = true }
func (f *fakeT) Logf(string, ...any)   {}
func (f *fakeT) Skipf(string, ...any)  {}
func (f *fakeT) Log(...any)            {}
