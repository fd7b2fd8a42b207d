package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// install --gateway needs no hook binary, writes HTTP hooks for Claude
// Code and Copilot CLI that name the token's variable (never a token),
// and uninstall removes them.
func TestInstall_GatewayWritesHTTPHooksWithoutBinaries(t *testing.T) {
	dir := t.TempDir()
	old := currentHost
	currentHost = func() hostEnv {
		return hostEnv{Env: []string{"HOME=" + dir, "WEBGATE_GATEWAY_TOKEN=wg_SECRETNOTWRITTEN"}, Home: dir, WorkDir: dir, ExeDir: filepath.Join(dir, "nobin")}
	}
	t.Cleanup(func() { currentHost = old })
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"install", "--target", "all", "--gateway", "http://127.0.0.1:8787"}, nil, &out, &errb); code != 0 {
		t.Fatalf("install: %d %s %s", code, out.String(), errb.String())
	}
	claude, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
	copilot, _ := os.ReadFile(filepath.Join(dir, ".copilot", "hooks", "webgate.json"))
	for name, data := range map[string][]byte{"claude": claude, "copilot": copilot} {
		s := string(data)
		if !strings.Contains(s, `"type": "http"`) || !strings.Contains(s, "http://127.0.0.1:8787/v1/hooks/webfetch") || !strings.Contains(s, "$WEBGATE_GATEWAY_TOKEN") || strings.Contains(s, "wg_") {
			t.Errorf("%s settings:\n%s", name, s)
		}
	}
	if strings.Contains(out.String()+errb.String(), "wg_SECRET") || !strings.Contains(out.String(), "$WEBGATE_GATEWAY_TOKEN") {
		t.Errorf("output:\n%s%s", out.String(), errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, ".gemini", "settings.json")); err == nil {
		t.Error("Gemini CLI, which has no HTTP hooks, got a registration")
	}
	out.Reset()
	if code := run(context.Background(), []string{"install", "--target", "gemini-cli", "--gateway", "http://127.0.0.1:8787"}, nil, &out, &errb); code == 0 {
		t.Error("install --gateway for Gemini CLI succeeded")
	}
	if code := run(context.Background(), []string{"install", "--gateway", "http://127.0.0.1:8787", "--gateway-token-env", "A-B"}, nil, &out, &errb); code != exitUsage {
		t.Errorf("a bad variable name: %d", code)
	}
	if code := run(context.Background(), []string{"uninstall", "--target", "all"}, nil, &out, &errb); code != 0 {
		t.Fatalf("uninstall: %d %s", code, errb.String())
	}
	for _, p := range []string{filepath.Join(dir, ".claude", "settings.json"), filepath.Join(dir, ".copilot", "hooks", "webgate.json")} {
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), "/v1/hooks/") {
			t.Errorf("uninstall left %s:\n%s", p, data)
		}
	}
}
