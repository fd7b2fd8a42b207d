//go:build unix

package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
}

// noHang fails the test when f takes more than a few seconds.
func noHang(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("blocked")
	}
}

func TestResolveLinks(t *testing.T) {
	d := t.TempDir()
	real := filepath.Join(d, "dots", "real", "settings.json")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.WriteFile(real, []byte("{}"), 0o600)
	os.MkdirAll(filepath.Join(d, "dots", "linked"), 0o755)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("real/settings.json", filepath.Join(d, "dots", "hop.json")))
	os.MkdirAll(filepath.Join(d, "home"), 0o755)
	must(os.Symlink("../dots/hop.json", filepath.Join(d, "home", "rel.json")))
	// home/cfg -> dots/linked; dots/linked/s.json -> ../real/settings.json
	must(os.Symlink(filepath.Join(d, "dots", "linked"), filepath.Join(d, "home", "cfg")))
	must(os.Symlink("../real/settings.json", filepath.Join(d, "dots", "linked", "s.json")))
	must(os.Symlink(filepath.Join(d, "nowhere", "new.json"), filepath.Join(d, "home", "dangling.json")))
	must(os.Symlink("loop-b", filepath.Join(d, "home", "loop-a")))
	must(os.Symlink("loop-a", filepath.Join(d, "home", "loop-b")))
	for _, tc := range []struct{ in, want string }{
		{real, real},
		{filepath.Join(d, "home", "rel.json"), real},
		{filepath.Join(d, "home", "cfg", "s.json"), filepath.Join(d, "dots", "linked", "..", "real", "settings.json")},
		{filepath.Join(d, "home", "dangling.json"), filepath.Join(d, "nowhere", "new.json")},
		{filepath.Join(d, "home", "missing.json"), filepath.Join(d, "home", "missing.json")},
	} {
		got, err := ResolveLinks(tc.in)
		if err != nil || filepath.Clean(got) != filepath.Clean(tc.want) {
			t.Errorf("ResolveLinks(%s) = %s, %v; want %s", tc.in, got, err, filepath.Clean(tc.want))
		}
	}
	if _, err := ResolveLinks(filepath.Join(d, "home", "loop-a")); !errors.Is(err, ErrTooManyLinks) {
		t.Errorf("loop: err = %v", err)
	}
}

func TestWriteFile_WritesThroughLinksKeepingTheModeAndTheLink(t *testing.T) {
	d := t.TempDir()
	target := filepath.Join(d, "target.json")
	os.WriteFile(target, []byte("old"), 0o600)
	os.Chmod(target, 0o640)
	link := filepath.Join(d, "link.json")
	os.Symlink("target.json", link)
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	if got, _ := os.ReadFile(target); string(got) != "new" {
		t.Fatalf("target holds %q", got)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(d)
	if len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestWriteFile_CreatesTheTargetOfADanglingLink(t *testing.T) {
	d := t.TempDir()
	link := filepath.Join(d, "link.json")
	os.Symlink("new.json", link)
	if err := WriteFile(link, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(d, "new.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("new file: %v %v", fi, err)
	}
}

func TestWriteFile_KeepsHardLinks(t *testing.T) {
	d := t.TempDir()
	a, b := filepath.Join(d, "a.json"), filepath.Join(d, "b.json")
	os.WriteFile(a, []byte("old content"), 0o600)
	if err := os.Link(a, b); err != nil {
		t.Skip(err)
	}
	if err := WriteFile(a, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(b); string(got) != "new" {
		t.Fatalf("the other name holds %q", got)
	}
}

func TestWriteFile_RefusesAFIFOWithoutOpeningIt(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "settings.json")
	mkfifo(t, p)
	link := filepath.Join(d, "link.json")
	os.Symlink("settings.json", link)
	for _, name := range []string{p, link} {
		noHang(t, func() {
			if err := WriteFile(name, []byte("x"), 0o644); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
				t.Errorf("%s: err = %v", name, err)
			}
		})
	}
	if fi, _ := os.Lstat(p); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
}

func TestOpen_RefusesAFIFOAndReadsARegularFile(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "page.html")
	mkfifo(t, p)
	noHang(t, func() {
		if _, err := Open(p); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("err = %v", err)
		}
	})
	if _, err := Open("/dev/zero"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/zero: err = %v", err)
	}
	r := filepath.Join(d, "r.html")
	os.WriteFile(r, []byte("<p>hi"), 0o600)
	f, err := Open(r)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, _ := io.ReadAll(f); string(b) != "<p>hi" {
		t.Errorf("read %q", b)
	}
}

func TestOpenNoWait_DoesNotBlockOnAFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	mkfifo(t, p)
	// The check Open makes before opening is skipped here: this is the
	// FIFO put in place after the check.
	noHang(t, func() {
		f, err := openNoWait(p, os.O_RDONLY)
		if err == nil {
			f.Close()
		}
	})
}

func TestReplace_ReplacesTheNameItselfNeverALinksTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "state")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Replace(link, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "kept" {
		t.Errorf("the link's target was written: %q", b)
	}
	fi, err := os.Lstat(link)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the name is now %v (%v), want a regular file of mode 0600", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(link); string(b) != "new" {
		t.Errorf("content %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestNotRegular_NamesWhatTheFileIs(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		fs.ModeSymlink:   "not a regular file: it is a symbolic link",
		fs.ModeDir:       "not a regular file: it is a directory",
		fs.ModeNamedPipe: "not a regular file: it is a named pipe",
	} {
		err := NotRegular(m)
		if !errors.Is(err, ErrNotRegular) || err.Error() != want {
			t.Errorf("NotRegular(%v) = %v, want %q", m, err, want)
		}
	}
}

// TestWriteFileKeepsOwner: a file rewritten by root (an install run under
// sudo) keeps its owner and group, and its mode, instead of becoming
// root's.
func TestWriteFileKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	p := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(p, []byte("{}"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Skip("chown:", err)
	}
	if err := WriteFile(p, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != 65534 || st.Gid != 65534 || fi.Mode().Perm() != 0o640 {
		t.Errorf("after WriteFile: uid %d gid %d mode %v, want 65534 65534 -rw-r-----", st.Uid, st.Gid, fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(p); string(b) != `{"a":1}` {
		t.Errorf("content %q", b)
	}
}

// TestWriteFileRefusesToTakeAnotherUsersFile: a process that may not give
// a rewritten file back to its owner (not root) refuses, and the file is
// left as it was. Run as root, the test runs itself again as uid 65534 on
// a file root owns in a directory that user may write.
func TestWriteFileRefusesToTakeAnotherUsersFile(t *testing.T) {
	if p := os.Getenv("SAFEFILE_TEST_FOREIGN"); p != "" {
		err := WriteFile(p, []byte("new"), 0o644)
		if !errors.Is(err, ErrOwner) {
			t.Fatalf("WriteFile as uid %d: %v, want ErrOwner", os.Geteuid(), err)
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	d := t.TempDir()
	for _, dir := range []string{filepath.Dir(d), d} {
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	bin := filepath.Join(d, "safefile.test")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Skip(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d, "settings.json")
	if err := os.WriteFile(p, []byte("old"), 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o666)
	cmd := exec.Command(bin, "-test.run=^TestWriteFileRefusesToTakeAnotherUsersFile$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SAFEFILE_TEST_FOREIGN="+p)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("as uid 65534: %v\n%s", err, out)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 0 {
		t.Errorf("the file now belongs to uid %d", st.Uid)
	}
	if got, _ := os.ReadFile(p); string(got) != "old" {
		t.Errorf("content %q, want it left as it was", got)
	}
}
