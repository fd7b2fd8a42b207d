//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package worker

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// serveFor starts a warm worker in this process that serves handler for
// the fake worker binary it makes, and returns the binary and the
// environment a front finds the socket with.
func serveFor(t *testing.T, handler Handler) (bin string, env Env, done <-chan struct{}) {
	t.Helper()
	state, err := os.MkdirTemp("", "wg") // a socket's path is short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(state) })
	bin = filepath.Join(state, "webgate-hook")
	if err := os.WriteFile(bin, []byte("worker"), 0o700); err != nil {
		t.Fatal(err)
	}
	env = EnvList(append(os.Environ(), "WEBGATE_STATE_DIR="+state))
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	files, key, err := SocketFor(bin, cwd, env)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		if err := Serve(ctx, &ServeOptions{Files: files, Key: key, Handler: handler, Idle: time.Minute, Drain: 5 * time.Second}); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-finished:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return")
		}
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if pid, ok := files.ReadPID(); ok && pid == os.Getpid() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the warm worker did not start serving")
		}
	}
	return bin, env, finished
}

func TestServe_HandsTheCallAndItsContextToTheHandlerAndItsAnswerToTheFront(t *testing.T) {
	var got *Call
	after := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, c *Call) Answer {
		got = c
		if err := c.SetBudget(3 * time.Second); err != nil {
			t.Error(err)
		}
		return Answer{Stdout: []byte(`{"decision":"x"}`), Stderr: []byte("said\n"), Exit: 3, After: func() { close(after) }}
	})
	bin, env, _ := serveFor(t, h)
	start := time.Now().Add(-time.Second)
	var out, errb bytes.Buffer
	code, answered := Ask("websearch", bin, []byte(`{"tool_name":"WebSearch"}`), start, time.Second, env, &out, &errb)
	if !answered || code != 3 || out.String() != `{"decision":"x"}` || errb.String() != "said\n" {
		t.Fatalf("Ask = %d %v, %q %q", code, answered, out.String(), errb.String())
	}
	cwd, _ := os.Getwd()
	if got.Hook != "websearch" || string(got.Payload) != `{"tool_name":"WebSearch"}` || got.Cwd != cwd || !got.Start.Equal(time.Unix(0, start.UnixNano())) || !slices.Equal(got.Env, os.Environ()) {
		t.Errorf("the handler got %+v", got)
	}
	select {
	case <-after:
	case <-time.After(10 * time.Second):
		t.Error("what the answer left for after it did not run")
	}
}

func TestServe_AHandlersRefusalSendsTheFrontToTheWorkerAndARetireEndsIt(t *testing.T) {
	var calls atomic.Int32
	h := HandlerFunc(func(ctx context.Context, c *Call) Answer {
		calls.Add(1)
		if c.Hook != "websearch" {
			return Answer{Refused: "unknown hook"}
		}
		_ = c.SetBudget(time.Second)
		return Answer{Retire: true}
	})
	bin, env, done := serveFor(t, h)
	var out, errb bytes.Buffer
	if _, answered := Ask("other", bin, []byte(`{}`), time.Now(), time.Second, env, &out, &errb); answered {
		t.Errorf("a refused call was answered: %q %q", out.String(), errb.String())
	}
	if _, answered := Ask("websearch", bin, []byte(`{}`), time.Now(), time.Second, env, &out, &errb); !answered {
		t.Error("the call was not answered")
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("an answer that retires the warm worker did not end it")
	}
	if calls.Load() != 2 {
		t.Errorf("%d calls reached the handler, want 2", calls.Load())
	}
}
