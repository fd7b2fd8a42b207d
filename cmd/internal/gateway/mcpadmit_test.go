package gateway

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// postMCP posts body to the MCP endpoint as a client of protocol version
// proto does.
func postMCP(t *testing.T, f *fixture, proto, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", f.url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+f.secret)
	if proto != "" {
		req.Header.Set("Mcp-Protocol-Version", proto)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestServer_MCPToolCallsCannotBypassLimits: however a tools/call is
// spelled — a second "Method" key that a case-insensitive decoder takes
// for the method, a batch — the MCP server runs it only once the limits
// admitted it, and the audit log records it.
func TestServer_MCPToolCallsCannotBypassLimits(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, "memory:")
	audit := &Audit{Store: st}
	f := newFixture(t, st, Options{Limiter: &Limiter{Store: st, Token: Limits{RequestsPerDay: 1}}, Audit: audit})
	if resp, body := post(t, f.url+"/v1/search", f.secret, `{"query":"first"}`); resp.StatusCode != 200 {
		t.Fatalf("first search: %d %s", resp.StatusCode, body)
	}
	if resp, _ := post(t, f.url+"/v1/search", f.secret, `{"query":"second"}`); resp.StatusCode != 429 {
		t.Fatalf("second search of a budget of 1: %d", resp.StatusCode)
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","Method":"ping","params":{"name":"web_search","arguments":{"query":"sneaky"}}}`
	resp, body := postMCP(t, f, "", call)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || strings.Contains(body, "Result for") {
		t.Errorf("over budget, a tools/call with a second \"Method\": %d %q %s; want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	for _, proto := range []string{"2025-03-26", "2024-11-05"} {
		batch := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"web_search","arguments":{"query":"batched"}}}]`
		if resp, body := postMCP(t, f, proto, batch); strings.Contains(body, "Result for") {
			t.Errorf("over budget, a batched tools/call (%s) was answered: %d %s", proto, resp.StatusCode, body)
		}
	}
	if n := f.search.calls.Load(); n != 1 {
		t.Errorf("provider called %d times over a budget of 1", n)
	}
	f.flush(t)
	entries, _ := audit.Entries(ctx)
	limited := 0
	for _, e := range entries {
		if e.Decision == "limited" {
			limited++
		}
	}
	if limited < 2 {
		t.Errorf("audit: %d refused calls recorded, want every refused call (the /v1 one and the MCP ones): %+v", limited, entries)
	}
}

// TestServer_MCPBatchEachCallAdmittedAndMetered: each tool call of a batch
// is admitted, metered and recorded on its own.
func TestServer_MCPBatchEachCallAdmittedAndMetered(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, "memory:")
	audit := &Audit{Store: st, Clear: true}
	f := newFixture(t, st, Options{Limiter: &Limiter{Store: st, Token: Limits{RequestsPerDay: 2}}, Audit: audit})
	batch := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"web_search","arguments":{"query":"one"}}},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"web_search","arguments":{"query":"two"}}},` +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"web_search","arguments":{"query":"three"}}}]`
	_, body := postMCP(t, f, "2025-03-26", batch)
	if n := f.search.calls.Load(); n != 2 || strings.Count(body, "Result for") != 2 {
		t.Fatalf("a batch of 3 calls under a budget of 2 made %d provider calls: %s", n, body)
	}
	f.flush(t)
	entries, _ := audit.Entries(ctx)
	answered, limited := map[string]int64{}, 0
	for _, e := range entries {
		switch e.Decision {
		case "answered":
			answered[e.Query] = e.Credits
		case "limited":
			limited++
		}
	}
	if len(answered) != 2 || limited != 1 {
		t.Fatalf("audit: %+v; want 2 calls answered and 1 limited", entries)
	}
	for q, credits := range answered {
		if credits != 1 {
			t.Errorf("call %q recorded %d credits, want its own 1", q, credits)
		}
	}
}

// TestServer_MCPArgumentsReadOneWay: arguments that name a key twice
// (in any case) are refused unrun, since the audit log could otherwise
// record another query than the one the tool ran.
func TestServer_MCPArgumentsReadOneWay(t *testing.T) {
	st := openStore(t, "memory:")
	f := newFixture(t, st, Options{Limiter: &Limiter{Store: st}, Audit: &Audit{Store: st}})
	for _, args := range []string{`{"query":"shown","Query":"run"}`, `{"query":"shown","query":"run"}`} {
		_, body := postMCP(t, f, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"web_search","arguments":`+args+`}}`)
		if strings.Contains(body, "Result for") || !strings.Contains(body, "twice") {
			t.Errorf("arguments %s: %s; want refused", args, body)
		}
	}
	if n := f.search.calls.Load(); n != 0 {
		t.Errorf("provider called %d times", n)
	}
}
