package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The gateway's commands end to end on one SQLite store: a token is
// created, the server answers with it and refuses without it, SIGTERM's
// context stops it cleanly, and the audit log verifies.
func TestServe_TokenServeAuditVerify(t *testing.T) {
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "XDG_STATE_HOME=" + filepath.Join(dir, "state"), "WEBGATE_STORE=sqlite://" + filepath.Join(dir, "gw.db")}
	old := currentHost
	currentHost = func() hostEnv { return hostEnv{Env: env, Home: dir, WorkDir: dir} }
	t.Cleanup(func() { currentHost = old })

	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"token", "create", "--owner", "ana"}, nil, &out, &errb); code != 0 {
		t.Fatalf("token create: %d %s", code, errb.String())
	}
	secret := strings.TrimSpace(out.String())
	if !strings.HasPrefix(secret, "wg_") {
		t.Fatalf("secret %q", secret)
	}
	// The server picks its port and names it in its "listening" log line.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	logs := &lockedBuffer{}
	go func() { done <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0"}, nil, io.Discard, logs) }()
	base := ""
	var resp *http.Response
	err := errors.New("not listening")
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if base == "" {
			if i := strings.Index(logs.String(), `"msg":"listening","addr":"`); i >= 0 {
				addr := logs.String()[i+len(`"msg":"listening","addr":"`):]
				base = "http://" + addr[:strings.IndexByte(addr, '"')]
			}
			continue
		}
		if resp, err = http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
	}
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz at %q: %v %v\n%s", base, resp, err, logs.String())
	}
	ask := func(secret string) int {
		req, _ := http.NewRequest("POST", base+"/v1/fetch", strings.NewReader(`{"url":"http://127.0.0.1:1/"}`))
		if secret != "" {
			req.Header.Set("Authorization", "Bearer "+secret)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := ask(""); got != 401 {
		t.Errorf("without a token: %d", got)
	}
	if got := ask(secret); got != 400 {
		t.Errorf("a loopback URL on a shared server: %d, want 400", got)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d", code)
		}
	case <-time.After(40 * time.Second):
		t.Fatal("serve did not stop")
	}
	out.Reset()
	if code := run(context.Background(), []string{"audit", "verify"}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "1 entries") {
		t.Fatalf("audit verify: %d %s %s", code, out.String(), errb.String())
	}
	out.Reset()
	run(context.Background(), []string{"token", "list"}, nil, &out, &errb)
	id := strings.Fields(strings.Split(out.String(), "\n")[1])[0]
	if code := run(context.Background(), []string{"token", "revoke", id}, nil, &out, &errb); code != 0 {
		t.Fatalf("revoke: %s", errb.String())
	}
}

// lockedBuffer is a bytes.Buffer that a server's goroutines may write
// while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A gateway whose OIDC settings cannot be right does not start: an
// issuer over plain http off loopback, or an issuer without an audience.
func TestServe_RefusesBadOIDCSettings(t *testing.T) {
	for _, c := range []struct{ env, want string }{
		{"WEBGATE_GATEWAY_OIDC_ISSUER=http://id.example.com", "want https"},
		{"WEBGATE_GATEWAY_OIDC_ISSUER=https://id.example.com", `audience ""`},
	} {
		dir := t.TempDir()
		env := []string{"HOME=" + dir, "XDG_STATE_HOME=" + filepath.Join(dir, "state"), "WEBGATE_STORE=sqlite://" + filepath.Join(dir, "gw.db"),
			c.env, "WEBGATE_GATEWAY_OIDC_AUDIENCE=" + map[bool]string{true: "https://gw.example.com", false: ""}[strings.Contains(c.env, "http://")]}
		old := currentHost
		currentHost = func() hostEnv { return hostEnv{Env: env, Home: dir, WorkDir: dir} }
		var errb bytes.Buffer
		code := run(context.Background(), []string{"serve", "--listen", "127.0.0.1:0"}, nil, io.Discard, &errb)
		currentHost = old
		if code != exitFail || !strings.Contains(errb.String(), "gateway.oidc") || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d naming gateway.oidc and %q", c.env, code, errb.String(), exitFail, c.want)
		}
	}
}
