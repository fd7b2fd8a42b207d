package hookenv

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/hooks/worker"
	"github.com/webgate-dev/webgate/internal/fakeweb"
)

// A warm worker's call with WEBGATE_GATEWAY_URL is forwarded to the
// gateway as it is, with the token, and its answer is the hook's; a
// gateway that is down gives no answer and says why.
func TestWarm_ForwardsToTheGateway(t *testing.T) {
	var got struct {
		path, auth, body string
	}
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.path, got.auth, got.body = r.URL.Path, r.Header.Get("Authorization"), string(b)
		_, _ = io.WriteString(w, `{"decision":"from the gateway"}`)
	}))
	t.Cleanup(gw.Close)
	w := NewWarm()
	t.Cleanup(w.Close)
	payload := `{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://go.dev/"}}`
	call := func(base string) worker.Answer {
		return w.ServeCall(context.Background(), &worker.Call{Hook: "webfetch", Payload: []byte(payload), Start: time.Now(),
			Env: []string{"HOME=" + t.TempDir(), "WEBGATE_GATEWAY_URL=" + base + "/", "WEBGATE_GATEWAY_TOKEN=wg_tok"}})
	}
	a := call(gw.URL)
	if string(a.Stdout) != `{"decision":"from the gateway"}` || a.Exit != 0 || got.path != "/v1/hooks/webfetch" || got.auth != "Bearer wg_tok" || got.body != payload {
		t.Fatalf("answer %q %q; the gateway got %+v", a.Stdout, a.Stderr, got)
	}
	down := "http://" + fakeweb.RefusedAddr(t)
	a = call(down)
	if len(a.Stdout) != 0 || a.Exit != 0 || !strings.Contains(string(a.Stderr), "not reachable") || strings.Contains(string(a.Stderr), "wg_tok") {
		t.Fatalf("down: %q %q", a.Stdout, a.Stderr)
	}
}
