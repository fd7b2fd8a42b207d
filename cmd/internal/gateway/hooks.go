package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/hooks"
	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/hooks/worker"
)

// HookPath is the path of a hook endpoint: HookPath+"websearch" and
// HookPath+"webfetch" take a runtime's raw hook payload, as the hook
// binaries of those names read it on stdin.
const HookPath = "/v1/hooks/"

// StrictHookEnv is what the gateway adds to its hook calls' environment,
// after Options.HookEnv. A shared server reads no private, loopback or
// link-local address for a hook, whatever its configuration says
// (gateway.allow_private applies to /v1/fetch and MCP, whose cache it
// scopes to the token); and it reads no Claude Code settings file at the
// paths a caller's payload names (cwd, transcript_path), which are the
// caller's paths, not the gateway's: the settings directories are pinned
// to a path that cannot exist. Nor do its hooks forward to a gateway, as
// a hook with WEBGATE_GATEWAY_URL set does.
var StrictHookEnv = []string{
	"WEBGATE_HOOKS_WEBFETCH_ALLOW_PRIVATE=false",
	"CLAUDE_CONFIG_DIR=" + noDir,
	"CLAUDE_PROJECT_DIR=" + noDir,
	// The hooks answer here, never forward to a gateway (this one).
	"WEBGATE_GATEWAY_URL=",
}

// noDir is a path that is never a directory: /dev/null is a device.
const noDir = "/dev/null/webgate-gateway"

// hookRoute is the metrics route of a hook endpoint.
func hookRoute(p string) (string, bool) {
	name, ok := strings.CutPrefix(p, HookPath)
	if ok && (name == gate.WebSearch || name == gate.WebFetch) {
		return p, true
	}
	return "", false
}

// hook serves POST /v1/hooks/{hook}: the payload, its session scoped to
// the caller's token ([scopeSession]), goes to the same
// [worker.Handler] a local warm worker serves (Options.Hooks), with the
// gateway's environment, and the answer's stdout, the decision JSON the
// local hook would print, is the response body (200; empty when the hook
// passes through). An event the hook certainly ignores ([gate.Relevant])
// is answered at once, costs nothing and is not recorded. Any other is
// admitted by the limits first; when the hook passed through silently
// the reservation is released, when it passed through saying why (a
// systemMessage, or stderr) it counts as a request, and when it answered
// ([answers]) it is charged the credits reserved (the hook does not
// report its provider calls one by one). Each call the
// hook looked at is recorded in the audit log as "hook:websearch" or
// "hook:webfetch", with the query or URL of the tool call.
func (s *Server) hook(w http.ResponseWriter, r *http.Request, c *call) {
	name := r.PathValue("hook")
	if name != gate.WebSearch && name != gate.WebFetch || s.o.Hooks == nil {
		writeError(w, http.StatusNotFound, "not-found", "the gateway serves the hooks websearch and webfetch at "+HookPath+"{hook}")
		return
	}
	start := time.Now()
	payload, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, "bad-input", "the hook payload is larger than "+strconv.FormatInt(mbe.Limit, 10)+" bytes")
			return
		}
		writeError(w, http.StatusBadRequest, "bad-input", "the hook payload could not be read")
		return
	}
	env := s.hookEnv()
	if !gate.Relevant(name, payload, worker.EnvList(env)) {
		w.WriteHeader(http.StatusOK)
		return
	}
	tool := "hook:" + name
	res, ok := s.admit(w, r, c, tool)
	if !ok {
		return
	}
	query, rawURL := hookArgs(name, payload)
	payload = scopeSession(payload, c.token)
	a := s.o.Hooks.ServeCall(r.Context(), &worker.Call{Hook: name, Payload: payload, Env: env, Cwd: s.o.HookCwd, Start: start})
	if a.Refused != "" {
		_ = res.Release(context.WithoutCancel(r.Context()))
		writeError(w, http.StatusNotFound, "not-found", "the hook "+name+" is not served: "+a.Refused)
		return
	}
	decision := "passed"
	var credits int64
	switch {
	case len(bytes.TrimSpace(a.Stdout)) == 0 && len(a.Stderr) == 0:
		decision = ""
	case answers(a.Stdout):
		decision, credits = "answered", s.o.ReserveCredits
	}
	// Settled before the answer, as /v1 calls are: the next call of the
	// token sees what this one used.
	ctx := context.WithoutCancel(r.Context())
	if decision == "" {
		// The hook ignored the event: nothing happened.
		_ = res.Release(ctx)
	} else {
		c.meter.charge(credits, "hook")
		s.settle(ctx, res, c, tool, decision, query, rawURL)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(a.Stdout)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(a.Stdout)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	// The hook's writes that can wait (decision log, usage, cache).
	if a.After != nil {
		a.After()
	}
}

// answers reports whether a hook's output decides the call (a deny with
// the answer, an input rewritten, context added: Claude Code's
// hookSpecificOutput, Copilot CLI's permissionDecision, Gemini CLI's
// decision) rather than only telling the user why it stepped aside (a
// systemMessage alone).
func answers(stdout []byte) bool {
	var o map[string]json.RawMessage
	if json.Unmarshal(stdout, &o) != nil {
		return false
	}
	for _, k := range []string{"hookSpecificOutput", "permissionDecision", "decision"} {
		if _, ok := o[k]; ok {
			return true
		}
	}
	return false
}

// hookEnv is the environment of the gateway's hook calls: Options.HookEnv
// and [StrictHookEnv] after it, which wins.
func (s *Server) hookEnv() []string {
	return append(slices.Clip(s.o.HookEnv), StrictHookEnv...)
}

// charge records credits provider calls made under the name provider,
// for a call that does not report them one by one.
func (m *meter) charge(credits int64, provider string) {
	if credits <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.credits += credits
	if !slices.Contains(m.providers, provider) {
		m.providers = append(m.providers, provider)
	}
}

// hookArgs returns the query or URL of a hook payload's tool call, for
// the audit log.
func hookArgs(name string, payload []byte) (query, rawURL string) {
	in, err := hooks.ParseInput(payload)
	if err != nil || in == nil {
		return "", ""
	}
	if name == gate.WebSearch {
		return in.SearchArgs().Query, ""
	}
	return "", in.FetchArgs().URL
}

// toolErrorBody is the answer to a failed search or fetch: the CLI's
// --json error object, {"error": {"reason", "class", "legacy_class",
// "message", "failed_providers", "timed_out"}}, so that a client prints
// what the local command prints.
func toolErrorBody(err error) map[string]any {
	e := map[string]any{"reason": string(webtools.ReasonOf(err)), "message": err.Error()}
	var we *webtools.Error
	if errors.As(err, &we) {
		if we.Class != "" {
			e["class"] = string(we.Class)
			if l := webtools.LegacyClass(we.Class); l != "" {
				e["legacy_class"] = string(l)
			}
		}
		if len(we.Failures) > 0 {
			e["failed_providers"] = we.Failures
		}
		if we.TimedOut {
			e["timed_out"] = true
		}
	}
	return map[string]any{"error": e}
}

// bodyLimit is the most a request to path may send: Options.MaxBodyBytes,
// and for a hook endpoint at least what a local hook reads
// ([gate.MaxInputBytes]), since a PostToolUse payload carries the tool's
// whole output.
func (s *Server) bodyLimit(path string) int64 {
	if _, ok := hookRoute(path); ok {
		return max(s.o.MaxBodyBytes, gate.MaxInputBytes)
	}
	return s.o.MaxBodyBytes
}
