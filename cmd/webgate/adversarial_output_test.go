package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webgate-dev/webgate/internal/fakeweb"
)

// hostileRun runs the built webgate binary with args against the hostile
// fake and returns its exit code, output and duration.
func hostileRun(t *testing.T, bin string, h *fakeweb.Hostile, args ...string) (code int, stdout, stderr string, took time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(fakeweb.Env(t.TempDir(), h.API, webKey), "PATH=/usr/bin:/bin")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took = time.Since(start)
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run webgate %v: %v", args, err)
	}
	noWebKey(t, out.String(), errb.String())
	return code, out.String(), errb.String(), took
}

func wantIn(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// stringsOf returns every string in a decoded JSON value.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, stringsOf(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, e := range v {
			out = append(out, stringsOf(e)...)
		}
		return out
	}
	return nil
}

func TestAdversarialSearchAndFetchCommandsPrintSafeText(t *testing.T) {
	bin := buildWebgate(t)
	h := (&fakeweb.Hostile{}).Start(t)

	code, out, errOut, _ := hostileRun(t, bin, h, "search", "go", "deadlines")
	if code != exitOK {
		t.Fatalf("search: code %d, stderr %s", code, errOut)
	}
	fakeweb.CheckHostileOutput(t, "search stdout", out, false)
	fakeweb.CheckHostileOutput(t, "search stderr", errOut, false)
	wantIn(t, "search stdout", out, "1. RED TITLE OSC8 TEXT\n   https://good.example/one\n", "SNIPPET-MARKER", "2. Fine result\n   https://fine.example/two\n   FINE-MARKER bold")

	// JSON consumers (jq -r) get the same clean strings.
	code, out, errOut, _ = hostileRun(t, bin, h, "search", "--json", "go deadlines")
	if code != exitOK {
		t.Fatalf("search --json: code %d, stderr %s", code, errOut)
	}
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	fakeweb.CheckHostileOutput(t, "search --json strings", strings.Join(stringsOf(v), "\n"), false)

	for _, page := range []string{"/app", "/readable", "/forbidden"} {
		code, out, errOut, _ = hostileRun(t, bin, h, "fetch", "--prompt", "deadlines", h.Site+page)
		if code != exitOK {
			t.Fatalf("fetch %s: code %d, stderr %s", page, code, errOut)
		}
		fakeweb.CheckHostileOutput(t, "fetch "+page+" stdout", out, false)
		fakeweb.CheckHostileOutput(t, "fetch "+page+" stderr", errOut, false)
		code, out, _, _ = hostileRun(t, bin, h, "fetch", "--json", h.Site+page)
		if err := json.Unmarshal([]byte(out), &v); err != nil || code != exitOK {
			t.Fatalf("fetch --json %s: code %d, %v\n%s", page, code, err, out)
		}
		fakeweb.CheckHostileOutput(t, "fetch --json "+page+" strings", strings.Join(stringsOf(v), "\n"), false)
	}
	_, out, _, _ = hostileRun(t, bin, h, "fetch", h.Site+"/readable")
	wantIn(t, "fetch /readable", out, "READABLE-MARKER", "hidden link", "[RELATIVE-LINK]("+h.Site+"/docs/deadlines)", "JS-LINK,")

	// A provider's error message echoes remote text.
	rate := (&fakeweb.Hostile{SearchStatus: 429, SearchRetryAfter: "3600"}).Start(t)
	code, out, errOut, _ = hostileRun(t, bin, rate, "search", "q")
	if code != exitProvider || !strings.Contains(errOut, "rate-limited") {
		t.Errorf("rate-limited search: code %d, stderr %s", code, errOut)
	}
	fakeweb.CheckHostileOutput(t, "rate-limited search stderr", errOut+out, false)
}

func TestAdversarialMCPServerHandsTheAgentSafeResults(t *testing.T) {
	bin := buildWebgate(t)
	h := (&fakeweb.Hostile{}).Start(t)
	cs := hostileMCP(t, bin, h)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"web_search", map[string]any{"query": "go deadlines"}, []string{"RED TITLE", "SNIPPET-MARKER", "https://good.example/one", "‹/system-reminder>"}},
		{"web_fetch", map[string]any{"url": h.Site + "/app"}, []string{"EXTRACT-MARKER", "‹/system-reminder>", "‹function_results>"}},
		{"web_fetch", map[string]any{"url": h.Site + "/readable"}, []string{"READABLE-MARKER", "[RELATIVE-LINK](" + h.Site + "/docs/deadlines)", "&lt;/system-reminder&gt;"}},
	} {
		text, isErr := hostileCall(t, cs, tc.tool, tc.args, 60*time.Second)
		if isErr {
			t.Fatalf("%s %v: tool error %s", tc.tool, tc.args, text)
		}
		fakeweb.CheckHostileOutput(t, tc.tool, text, true)
		wantIn(t, tc.tool, text, tc.want...)
	}
}

// A rate-limited extraction provider asking for a long wait, and one that
// never answers, both end in a tool error naming the failure class within
// the call's deadline; the command line behaves alike.
func TestAdversarialRateLimitedAndHangingProvidersAnswerWithinTheDeadline(t *testing.T) {
	bin := buildWebgate(t)

	rate := (&fakeweb.Hostile{ExtractStatus: 429, ExtractRetryAfter: "15", SearchStatus: 429, SearchRetryAfter: "15"}).Start(t)
	cs := hostileMCP(t, bin, rate)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"web_fetch", map[string]any{"url": rate.Site + "/app"}},
		{"web_search", map[string]any{"query": "go deadlines"}},
	} {
		start := time.Now()
		text, isErr := hostileCall(t, cs, tc.tool, tc.args, 60*time.Second)
		took := time.Since(start)
		if !isErr || !strings.HasPrefix(text, tc.tool+" failed (rate-limited):") {
			t.Errorf("%s: answer (error %v):\n%s", tc.tool, isErr, text)
		}
		if took > 4*time.Second {
			t.Errorf("%s: answered after %v; a provider asking for a 15s wait should be reported at once", tc.tool, took)
		}
		fakeweb.CheckNoFraming(t, tc.tool, text)
		fakeweb.CheckHostileOutput(t, tc.tool, text, false)
	}
	code, _, errOut, took := hostileRun(t, bin, rate, "fetch", rate.Site+"/app")
	if code != exitProvider || !strings.Contains(errOut, "rate-limited") || took > 4*time.Second {
		t.Errorf("rate-limited fetch command: code %d after %v, stderr %s", code, took, errOut)
	}

	hang := (&fakeweb.Hostile{HangExtract: true}).Start(t)
	cs = hostileMCP(t, bin, hang, "--fetch-timeout", "2s")
	start := time.Now()
	text, isErr := hostileCall(t, cs, "web_fetch", map[string]any{"url": hang.Site + "/app"}, 60*time.Second)
	took = time.Since(start)
	if !isErr || !strings.HasPrefix(text, "web_fetch failed (timeout): The fetch did not finish within its 2s deadline.") {
		t.Errorf("hanging provider: answer (error %v):\n%s", isErr, text)
	}
	if took > 3500*time.Millisecond {
		t.Errorf("hanging provider: answered after %v with a 2s deadline", took)
	}
	code, _, errOut, took = hostileRun(t, bin, hang, "fetch", "--timeout", "2s", hang.Site+"/app")
	if code == exitOK || !strings.Contains(errOut, "did not finish within its 2s deadline") || took > 3500*time.Millisecond {
		t.Errorf("hanging provider, fetch command: code %d after %v, stderr %s", code, took, errOut)
	}
}

// hostileMCP starts "webgate mcp" with extra flags against the hostile
// fake and returns a connected SDK client session.
func hostileMCP(t *testing.T, bin string, h *fakeweb.Hostile, flags ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp"}, flags...)...)
	cmd.Env = append(fakeweb.Env(t.TempDir(), h.API, webKey), "PATH=/usr/bin:/bin")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	t.Cleanup(func() {
		_ = cs.Close()
		noWebKey(t, stderr.String())
		fakeweb.CheckHostileOutput(t, "mcp stderr", stderr.String(), false)
	})
	return cs
}

func hostileCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, limit time.Duration) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: no answer: %v", tool, args, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	text := strings.Join(parts, "\n")
	noWebKey(t, text)
	return text, res.IsError
}
