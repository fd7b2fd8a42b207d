package routing

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newStore(t *testing.T) (*StateStore, *clock) {
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	return &StateStore{Dir: t.TempDir(), Now: c.now}, c
}

func TestStateStore_IdenticalRetryIsReleasedOnce(t *testing.T) {
	s, _ := newStore(t)
	call := Call{Query: "gitlab runners", AllowedDomains: []string{"docs.gitlab.com", "gitlab.com"}}
	if err := s.Remember("sess-1", call); err != nil {
		t.Fatal(err)
	}
	reordered := Call{Query: "gitlab runners", AllowedDomains: []string{"GITLAB.com", "docs.gitlab.com", "gitlab.com"}}
	ok, err := s.Release("sess-1", reordered)
	if err != nil || !ok {
		t.Fatalf("Release = %v, %v; want true", ok, err)
	}
	if ok, _ := s.Release("sess-1", reordered); ok {
		t.Fatal("memory not cleared after the retry")
	}
}

func TestStateStore_DifferentCallsAreNotReleased(t *testing.T) {
	s, _ := newStore(t)
	base := Call{Query: "gitlab runners", BlockedDomains: []string{"a.com"}}
	if err := s.Remember("s", base); err != nil {
		t.Fatal(err)
	}
	for _, c := range []Call{
		{Query: "gitlab runner", BlockedDomains: []string{"a.com"}},
		{Query: "gitlab runners"},
		{Query: "gitlab runners", AllowedDomains: []string{"a.com"}},
		{Query: "gitlab runners", BlockedDomains: []string{"a.com", "b.com"}},
	} {
		if ok, _ := s.Release("s", c); ok {
			t.Errorf("%+v released, but differs from %+v", c, base)
		}
	}
	if ok, _ := s.Release("other-session", base); ok {
		t.Error("another session released the call")
	}
	if ok, _ := s.Release("s", base); !ok {
		t.Error("the identical call was not released")
	}
}

func TestStateStore_RetryAfterTheWindowIsRoutedAgain(t *testing.T) {
	s, c := newStore(t)
	call := Call{Query: "q"}
	if err := s.Remember("s", call); err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(5*time.Minute + time.Second)
	if ok, _ := s.Release("s", call); ok {
		t.Fatal("expired denial was released")
	}
}

func TestStateStore_SessionsAreIndependent(t *testing.T) {
	s, _ := newStore(t)
	a, b := Call{Query: "a"}, Call{Query: "b"}
	s.Remember("s1", a)
	s.Remember("s2", b)
	s.Remember("s1", b)
	if ok, _ := s.Release("s2", a); ok {
		t.Error("s2 released s1's call")
	}
	for _, tc := range []struct {
		sess string
		c    Call
	}{{"s1", a}, {"s2", b}, {"s1", b}} {
		if ok, _ := s.Release(tc.sess, tc.c); !ok {
			t.Errorf("%s %q not released", tc.sess, tc.c.Query)
		}
	}
}

func TestSessionFile_NeverEscapesTheDirectory(t *testing.T) {
	seen := map[string]string{}
	for _, id := range []string{"../../etc/passwd", "..", ".", "", "a/b", `a\b`, "/abs", "ok-id_1", "ok.id", "x\x00y", strings.Repeat("z", 500), "a/b\n", "a_b"} {
		f := SessionFile(id)
		if strings.ContainsAny(f, `/\`) || strings.Contains(f, "..") || filepath.Base(f) != f {
			t.Errorf("SessionFile(%q) = %q escapes", id, f)
		}
		if prev, dup := seen[f]; dup {
			t.Errorf("ids %q and %q share file %q", prev, id, f)
		}
		seen[f] = id
	}
	s, _ := newStore(t)
	if err := s.Remember("../../escape", Call{Query: "q"}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(s.Dir))
	for _, e := range entries {
		if strings.Contains(e.Name(), "escape") {
			t.Fatalf("state written outside the directory: %s", e.Name())
		}
	}
}

func TestStateStore_FilesAreWrittenWithMode0600(t *testing.T) {
	s, _ := newStore(t)
	if err := s.Remember("s", Call{Query: "q"}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(s.Dir, SessionFile("s")))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", info.Mode().Perm())
	}
}

func TestStateStore_CorruptFileIsTreatedAsEmpty(t *testing.T) {
	s, _ := newStore(t)
	name := filepath.Join(s.Dir, SessionFile("s"))
	if err := os.WriteFile(name, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Release("s", Call{Query: "q"}); ok || err != nil {
		t.Fatalf("Release on corrupt state = %v, %v", ok, err)
	}
	if err := s.Remember("s", Call{Query: "q"}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Release("s", Call{Query: "q"}); !ok {
		t.Fatal("state not usable after a corrupt file")
	}
}

func TestStateStore_UnwritableDirectoryIsAnError(t *testing.T) {
	if os.Geteuid() == 0 {
		// root ignores permission bits; use a path under a regular file.
		parent := filepath.Join(t.TempDir(), "file")
		os.WriteFile(parent, nil, 0o600)
		s := &StateStore{Dir: filepath.Join(parent, "state")}
		if err := s.Remember("s", Call{Query: "q"}); err == nil {
			t.Fatal("want an error")
		}
		return
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o500)
	defer os.Chmod(dir, 0o700)
	s := &StateStore{Dir: dir}
	if err := s.Remember("s", Call{Query: "q"}); err == nil {
		t.Fatal("want an error")
	}
}

func TestStateStore_RemovesStaleFilesOfOtherSessions(t *testing.T) {
	s, c := newStore(t)
	s.Remember("old", Call{Query: "q"})
	old := filepath.Join(s.Dir, SessionFile("old"))
	past := c.t.Add(-25 * time.Hour)
	os.Chtimes(old, past, past)
	os.Chtimes(old+".lock", past, past)
	unrelated := filepath.Join(s.Dir, "keep.txt")
	os.WriteFile(unrelated, nil, 0o600)
	os.Chtimes(unrelated, past, past)
	s.Remember("new", Call{Query: "q"})
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("stale session file kept")
	}
	if _, err := os.Stat(old + ".lock"); !os.IsNotExist(err) {
		t.Error("stale lock file kept")
	}
	if _, err := os.Stat(unrelated); err != nil {
		t.Error("a file that is not ours was removed")
	}
}

func TestStateStore_ConcurrentWritersLoseNothing(t *testing.T) {
	s := &StateStore{Dir: t.TempDir()}
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := s.Remember(fmt.Sprintf("session-%d", i%10), Call{Query: fmt.Sprintf("q%d", i)}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	for i := 0; i < 50; i++ {
		if ok, err := s.Release(fmt.Sprintf("session-%d", i%10), Call{Query: fmt.Sprintf("q%d", i)}); !ok || err != nil {
			t.Errorf("call %d lost (%v)", i, err)
		}
	}
}
