package providertest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/providertest"
)

// modeRef is the ref backend with a key mode: it sends no key at all
// (KeyNone), or a key only when its source has one (KeyOptional).
type modeRef struct {
	*ref
	mode providertest.KeyMode
}

// fixedKeys hands out keys already drawn from a source, so that the source
// is asked once per request, and passes outcomes back to it.
type fixedKeys struct {
	keys []provider.Key
	src  provider.KeySource
}

func (f fixedKeys) Keys(context.Context) []provider.Key { return f.keys }
func (f fixedKeys) Report(k provider.Key, kind provider.Kind) {
	f.src.Report(k, kind)
}

func (c *modeRef) do(ctx context.Context, op, path string, body, out any) error {
	data, _ := json.Marshal(body)
	req := provider.Request{
		Provider: "ref", Op: op, URL: c.base + path, Body: data,
		Check: func(r *provider.Response) *provider.Error {
			var e refError
			_ = json.Unmarshal(r.Body, &e)
			if kind := provider.StatusKind(r.Status); kind != "" {
				return &provider.Error{Kind: kind, Message: provider.Message(e.Error, r.Key.Secret())}
			}
			if e.Error != "" {
				return &provider.Error{Kind: provider.KindBadRequest, Message: provider.Message(e.Error, r.Key.Secret())}
			}
			return nil
		},
	}
	var keys provider.KeySource
	if c.mode == providertest.KeyOptional && c.keys != nil {
		if ks := c.keys.Keys(ctx); len(ks) > 0 {
			keys = fixedKeys{keys: ks, src: c.keys}
			req.Auth = func(h http.Header, k provider.Key) { h.Set("Authorization", "Bearer "+k.Secret()) }
		}
	}
	resp, err := c.http.Do(ctx, keys, req)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return &provider.Error{Provider: "ref", Op: op, Kind: provider.KindUnknown, Status: resp.Status,
			Attempts: resp.Attempts, Message: "malformed response", Err: err}
	}
	return nil
}

func (c *modeRef) Search(ctx context.Context, q provider.Query) (*provider.Results, error) {
	var out struct {
		Results []struct{ Title, URL string }
	}
	if err := c.do(ctx, "search", "/search", map[string]any{"query": q.Text}, &out); err != nil {
		return nil, err
	}
	r := &provider.Results{Query: q.Text, Provider: "ref", Results: []provider.Result{}}
	for _, x := range out.Results {
		r.Results = append(r.Results, provider.Result{Title: x.Title, URL: x.URL, Provider: "ref"})
	}
	return r, nil
}

func (c *modeRef) Extract(ctx context.Context, req provider.ExtractRequest) (*provider.Page, error) {
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

func modeWire(mode providertest.KeyMode) providertest.Wire {
	w := refWire()
	build := func(u string, k provider.KeySource, hc provider.HTTPConfig) *modeRef {
		return &modeRef{ref: newRef(u, k, hc), mode: mode}
	}
	w.NewSearcher = func(u string, k provider.KeySource, hc provider.HTTPConfig) provider.Searcher { return build(u, k, hc) }
	w.NewExtractor = func(u string, k provider.KeySource, hc provider.HTTPConfig) provider.Extractor {
		return build(u, k, hc)
	}
	w.SearchKeys, w.ExtractKeys = mode, mode
	w.ValidateSearchRequest = func(req providertest.Request) error {
		if req.Method != http.MethodPost || !strings.Contains(string(req.Body), `"query"`) {
			return errBadRequest
		}
		return nil
	}
	return w
}

var errBadRequest = &provider.Error{Provider: "ref", Kind: provider.KindBadRequest, Message: "not a POST with a query"}

func TestRun_PassesForABackendThatSendsNoKey(t *testing.T) {
	w := modeWire(providertest.KeyNone)
	w.KeyOf = nil // not needed when no operation uses keys
	providertest.Run(t, w)
}

func TestRun_PassesForABackendWhoseKeyIsOptional(t *testing.T) {
	providertest.Run(t, modeWire(providertest.KeyOptional))
}

func TestKeyMode_String(t *testing.T) {
	for m, want := range map[providertest.KeyMode]string{
		providertest.KeyRequired: "required",
		providertest.KeyOptional: "optional",
		providertest.KeyNone:     "none",
		providertest.KeyMode(7):  "KeyMode(7)",
	} {
		if got := m.String(); got != want {
			t.Errorf("KeyMode(%d).String() = %q, want %q", int(m), got, want)
		}
	}
}
