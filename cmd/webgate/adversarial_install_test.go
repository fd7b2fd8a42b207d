//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests run the built webgate binary, with a fresh home, on settings
// files and other inputs crafted to hurt it: links, FIFOs, deep nesting,
// byte sequences a decoder rewrites.

// advHookScript stands in for the hook binaries install registers.
const advHookScript = "#!/bin/sh\nif [ \"$1\" = --version ]; then echo \"$(basename \"$0\") v0.0.0\"; exit 0; fi\ncat >/dev/null\n"

// advMemoryLimit is the address space each run may use (ulimit -v, KiB):
// a run that balloons fails instead of taking the machine's memory.
const advMemoryLimit = 1 << 20 // 1 GiB

// advHost is a throwaway machine for one test: a home, a project
// directory, fake hook binaries and the webgate binary built from this
// package.
type advHost struct {
	exe                  string
	dir, home, proj, bin string
	env                  []string
}

func newAdvHost(t *testing.T) *advHost {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the webgate binary")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not found: %v", err)
	}
	d := t.TempDir()
	h := &advHost{dir: d, home: filepath.Join(d, "home"), proj: filepath.Join(d, "proj"), bin: filepath.Join(d, "bin")}
	for _, p := range []string{h.home, h.proj, h.bin} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"websearch", "webfetch", "webgate-hook"} {
		if err := os.WriteFile(filepath.Join(h.bin, n), []byte(advHookScript), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.exe = filepath.Join(d, "webgate")
	// Without cgo, as 'make build' builds it; a cgo binary cannot start
	// its threads under the memory limit.
	build := exec.Command(gobin, "build", "-o", h.exe, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	h.env = []string{"HOME=" + h.home, "PATH=/usr/bin:/bin", "WEBGATE_STATE_DIR=" + filepath.Join(d, "state")}
	return h
}

func (h *advHost) userSettings() string { return filepath.Join(h.home, ".claude", "settings.json") }
func (h *advHost) projSettings() string { return filepath.Join(h.proj, ".claude", "settings.json") }

// result is how one run of webgate ended.
type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
	maxRSS         int64 // bytes
}

func (r result) output() string { return r.stdout + r.stderr }

// run runs webgate with args in the project directory, under the memory
// limit, and kills it after 20 seconds: a run that blocks fails the test
// instead of hanging it.
func (h *advHost) run(t *testing.T, extraEnv []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	script := "ulimit -v " + strconv.Itoa(advMemoryLimit) + ` && exec "$0" "$@"`
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", script, h.exe}, args...)...)
	cmd.Dir = h.proj
	cmd.Env = append(append([]string(nil), h.env...), extraEnv...)
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("webgate %s did not finish within 20s\n%s", strings.Join(args, " "), r.output())
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = int64(ru.Maxrss) * 1024
	}
	return r
}

func advWrite(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func advSymlink(t *testing.T, oldname, newname string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(newname), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(oldname, newname); err != nil {
		t.Fatal(err)
	}
}

func advMkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
}

func TestAdversarialSymlinkedSettings(t *testing.T) {
	h := newAdvHost(t)
	const original = "{\n  \"model\": \"sonnet\"\n}\n"
	for _, tc := range []struct {
		name    string
		arrange func(t *testing.T, home string) (target string)
		exists  bool
	}{
		{"absolute link", func(t *testing.T, home string) string {
			target := filepath.Join(home, "dotfiles", "claude", "settings.json")
			advWrite(t, target, []byte(original), 0o600)
			advSymlink(t, target, filepath.Join(home, ".claude", "settings.json"))
			return target
		}, true},
		{"chain of relative links", func(t *testing.T, home string) string {
			target := filepath.Join(home, "dotfiles", "real", "settings.json")
			advWrite(t, target, []byte(original), 0o640)
			advSymlink(t, "real/settings.json", filepath.Join(home, "dotfiles", "hop.json"))
			advSymlink(t, "../dotfiles/hop.json", filepath.Join(home, ".claude", "settings.json"))
			return target
		}, true},
		{"relative link in a linked directory", func(t *testing.T, home string) string {
			target := filepath.Join(home, "dotfiles", "shared", "settings.json")
			advWrite(t, target, []byte(original), 0o600)
			dir := filepath.Join(home, "dotfiles", "claude-dir")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			advSymlink(t, dir, filepath.Join(home, ".claude"))
			advSymlink(t, "../shared/settings.json", filepath.Join(dir, "settings.json"))
			return target
		}, true},
		{"dangling link", func(t *testing.T, home string) string {
			target := filepath.Join(home, "dotfiles", "not-yet", "settings.json")
			advSymlink(t, target, filepath.Join(home, ".claude", "settings.json"))
			return target
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			hh := *h
			hh.home = home
			hh.env = append(append([]string(nil), h.env...), "HOME="+home)
			target := tc.arrange(t, home)
			link := hh.userSettings()
			linkText, _ := os.Readlink(link)
			mode := os.FileMode(0o644)
			if tc.exists {
				fi, _ := os.Stat(target)
				mode = fi.Mode().Perm()
			}

			r := hh.run(t, nil, "install", "--bin-dir", h.bin)
			if r.code != 0 {
				t.Fatalf("install: code %d\n%s", r.code, r.output())
			}
			advCheckLink(t, link, linkText)
			got, err := os.ReadFile(target)
			if err != nil || !bytes.Contains(got, []byte(filepath.Join(h.bin, "websearch"))) {
				t.Fatalf("target not updated (%v):\n%s", err, got)
			}
			if fi, _ := os.Stat(target); fi.Mode().Perm() != mode {
				t.Errorf("target mode %v, want %v", fi.Mode().Perm(), mode)
			}
			if tc.exists {
				bak := target + ".bak"
				if m, _ := filepath.Glob(target + ".*.bak"); len(m) == 1 {
					bak = m[0]
				}
				if b, err := os.ReadFile(bak); err != nil || string(b) != original {
					t.Errorf("no backup beside the target (%v)", err)
				}
				if !strings.Contains(r.stdout, "backup: "+bak) {
					t.Errorf("install does not name the backup %s:\n%s", bak, r.stdout)
				}
			}
			if !strings.Contains(r.stdout, target) {
				t.Errorf("install does not say the link leads to %s:\n%s", target, r.stdout)
			}

			if r := hh.run(t, nil, "doctor", "--bin-dir", h.bin); !strings.Contains(r.stdout, "registered in") {
				t.Errorf("doctor does not see the registration through the link:\n%s", r.output())
			}

			r = hh.run(t, nil, "uninstall")
			if r.code != 0 {
				t.Fatalf("uninstall: code %d\n%s", r.code, r.output())
			}
			advCheckLink(t, link, linkText)
			got, _ = os.ReadFile(target)
			if bytes.Contains(got, []byte("websearch")) {
				t.Errorf("uninstall left the hooks:\n%s", got)
			}
			if _, err := os.Stat(target); !tc.exists && err == nil {
				t.Errorf("uninstall left %s, which the install created", target)
			} else if fi, _ := os.Stat(target); tc.exists && fi.Mode().Perm() != mode {
				t.Errorf("target mode after uninstall %v, want %v", fi.Mode().Perm(), mode)
			}
			if m, _ := filepath.Glob(filepath.Join(filepath.Dir(target), "settings.json.*bak")); len(m) == 0 {
				t.Error("uninstall wrote no backup beside the target")
			}
		})
	}
	t.Run("hard link", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "home")
		hh := *h
		hh.home = home
		hh.env = append(append([]string(nil), h.env...), "HOME="+home)
		other := filepath.Join(home, "dotfiles", "settings.json")
		advWrite(t, other, []byte(original), 0o600)
		os.MkdirAll(filepath.Dir(hh.userSettings()), 0o755)
		if err := os.Link(other, hh.userSettings()); err != nil {
			t.Skip(err)
		}
		if r := hh.run(t, nil, "install", "--bin-dir", h.bin); r.code != 0 {
			t.Fatalf("install: code %d\n%s", r.code, r.output())
		}
		if got, _ := os.ReadFile(other); !bytes.Contains(got, []byte("websearch")) {
			t.Errorf("the other name of the file does not see the change:\n%s", got)
		}
	})
}

func advCheckLink(t *testing.T, link, want string) {
	t.Helper()
	fi, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s was replaced by a regular file", link)
	}
	if got, _ := os.Readlink(link); got != want {
		t.Fatalf("the link now points at %q, want %q", got, want)
	}
}

func TestAdversarialDeepNesting(t *testing.T) {
	h := newAdvHost(t)
	for _, tc := range []struct {
		name string
		data []byte
		want string
		// unreadable: doctor cannot read it either.
		unreadable bool
	}{
		{"40 KB nested 20000 deep", []byte(`{"a":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}\n"), "nested more than 64 levels deep", true},
		{"6 MB nested 3 million deep", []byte(`{"a":` + strings.Repeat("[", 3<<20) + strings.Repeat("]", 3<<20) + "}\n"), "larger than 4 MiB", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := h.projSettings()
			advWrite(t, path, tc.data, 0o600)
			defer os.RemoveAll(filepath.Dir(path))
			for _, args := range [][]string{
				{"install", "--scope", "project", "--bin-dir", h.bin},
				{"install", "--scope", "project", "--bin-dir", h.bin, "--dry-run"},
				{"uninstall", "--scope", "project"},
				{"doctor", "--bin-dir", h.bin},
			} {
				r := h.run(t, nil, args...)
				want := exitFail
				if args[0] == "doctor" && !tc.unreadable {
					// Nothing is broken: registering the hooks is a next step.
					want = exitOK
				}
				if r.code != want {
					t.Errorf("%s: code %d, want %d", args[0], r.code, want)
				}
				switch {
				case args[0] == "doctor" && tc.unreadable:
					line(t, r.stdout, `^  FAIL\s+claude-code \(project\)\s+.*`+tc.want)
				case args[0] == "doctor":
					line(t, r.stdout, `^  INFO\s+claude-code \(project\)\s+not registered`)
				case !strings.Contains(r.output(), tc.want) || !strings.Contains(r.output(), path):
					t.Errorf("%s: output does not say %q of %s:\n%.2000s", args[0], tc.want, path, r.output())
				}
				t.Logf("%s: %v, %d MiB resident at most", args[0], r.elapsed.Round(time.Millisecond), r.maxRSS>>20)
				if r.maxRSS > 256<<20 {
					t.Errorf("%s: used %d MiB", args[0], r.maxRSS>>20)
				}
				if got, _ := os.ReadFile(path); !bytes.Equal(got, tc.data) {
					t.Fatalf("%s: the file was changed", args[0])
				}
				if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.bak")); len(m) > 0 {
					t.Fatalf("%s: backup written: %v", args[0], m)
				}
			}
		})
	}
}

// TestAdversarialDeepNestingWithinTheCaps: a file within the caps that
// would be huge once re-indented keeps its layout: install adds webgate's
// entries only, in bounded memory, and uninstall gives it back byte for
// byte.
func TestAdversarialDeepNestingWithinTheCaps(t *testing.T) {
	h := newAdvHost(t)
	data := []byte(`{"a":` + strings.Repeat("[", 62) + strings.Repeat("0,", 700000) + "0" + strings.Repeat("]", 62) + "}\n")
	path := h.projSettings()
	advWrite(t, path, data, 0o600)
	defer os.RemoveAll(filepath.Dir(path))
	for _, args := range [][]string{
		{"install", "--scope", "project", "--bin-dir", h.bin},
		{"uninstall", "--scope", "project"},
	} {
		r := h.run(t, nil, args...)
		if r.code != exitOK {
			t.Fatalf("%s: code %d:\n%.2000s", args[0], r.code, r.output())
		}
		t.Logf("%s: %v, %d MiB resident at most", args[0], r.elapsed.Round(time.Millisecond), r.maxRSS>>20)
		if r.maxRSS > 256<<20 {
			t.Errorf("%s: used %d MiB", args[0], r.maxRSS>>20)
		}
		got, _ := os.ReadFile(path)
		switch args[0] {
		case "install":
			if !bytes.HasPrefix(got, data[:len(data)-2]) || len(got) > len(data)+16<<10 {
				t.Fatalf("install wrote %d bytes for %d, not the file with webgate's entries added", len(got), len(data))
			}
		default:
			if !bytes.Equal(got, data) {
				t.Fatal("install and uninstall did not give the file back byte for byte")
			}
		}
	}
}

func TestAdversarialFIFOSettings(t *testing.T) {
	h := newAdvHost(t)
	for _, tc := range []struct {
		name    string
		arrange func(t *testing.T) string // returns the FIFO
		args    [][]string
	}{
		{"claude-code user settings", func(t *testing.T) string {
			advMkfifo(t, h.userSettings())
			return h.userSettings()
		}, [][]string{{"install", "--bin-dir", h.bin}, {"uninstall"}, {"doctor", "--bin-dir", h.bin}}},
		{"link to a FIFO", func(t *testing.T) string {
			fifo := filepath.Join(h.home, "dotfiles", "settings.json")
			advMkfifo(t, fifo)
			advSymlink(t, fifo, h.userSettings())
			return fifo
		}, [][]string{{"install", "--bin-dir", h.bin}, {"uninstall"}, {"doctor", "--bin-dir", h.bin}}},
		{"project settings", func(t *testing.T) string {
			advMkfifo(t, h.projSettings())
			return h.projSettings()
		}, [][]string{{"install", "--scope", "project", "--bin-dir", h.bin}, {"uninstall", "--scope", "project"}, {"doctor", "--bin-dir", h.bin}}},
		{"copilot-cli hooks file", func(t *testing.T) string {
			p := filepath.Join(h.home, ".copilot", "hooks", "webgate.json")
			advMkfifo(t, p)
			return p
		}, [][]string{{"install", "--target", "copilot-cli", "--bin-dir", h.bin}, {"uninstall", "--target", "copilot-cli"}, {"doctor", "--bin-dir", h.bin}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, d := range []string{filepath.Join(h.home, ".claude"), filepath.Join(h.home, ".copilot"), filepath.Join(h.home, "dotfiles"), filepath.Join(h.proj, ".claude")} {
				os.RemoveAll(d)
			}
			fifo := tc.arrange(t)
			for _, args := range tc.args {
				r := h.run(t, nil, args...)
				if r.code != exitFail {
					t.Errorf("%s: code %d, want %d\n%s", args[0], r.code, exitFail, r.output())
				}
				if !strings.Contains(r.output(), "not a regular file: it is a named pipe") {
					t.Errorf("%s: output does not say the settings are a named pipe:\n%s", args[0], r.output())
				}
				if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
					t.Fatalf("%s: the FIFO was replaced", args[0])
				}
			}
		})
	}
}

// TestAdversarialFIFOInputs gives every other command that reads a file
// the user names a FIFO (or a device) instead.
func TestAdversarialFIFOInputs(t *testing.T) {
	h := newAdvHost(t)
	fifo := filepath.Join(h.dir, "input.fifo")
	advMkfifo(t, fifo)
	corpus := filepath.Join(h.dir, "corpus")
	advWrite(t, filepath.Join(corpus, "labels.tsv"), []byte("file\tclass\npage.html\tfetch-readable\n"), 0o644)
	if err := os.Symlink(fifo, filepath.Join(corpus, "page.html")); err != nil {
		t.Fatal(err)
	}
	fifoConfig := filepath.Join(h.dir, "webgate.toml")
	advMkfifo(t, fifoConfig)
	fifoCorpus := filepath.Join(h.dir, "fifo-corpus")
	advMkfifo(t, filepath.Join(fifoCorpus, "labels.tsv"))
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"classify FILE", nil, []string{"classify", fifo}, "named pipe"},
		{"classify a device", nil, []string{"classify", "/dev/zero"}, "a device"},
		{"classify --corpus with a FIFO page", nil, []string{"classify", "--corpus", corpus}, "named pipe"},
		{"classify --corpus with FIFO labels", nil, []string{"classify", "--corpus", fifoCorpus}, "named pipe"},
		{"routes test with a FIFO routes file", []string{"WEBGATE_TOOL_ROUTES=" + fifo}, []string{"routes", "test"}, "named pipe"},
		{"routes list with a FIFO config file", nil, []string{"routes", "list", "--config", fifoConfig}, "named pipe"},
		{"doctor --config FIFO", nil, []string{"doctor", "--bin-dir", h.bin, "--config", fifoConfig}, "named pipe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.run(t, tc.env, tc.args...)
			if !strings.Contains(r.output(), tc.want) {
				t.Errorf("code %d; output does not say %q:\n%s", r.code, tc.want, r.output())
			}
		})
	}
}

// advRawSettings holds values whose spelling a decode and re-encode would
// change.
const advRawSettings = `{
  "surrogate": "\ud83d",
  "escapes": "\u00e9\/",
  "huge": 1e400,
  "float": 1.0,
  "negzero": -0,
  "big": 123456789012345678901234567890,
  "k\u0065y": "v",
  "env": {"TOKEN": "\udc00x"}
}
`

func TestAdversarialLoneSurrogate(t *testing.T) {
	h := newAdvHost(t)
	path := h.userSettings()
	advWrite(t, path, []byte(advRawSettings), 0o600)
	want := []string{`"\ud83d"`, `"\u00e9\/"`, `1e400`, `1.0`, `-0`, `123456789012345678901234567890`, `"k\u0065y"`, `"\udc00x"`}
	if r := h.run(t, nil, "install", "--bin-dir", h.bin); r.code != 0 {
		t.Fatalf("install: code %d\n%s", r.code, r.output())
	}
	got, _ := os.ReadFile(path)
	if !bytes.Contains(got, []byte("websearch")) {
		t.Fatalf("not installed:\n%s", got)
	}
	for _, w := range want {
		if !bytes.Contains(got, []byte(w)) {
			t.Errorf("install rewrote %s:\n%s", w, got)
		}
	}
	if r := h.run(t, nil, "uninstall"); r.code != 0 {
		t.Fatalf("uninstall: code %d\n%s", r.code, r.output())
	}
	got, _ = os.ReadFile(path)
	for _, w := range want {
		if !bytes.Contains(got, []byte(w)) {
			t.Errorf("uninstall rewrote %s:\n%s", w, got)
		}
	}
	if bytes.ContainsRune(got, '\uFFFD') {
		t.Errorf("U+FFFD written:\n%s", got)
	}
}
