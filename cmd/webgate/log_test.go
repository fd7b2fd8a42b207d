package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/assemble"
	"github.com/webgate-dev/webgate/config"
)

func TestLog_AnEmptyLogSaysSo(t *testing.T) {
	h := newTestHost(t)
	h.env["WEBGATE_STORE_TIMEOUT"] = "5s"
	// A store that exists (the hooks have opened it) but holds no decision.
	var env []string
	for k, v := range h.env {
		env = append(env, k+"="+v)
	}
	cfg, err := config.Load(&config.LoadOptions{Env: env, HomeDir: h.home})
	if err != nil {
		t.Fatal(err)
	}
	m, err := assemble.OpenMemory(context.Background(), cfg)
	if err != nil || m == nil {
		t.Fatalf("open memory: %v", err)
	}
	m.Store().Close()
	if _, err := os.Stat(locateStore(cfg).Path); err != nil {
		t.Fatalf("the store was not created: %v", err)
	}

	code, out, errOut := h.run("", "log")
	if code != exitOK || out != "" || !strings.Contains(errOut, "webgate log: no decisions recorded yet in sqlite ") {
		t.Errorf("code %d, stdout %q, stderr %q; want a note that the log is empty", code, out, errOut)
	}
	code, out, errOut = h.run("", "log", "--json")
	if code != exitOK || out != "" || !strings.Contains(errOut, "no decisions recorded yet") {
		t.Errorf("--json: code %d, stdout %q, stderr %q; want nothing on stdout and the note on stderr", code, out, errOut)
	}
}
