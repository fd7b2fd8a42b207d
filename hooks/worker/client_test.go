//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package worker

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestWarmFrames_RoundTripAndBounds(t *testing.T) {
	var buf bytes.Buffer
	req := Request{Version: Version, Key: "k", Hook: "websearch", Start: 42, Sent: 43, Env: []string{"A=1"}, Payload: []byte(`{"x":1}`)}
	if err := WriteFrame(&buf, &req); err != nil {
		t.Fatal(err)
	}
	var got Request
	if err := ReadFrame(&buf, &got); err != nil {
		t.Fatal(err)
	}
	if got.Key != "k" || got.Hook != "websearch" || got.Start != 42 || got.Sent != 43 || string(got.Payload) != `{"x":1}` || len(got.Env) != 1 {
		t.Errorf("round trip: %+v", got)
	}
	// A length past the bound is refused before anything is allocated.
	var huge bytes.Buffer
	_ = binary.Write(&huge, binary.BigEndian, uint32(MaxFrame+1))
	if err := ReadFrame(&huge, &got); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("oversized frame: %v", err)
	}
	// A frame cut short is an error, not a partial request.
	var cut bytes.Buffer
	_ = WriteFrame(&cut, &req)
	short := bytes.NewReader(cut.Bytes()[:cut.Len()-3])
	if err := ReadFrame(short, &got); err == nil {
		t.Error("a truncated frame was read")
	}
}

func TestLayoutFor_FollowsTheStateDirectory(t *testing.T) {
	cases := []struct {
		env  []string
		want string
	}{
		{[]string{"WEBGATE_STATE_DIR=/s", "XDG_STATE_HOME=/x", "HOME=/h"}, "/s/run"},
		{[]string{"WEBGATE_STATE_DIR=rel", "XDG_STATE_HOME=/x", "HOME=/h"}, "/x/webgate/run"},
		{[]string{"XDG_STATE_HOME=rel", "HOME=/h"}, "/h/.local/state/webgate/run"},
		{[]string{"HOME=rel"}, ""},
		{nil, ""},
	}
	for _, c := range cases {
		if got := LayoutFor(envOf(c.env...)).Dir; got != c.want {
			t.Errorf("LayoutFor(%v) = %q, want %q", c.env, got, c.want)
		}
	}
}

func TestSocketFor_OneWorkerPerBinaryDirectoryAndProcessEnvironment(t *testing.T) {
	dir := t.TempDir()
	worker := filepath.Join(dir, "webgate-hook")
	if err := os.WriteFile(worker, []byte("v1"), 0o700); err != nil {
		t.Fatal(err)
	}
	base := []string{"WEBGATE_STATE_DIR=/s", "HOME=/h", "PATH=/bin", "TMPDIR=/tmp"}
	sock, key, err := socketFor(worker, "/proj", envOf(base...))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sock, "/s/run/") || !strings.HasSuffix(sock, ".sock") || !strings.Contains(key, strings.TrimSuffix(filepath.Base(sock), ".sock")) {
		t.Errorf("socket %q, key %q", sock, key)
	}
	// The same inputs give the same socket; per-call settings (keys, the
	// configuration, a trace id) do not change it.
	s2, k2, _ := socketFor(worker, "/proj", envOf(append(base, "TAVILY_API_KEY=tvly-x", "TRACEPARENT=00-1", "WEBGATE_SEARCH_MODE=fallback")...))
	if s2 != sock || k2 != key {
		t.Errorf("per-call variables changed the socket: %q %q", s2, k2)
	}
	differs := func(name, s, k string) {
		t.Helper()
		if s == sock || k == key {
			t.Errorf("%s: same socket %q / key", name, s)
		}
	}
	s, k, _ := socketFor(worker, "/other", envOf(base...))
	differs("another directory", s, k)
	for _, v := range []string{"HOME=/h2", "PATH=/usr/bin", "TMPDIR=/var/tmp"} {
		s, k, _ = socketFor(worker, "/proj", envOf(append(base, v)...))
		differs(v, s, k)
	}
	// A new build of the worker gets a new warm worker.
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(worker, []byte("v2, longer"), 0o700); err != nil {
		t.Fatal(err)
	}
	s, k, _ = socketFor(worker, "/proj", envOf(base...))
	differs("a rebuilt worker", s, k)

	if _, _, err := socketFor(filepath.Join(dir, "missing"), "/proj", envOf(base...)); err == nil {
		t.Error("a missing worker has a socket")
	}
	if _, _, err := socketFor(worker, "/proj", envOf("PATH=/bin")); err == nil {
		t.Error("no state directory, yet a socket")
	}
	long := "/" + strings.Repeat("d", 120)
	if _, _, err := socketFor(worker, "/proj", envOf("WEBGATE_STATE_DIR="+long)); err == nil {
		t.Error("a socket path longer than a socket address holds")
	}
	s, _, err = socketFor(worker, "/proj", envOf("WEBGATE_STATE_DIR="+long, "XDG_RUNTIME_DIR=/run/user/7"))
	if err != nil || !strings.HasPrefix(s, "/run/user/7/webgate/") {
		t.Errorf("with a long state directory and a runtime directory: %q, %v", s, err)
	}
}

func TestPrivateDir_OnlyTheUsersOwnClosedDirectory(t *testing.T) {
	root := t.TempDir()
	private := filepath.Join(root, "private")
	open := filepath.Join(root, "open")
	link := filepath.Join(root, "link")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(private, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{private: true, open: false, link: false, file: false, filepath.Join(root, "none"): false} {
		if got := PrivateDir(path); got != want {
			t.Errorf("PrivateDir(%s) = %v, want %v", filepath.Base(path), got, want)
		}
	}
}

func TestOff(t *testing.T) {
	for v, want := range map[string]bool{"off": true, " OFF ": true, "warm": false, "": false} {
		if got := Off(envOf(OffEnv + "=" + v)); got != want {
			t.Errorf("Off(%q) = %v", v, got)
		}
	}
	if Off(envOf()) {
		t.Error("unset turns the warm worker off")
	}
}

func TestFrontStart_OnlyARecentMoment(t *testing.T) {
	now := time.Now()
	if got, ok := FrontStart(envOf(FrontEnv + "=" + strconv.FormatInt(now.Add(-time.Second).UnixNano(), 10))); !ok || got.IsZero() || now.Sub(got) < time.Second {
		t.Errorf("a second ago: %v %v", got, ok)
	}
	for _, v := range []string{"1", "x", strconv.FormatInt(now.Add(time.Hour).UnixNano(), 10), strconv.FormatInt(now.Add(-2*time.Minute).UnixNano(), 10)} {
		if got, ok := FrontStart(envOf(FrontEnv + "=" + v)); !ok || !got.IsZero() {
			t.Errorf("%q: %v %v, want set but no moment", v, got, ok)
		}
	}
	if _, ok := FrontStart(envOf()); ok {
		t.Error("unset, yet a front")
	}
}

// socketFor is [SocketFor] with the socket's path.
func socketFor(worker, cwd string, env Env) (socket, key string, err error) {
	f, key, err := SocketFor(worker, cwd, env)
	return f.Socket, key, err
}
