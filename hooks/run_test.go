package hooks

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

func runHook(t *testing.T, stdin io.Reader, h Handler) (stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Run(context.Background(), stdin, &out, &errb, h); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	return out.String(), errb.String()
}

func TestRun_WritesTheDecisionAndDiagnostics(t *testing.T) {
	out, errs := runHook(t, strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"x"}}`),
		func(ctx context.Context, in *Input) Decision {
			return Decision{Action: Deny, Reason: "R", Diagnostics: []string{"line one\nline two"}}
		})
	if out != `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}`+"\n" {
		t.Errorf("stdout = %q", out)
	}
	if errs != "webgate: line one\nwebgate: line two\n" {
		t.Errorf("stderr = %q", errs)
	}
}

func TestRun_PassesThroughOnBadInput(t *testing.T) {
	called := false
	h := func(context.Context, *Input) Decision { called = true; return Decision{Action: Deny, Reason: "R"} }
	for _, in := range []string{"", "garbage", "[]", `{"unrelated":true}`} {
		out, errs := runHook(t, strings.NewReader(in), h)
		if out != "" || !strings.Contains(errs, "passing through") {
			t.Errorf("%q: stdout %q stderr %q", in, out, errs)
		}
	}
	if called {
		t.Error("handler was called for bad input")
	}
}

func TestRun_RejectsAnEnormousStdinAndDrainsIt(t *testing.T) {
	big := strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"` + strings.Repeat("a", DefaultMaxInputBytes) + `"}}`)
	out, errs := runHook(t, big, func(context.Context, *Input) Decision { return Decision{Action: Deny, Reason: "R"} })
	if out != "" || !strings.Contains(errs, "hook input too large") {
		t.Errorf("stdout %q stderr %q", out, errs)
	}
	if big.Len() != 0 {
		t.Errorf("%d bytes left unread", big.Len())
	}
}

func TestRun_RecoversFromAPanic(t *testing.T) {
	out, errs := runHook(t, strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"WebSearch"}`),
		func(context.Context, *Input) Decision { panic("boom") })
	if out != "" || !strings.Contains(errs, "internal error, passing through: boom") {
		t.Errorf("stdout %q stderr %q", out, errs)
	}
}

func TestRun_StepsAsideAtTheContextDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	release := make(chan struct{})
	defer close(release)
	var out, errs bytes.Buffer
	code := Run(ctx, strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"WebSearch"}`), &out, &errs,
		func(context.Context, *Input) Decision { <-release; return Decision{Action: Deny, Reason: "late"} })
	if code != 0 || out.Len() != 0 || !strings.Contains(errs.String(), "time budget exhausted") {
		t.Errorf("code %d stdout %q stderr %q", code, out.String(), errs.String())
	}
}
