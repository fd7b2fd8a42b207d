package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webgate-dev/webgate/internal/fakeweb"
)

// buildWebgate builds this command into a temporary directory.
func buildWebgate(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the webgate binary")
	}
	bin := filepath.Join(t.TempDir(), "webgate")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not found: %v", err)
	}
	if out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func TestMCP_BinaryServesBothToolsOverStdio(t *testing.T) {
	bin := buildWebgate(t)
	pages := fakeweb.Pages(t)
	shell := pages + "/browser-render-required/vite-react-empty-root.html"
	fake := &fakeweb.Tavily{Key: webKey, Hits: webHits, Pages: map[string]string{shell: "# Dashboard\n\nRendered by the provider."}}
	home := t.TempDir()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(bin, "mcp", "-v")
	cmd.Env = append(fakeweb.Env(home, fake.Start(t), webKey), "PATH=/usr/bin:/bin")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	defer func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		noWebKey(t, stderr.String())
		if !strings.Contains(stderr.String(), "tool=web_search outcome=ok") {
			t.Errorf("stderr lacks the -v call log:\n%s", stderr.String())
		}
	}()

	if got := cs.InitializeResult().ServerInfo; got.Name != "webgate" {
		t.Errorf("server info = %+v", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "web_fetch,web_search" && strings.Join(names, ",") != "web_search,web_fetch" {
		t.Fatalf("tools = %v", names)
	}

	for _, tc := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"web_search", map[string]any{"query": "golang context"}, []string{"1. Context package", "https://go.dev/blog/context"}},
		{"web_fetch", map[string]any{"url": pages + "/readable/docs-page.html"}, []string{"Read: fetch-readable", "## Workers"}},
		{"web_fetch", map[string]any{"url": shell}, []string{"Read: browser-render-required", "extracted via tavily", "Rendered by the provider."}},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		noWebKey(t, text)
		if res.IsError {
			t.Fatalf("%s %v: tool error %s", tc.tool, tc.args, text)
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s %v: text lacks %q:\n%s", tc.tool, tc.args, w, text)
			}
		}
	}
}

func TestMCP_InProcessServerAnswersOnTheGivenStreamsAndExitsAtEndOfInput(t *testing.T) {
	env := webEnv(t, &fakeweb.Tavily{Key: webKey, Hits: webHits})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := runMCP(context.Background(), env, nil, inR, outW, &errb)
		_ = outW.Close()
		done <- code
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	send := func(msg string) {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	await := func(id string) string {
		for lines.Scan() {
			if strings.Contains(lines.Text(), `"id":`+id+`,`) {
				return lines.Text()
			}
		}
		t.Fatalf("no answer to request %s; stderr %s", id, errb.String())
		return ""
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	await("1")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"web_search","arguments":{"query":"golang"}}}`)
	if answer := await("2"); !strings.Contains(answer, "Context package") || strings.Contains(answer, `"isError":true`) {
		t.Fatalf("answer: %s", answer)
	}
	_ = inW.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("code %d, stderr %s", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not exit at end of input")
	}
	noWebKey(t, errb.String())
}

func TestMCP_RejectsArguments(t *testing.T) {
	code, _, errOut := runCLI(t, "", "mcp", "extra")
	if code != exitUsage || !strings.Contains(errOut, `unexpected argument "extra"`) {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

func TestMCP_HelpNamesEveryInputOfTheTools(t *testing.T) {
	_, out, _ := runCLI(t, "", "mcp", "--help")
	for _, want := range []string{"time_range?, topic?}", "web_fetch {url, prompt?, offset?, max_chars?}", "a local browser", "a PDF is read locally"} {
		if !strings.Contains(out, want) {
			t.Errorf("mcp --help lacks %q:\n%s", want, out)
		}
	}
}
