//go:build linux

package hooks_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/hooks/gate"
	"github.com/webgate-dev/webgate/hooks/worker"
	"github.com/webgate-dev/webgate/internal/proctest"
)

// A warm worker serves only callers of its own world: its user, its
// namespaces, its root and working directories and its process
// environment. Any other caller is refused, and its front runs the worker
// itself, in the caller's world.

// warmCallerEnv, set to a socket path, runs the test binary as a caller of
// the warm worker there (see [warmCaller]).
const warmCallerEnv = "WEBGATE_TEST_WARM_CALLER"

// warmListenerEnv, set to a socket path, runs the test binary as a
// listener there (see [warmListener]).
const warmListenerEnv = "WEBGATE_TEST_WARM_LISTENER"

// warmHelper runs the test binary as a helper when the environment says
// so: a caller ([warmCaller]) or a listener ([warmListener]).
func warmHelper() (int, bool) {
	switch {
	case os.Getenv(warmCallerEnv) != "":
		return warmCaller(), true
	case os.Getenv(warmListenerEnv) != "":
		return warmListener(), true
	}
	return 0, false
}

// warmListener listens on the socket $WEBGATE_TEST_WARM_LISTENER as a
// warm worker would, says "ready" on stdout, and then prints how many
// bytes its first caller sent before closing the connection.
func warmListener() int {
	socket := os.Getenv(warmListenerEnv)
	_ = os.Remove(socket)
	ln, err := net.Listen("unix", socket)
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		return 1
	}
	defer ln.Close()
	fmt.Println("ready")
	_ = ln.(*net.UnixListener).SetDeadline(time.Now().Add(60 * time.Second))
	c, err := ln.Accept()
	if err != nil {
		fmt.Fprintln(os.Stderr, "accept:", err)
		return 1
	}
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	n, err := io.Copy(io.Discard, c)
	fmt.Println(n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "read:", err)
	}
	return 0
}

// warmCaller speaks the fronts' protocol to the warm worker whose socket
// is in $WEBGATE_TEST_WARM_CALLER, with the key in
// $WEBGATE_TEST_WARM_KEY, its own environment and a search payload; it
// prints the replies it gets as JSON lines on stdout.
func warmCaller() int {
	socket := os.Getenv(warmCallerEnv)
	key := os.Getenv("WEBGATE_TEST_WARM_KEY")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, warmCallerEnv+"=") && !strings.HasPrefix(kv, "WEBGATE_TEST_WARM_KEY=") {
			env = append(env, kv)
		}
	}
	c, err := net.Dial("unix", socket)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dial:", err)
		return 1
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	now := time.Now().UnixNano()
	req := worker.Request{Version: worker.Version, Key: key, Hook: gate.WebSearch, Start: now, Sent: now, Env: env,
		Payload: searchPayload("asked from elsewhere", goDomains, nil)}
	if err := worker.WriteFrame(c, &req); err != nil {
		fmt.Fprintln(os.Stderr, "write:", err)
		return 1
	}
	out := json.NewEncoder(os.Stdout)
	for {
		var reply worker.Reply
		if err := worker.ReadFrame(c, &reply); err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintln(os.Stderr, "read:", err)
			}
			return 0
		}
		_ = out.Encode(&reply)
		if reply.Refused != "" || reply.Final {
			return 0
		}
	}
}

// sandboxed returns the attributes of a process in a user and a network
// namespace of its own, with this process's user and group mapped to
// themselves: a network-restricted sandbox that shares the file system.
func sandboxed() *syscall.SysProcAttr {
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
	}
}

// skipWithoutUserNamespaces skips the test when the kernel does not let
// this process make a user namespace (err is what starting one gave).
func skipWithoutUserNamespaces(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EUSERS) || errors.Is(err, syscall.EACCES) {
		t.Skipf("the kernel forbids this user new user namespaces (%v): the warm worker's refusal of another namespace is not tested here", err)
	}
}

// askWarmAs runs this test binary as a caller ([warmCaller]) of the warm
// worker that serves the environment served (its socket and key), in dir
// (the worker's own when empty), with env and with attr. It returns the
// replies.
func askWarmAs(t *testing.T, served, env []string, dir string, attr *syscall.SysProcAttr, wrap ...string) []worker.Reply {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	files, key, err := worker.SocketFor(binary(t, "webgate-hook"), wd, worker.EnvList(served))
	if err != nil {
		t.Fatal(err)
	}
	argv := append(slices.Clip(wrap), os.Args[0])
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(slices.Clip(env), warmCallerEnv+"="+files.Socket, "WEBGATE_TEST_WARM_KEY="+key)
	cmd.Dir = dir
	cmd.SysProcAttr = attr
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		skipWithoutUserNamespaces(t, err)
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the caller: %v\n%s", err, errb.String())
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the caller did not finish\n%s", errb.String())
	}
	var replies []worker.Reply
	dec := json.NewDecoder(&out)
	for {
		var r worker.Reply
		if err := dec.Decode(&r); err != nil {
			break
		}
		replies = append(replies, r)
	}
	return replies
}

func TestWarmWorker_ServesOnlyCallersOfItsOwnWorld(t *testing.T) {
	f, state, env, pid := startWarm(t)
	cases := []struct {
		name    string
		env     []string
		dir     string
		wrap    []string // a program the caller runs under
		attr    func() *syscall.SysProcAttr
		refused []string // what the refusal names; none: served
	}{
		{name: "the same world", env: env},
		{name: "a sandbox: another user and network namespace", env: env, attr: sandboxed,
			refused: []string{"user namespace", "network namespace"}},
		{name: "another working directory, with the worker's key", env: env, dir: t.TempDir(),
			refused: []string{"working directory"}},
		// A Landlock or seccomp sandbox shares every namespace, but not
		// what no_new_privs (which Landlock needs) marks.
		{name: "a caller under no_new_privs", env: env, wrap: []string{"setpriv", "--no-new-privs"},
			refused: []string{"confinement"}},
		// Where fetch.pdftotext and every program a call names are found.
		{name: "another PATH, with the worker's key", env: append(slices.Clip(env), "PATH=/tmp/elsewhere:/usr/bin:/bin"),
			refused: []string{"process environment"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var attr *syscall.SysProcAttr
			if c.attr != nil {
				attr = c.attr()
			}
			before := f.Count()
			if len(c.wrap) > 0 {
				if _, err := exec.LookPath(c.wrap[0]); err != nil {
					t.Skip(c.wrap[0], "is not installed")
				}
			}
			replies := askWarmAs(t, env, c.env, c.dir, attr, c.wrap...)
			if len(replies) == 0 {
				t.Fatal("no reply from the warm worker")
			}
			if c.refused == nil {
				if replies[0].Refused != "" || len(replies) != 2 || !replies[1].Final || !bytes.Contains(replies[1].Stdout, []byte("Tavily: context package")) {
					t.Fatalf("a caller of the worker's own world not served: %s", describe(replies))
				}
				return
			}
			if len(replies) != 1 || replies[0].Refused == "" {
				t.Fatalf("served a caller of another world: %s", describe(replies))
			}
			for _, w := range c.refused {
				if !strings.Contains(replies[0].Refused, w) {
					t.Errorf("the refusal %q does not name the %s", replies[0].Refused, w)
				}
			}
			if f.Count() != before {
				t.Errorf("the refused call reached the provider (%d requests, was %d)", f.Count(), before)
			}
		})
	}
	// Refusing is not failing: the warm worker still serves.
	if p := proctest.WarmWorker(worker.StateLayout(state).Serving(), 0); p != pid {
		t.Errorf("warm worker %d replaced by %d after the refusals", pid, p)
	}
}

func TestWarmWorker_AFrontInASandboxRunsTheWorkerInItsOwnWorld(t *testing.T) {
	f, state, env, pid := startWarm(t)
	before := f.Count()
	cmd := exec.Command(binary(t, "websearch"))
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(searchPayload("from the sandbox", goDomains, nil))
	cmd.SysProcAttr = sandboxed()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		skipWithoutUserNamespaces(t, err)
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the front in the sandbox: %v\n%s", err, errb.String())
	}
	// The warm worker refused it, and the worker the front ran had the
	// sandbox's network, in which the loopback provider does not exist: it
	// stepped aside, and the provider was not asked.
	if f.Count() != before {
		t.Errorf("the sandbox's search reached the host's loopback provider (%d requests, was %d)", f.Count(), before)
	}
	if bytes.Contains(out.Bytes(), []byte("Tavily: context package")) {
		t.Errorf("the sandbox got an answer from the host's network: %s", out.String())
	}
	if !strings.Contains(errb.String(), "passing through") {
		t.Errorf("the worker run in the sandbox did not say it steps aside: %q", errb.String())
	}
	if p := proctest.WarmWorker(worker.StateLayout(state).Serving(), 0); p != pid {
		t.Errorf("warm worker %d replaced by %d after the sandbox's call", pid, p)
	}
}

// describe shows a warm worker's replies for a test's message.
func describe(replies []worker.Reply) string {
	var b strings.Builder
	for _, r := range replies {
		fmt.Fprintf(&b, "\n{budget %v, refused %q, final %v, stdout %.200q, stderr %.200q}", r.Budget, r.Refused, r.Final, r.Stdout, r.Stderr)
	}
	return b.String()
}

func TestWarmWorker_AFrontSendsNothingToAListenerInAnotherNamespace(t *testing.T) {
	// A sandbox that shares the state directory listens on the socket of
	// the host's warm worker before one is up.
	f := newTavilyFake(t)
	state := warmState(t)
	env := warmEnv(t, state, f, workingKey)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := worker.SocketFor(binary(t, "webgate-hook"), wd, worker.EnvList(env))
	socket := files.Socket
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(socket), 0o700); err != nil {
		t.Fatal(err)
	}
	listener := exec.Command(os.Args[0])
	listener.Env = []string{warmListenerEnv + "=" + socket}
	listener.SysProcAttr = sandboxed()
	out, err := listener.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var lerr bytes.Buffer
	listener.Stderr = &lerr
	if err := listener.Start(); err != nil {
		skipWithoutUserNamespaces(t, err)
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = listener.Process.Kill(); _ = listener.Wait() })
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("the listener in the sandbox did not start: %q\n%s", lines.Text(), lerr.String())
	}
	// The host's front connects, finds the listener in another world,
	// sends it nothing (the call's environment holds its keys) and runs
	// the worker itself.
	searchDenied(t, env, "to the host")
	if !lines.Scan() {
		t.Fatalf("the listener said nothing more\n%s", lerr.String())
	}
	if got := lines.Text(); got != "0" {
		t.Errorf("the front sent %s bytes (its environment, keys included) to a listener in another namespace", got)
	}
}

// A warm worker that only refuses (its callers' directory was replaced
// under the same path, say) idles out like one that gets no call, so that
// the next call starts one that serves.
func TestWarmWorker_RefusedCallsDoNotKeepItUp(t *testing.T) {
	_, _, env, pid := startWarm(t, "WEBGATE_HOOKS_WORKER_IDLE=2s")
	other := t.TempDir()
	deadline := time.Now().Add(20 * time.Second)
	for proctest.Running(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("warm worker %d still up after 20 s of refused calls and an idle time of 2 s", pid)
		}
		replies := askWarmAs(t, env, env, other, nil)
		if len(replies) == 1 && replies[0].Refused == "" {
			t.Fatalf("a caller of another working directory was served: %s", describe(replies))
		}
		time.Sleep(300 * time.Millisecond)
	}
}
