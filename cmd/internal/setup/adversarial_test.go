package setup

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// settingsPath returns the Claude Code user settings path of e.
func (e env) settingsPath() string { return filepath.Join(e.home, ".claude", "settings.json") }

// mustWrite writes data at path, creating its directory.
func mustWrite(t *testing.T, path string, data []byte, mode os.FileMode) {
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

func mustSymlink(t *testing.T, oldname, newname string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(newname), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(oldname, newname); err != nil {
		t.Skip("symlinks not available:", err)
	}
}

// TestAdversarialSymlinkedSettingsAreWrittenThrough installs and
// uninstalls through links of several shapes: the link stays a link, its
// final target gets the change and keeps its mode, and the backup is
// written beside the target.
func TestAdversarialSymlinkedSettingsAreWrittenThrough(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	const original = "{\n  \"model\": \"sonnet\"\n}\n"
	for _, tc := range []struct {
		name string
		// arrange creates the links and returns the final target.
		arrange func(t *testing.T, e env) string
		exists  bool
	}{
		{"absolute link", func(t *testing.T, e env) string {
			target := filepath.Join(e.home, "dotfiles", "claude", "settings.json")
			mustWrite(t, target, []byte(original), 0o600)
			mustSymlink(t, target, e.settingsPath())
			return target
		}, true},
		{"chain of relative links", func(t *testing.T, e env) string {
			target := filepath.Join(e.home, "dotfiles", "real", "settings.json")
			mustWrite(t, target, []byte(original), 0o640)
			mustSymlink(t, "real/settings.json", filepath.Join(e.home, "dotfiles", "hop.json"))
			mustSymlink(t, "../dotfiles/hop.json", e.settingsPath())
			return target
		}, true},
		{"relative link inside a linked directory", func(t *testing.T, e env) string {
			// ~/.claude -> dotfiles/claude-dir, and settings.json in it
			// -> ../shared/settings.json, which the system resolves from
			// dotfiles/claude-dir, not from ~/.claude.
			target := filepath.Join(e.home, "dotfiles", "shared", "settings.json")
			mustWrite(t, target, []byte(original), 0o600)
			if err := os.MkdirAll(filepath.Join(e.home, "dotfiles", "claude-dir"), 0o755); err != nil {
				t.Fatal(err)
			}
			mustSymlink(t, filepath.Join(e.home, "dotfiles", "claude-dir"), filepath.Join(e.home, ".claude"))
			mustSymlink(t, "../shared/settings.json", filepath.Join(e.home, "dotfiles", "claude-dir", "settings.json"))
			return target
		}, true},
		{"dangling link", func(t *testing.T, e env) string {
			target := filepath.Join(e.home, "dotfiles", "new", "settings.json")
			mustSymlink(t, target, e.settingsPath())
			return target
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			target := tc.arrange(t, e)
			link := e.settingsPath()
			linkText, err := os.Readlink(link)
			if err != nil {
				t.Fatal(err)
			}
			var mode os.FileMode = 0o644
			if tc.exists {
				fi, _ := os.Stat(target)
				mode = fi.Mode().Perm()
			}

			install(t, e.opts(ClaudeCode))
			checkLink(t, link, linkText)
			got, err := os.ReadFile(target)
			if err != nil {
				t.Fatalf("target: %v", err)
			}
			if !bytes.Contains(got, []byte(e.ws)) {
				t.Fatalf("target lacks the registration:\n%s", got)
			}
			if fi, _ := os.Stat(target); fi.Mode().Perm() != mode {
				t.Errorf("target mode %v, want %v", fi.Mode().Perm(), mode)
			}
			if tc.exists {
				if bak, err := os.ReadFile(target + ".20260102T030405Z.bak"); err != nil || string(bak) != original {
					t.Errorf("backup beside the target: %q, %v", bak, err)
				}
			}
			if matches, _ := filepath.Glob(filepath.Join(filepath.Dir(link), "*.bak")); len(matches) > 0 && filepath.Dir(link) != filepath.Dir(target) {
				t.Errorf("backup beside the link: %v", matches)
			}

			p, err := PlanUninstall(e.opts(ClaudeCode))
			if err != nil {
				t.Fatal(err)
			}
			backup, err := p.Apply(e.opts(ClaudeCode).Now)
			if err != nil {
				t.Fatal(err)
			}
			checkLink(t, link, linkText)
			if filepath.Dir(backup) != filepath.Dir(target) {
				t.Errorf("uninstall backup %s is not beside %s", backup, target)
			}
			got, _ = os.ReadFile(target)
			if bytes.Contains(got, []byte(e.ws)) {
				t.Errorf("uninstall left the hooks:\n%s", got)
			}
			if !tc.exists {
				// There was no file behind the link before the install:
				// there is none after the uninstall, and the link stays.
				if _, err := os.Stat(target); err == nil {
					t.Errorf("uninstall left %s, which the install created", target)
				}
				return
			}
			if fi, _ := os.Stat(target); fi.Mode().Perm() != mode {
				t.Errorf("target mode after uninstall %v, want %v", fi.Mode().Perm(), mode)
			}
		})
	}
}

func checkLink(t *testing.T, link, want string) {
	t.Helper()
	fi, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s was replaced by a regular file", link)
	}
	if got, _ := os.Readlink(link); got != want {
		t.Fatalf("link now points at %q, want %q", got, want)
	}
}

func TestAdversarialSymlinkLoopIsAnError(t *testing.T) {
	e := newEnv(t)
	a := e.settingsPath()
	b := filepath.Join(e.home, "loop.json")
	mustSymlink(t, b, a)
	mustSymlink(t, a, b)
	if _, err := PlanInstall(e.opts(ClaudeCode)); err == nil {
		t.Fatal("a link loop was accepted")
	}
}

// deep returns a settings object holding arrays nested n deep.
func deep(n int) []byte {
	return []byte(`{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + "}\n")
}

func TestAdversarialDeepNestingIsRefusedAndLeftUntouched(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"arrays 1000 deep", deep(1000), "nested more than 64"},
		{"objects 65 deep", []byte(strings.Repeat(`{"k":`, 65) + "1" + strings.Repeat("}", 65)), "nested more than 64"},
		{"larger than the cap", []byte(`{"a":"` + strings.Repeat("x", 5<<20) + `"}`), "larger than 4 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			path := e.settingsPath()
			mustWrite(t, path, tc.data, 0o600)
			for name, f := range map[string]func(Options) (*Plan, error){"install": PlanInstall, "uninstall": PlanUninstall} {
				if _, err := f(e.opts(ClaudeCode)); !errors.Is(err, ErrSettingsLimit) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
					t.Errorf("%s: err = %v, want ErrSettingsLimit saying %q", name, err, tc.want)
				}
			}
			if _, err := Inspect(e.opts(ClaudeCode)); !errors.Is(err, ErrSettingsLimit) {
				t.Errorf("inspect: err = %v", err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, tc.data) {
				t.Error("file touched")
			}
			if m, _ := filepath.Glob(path + "*.bak"); len(m) > 0 {
				t.Errorf("backup written: %v", m)
			}
		})
	}
}

// TestAdversarialNestingAtTheCapIsAccepted keeps files nested exactly as
// deep as allowed working.
func TestAdversarialNestingAtTheCapIsAccepted(t *testing.T) {
	e := newEnv(t)
	data := []byte(`{"a":` + strings.Repeat("[", MaxSettingsDepth-1) + strings.Repeat("]", MaxSettingsDepth-1) + "}")
	mustWrite(t, e.settingsPath(), data, 0o600)
	install(t, e.opts(ClaudeCode))
}

// TestAdversarialIndentationCannotBalloonTheRewrite: a file within both
// caps whose re-indented form would be far larger keeps its layout, so
// the rewrite grows by webgate's entries only.
func TestAdversarialIndentationCannotBalloonTheRewrite(t *testing.T) {
	e := newEnv(t)
	d := MaxSettingsDepth - 2
	data := []byte(`{"a":` + strings.Repeat("[", d) + strings.Repeat("0,", 1<<18) + "0" + strings.Repeat("]", d) + "}")
	mustWrite(t, e.settingsPath(), data, 0o600)
	p, err := PlanInstall(e.opts(ClaudeCode))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(p.After, data[:len(data)-1]) || len(p.After) > len(data)+8<<10 {
		t.Errorf("%d bytes written for %d read", len(p.After), len(data))
	}
}

// TestAdversarialTheRewriteLimitIsApplied: a rewrite past the writer's
// limit is refused.
func TestAdversarialTheRewriteLimitIsApplied(t *testing.T) {
	data := []byte(`{"a":[` + strings.Repeat("0,", 1<<12) + "0]}")
	v, err := parseJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	root := v.(*object)
	root.set("b", strings.Repeat("x", 1<<12))
	if _, err := rewriteJSON(data, root, len(data)+1<<10); !errors.Is(err, errTooLong) {
		t.Errorf("err = %v", err)
	}
	if _, err := rewriteJSON(data, root, len(data)+8<<10); err != nil {
		t.Errorf("err = %v", err)
	}
}

func TestAdversarialNonRegularSettingsAreRefused(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(e.settingsPath(), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := PlanInstall(e.opts(ClaudeCode)); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("err = %v", err)
	}
}

// rawSettings holds every kind of scalar whose spelling a decode and
// re-encode would change.
const rawSettings = `{
  "surrogate": "\ud83d",
  "pair": "\ud83d\ude00",
  "escapes": "\u00e9\/\u0041\t",
  "html": "<a&b>",
  "huge": 1e400,
  "float": 1.0,
  "negzero": -0,
  "big": 123456789012345678901234567890,
  "exp": 1E+2,
  "k\u0065y": "escaped key",
  "dup": 1,
  "dup": 2,
  "invalid": "` + "\xff\xfe" + `",
  "list": ["\ud800", 0.10, true, false, null]
}
`

// rawScalars lists the text of every string and number of a JSON document
// (keys included) as written, without decoding anything.
func rawScalars(data []byte) []string {
	var out []string
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, string(data[i:min(j+1, len(data))]))
			i = j + 1
		case c == '-' || c >= '0' && c <= '9':
			j := i
			for j < len(data) && strings.IndexByte("+-.eE0123456789", data[j]) >= 0 {
				j++
			}
			out = append(out, string(data[i:j]))
			i = j
		default:
			i++
		}
	}
	return out
}

func TestAdversarialUntouchedValuesKeepTheirBytes(t *testing.T) {
	e := newEnv(t)
	path := e.settingsPath()
	mustWrite(t, path, []byte(rawSettings), 0o600)
	install(t, e.opts(ClaudeCode))
	got, _ := os.ReadFile(path)
	for _, s := range rawScalars([]byte(rawSettings)) {
		if !bytes.Contains(got, []byte(s)) {
			t.Errorf("%s lost; the file is now:\n%s", s, got)
		}
	}
	if n := bytes.Count(got, []byte(`"dup"`)); n != 2 {
		t.Errorf("%d dup members, want both kept:\n%s", n, got)
	}
	p, err := PlanUninstall(e.opts(ClaudeCode))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(e.opts(ClaudeCode).Now); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(path)
	if a, b := rawScalars(got), rawScalars([]byte(rawSettings)); strings.Join(a, "\x00") != strings.Join(b, "\x00") {
		t.Errorf("after uninstall the scalars are\n%q\nwant\n%q", a, b)
	}
}

func TestAdversarialRoundTripKeepsEveryScalar(t *testing.T) {
	for _, in := range []string{
		rawSettings,
		`{"a":"\ud83d"}`,
		`{"\ud83d":"\udc00\ud83d"}`,
		`[1e400,-0,1.0,1E-7,0e0,-0.0e+0]`,
		`{"s":"\"\\\/\b\f\n\r\t\u0000\u001f\u2028"}`,
		"{\"u\":\"\u2028\u2029<>&\"}",
		`{"a":1,"a":{"b":2},"a":[3]}`,
	} {
		v, err := parseJSON([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		out := encodeJSON(v)
		if a, b := rawScalars(out), rawScalars([]byte(in)); strings.Join(a, "\x00") != strings.Join(b, "\x00") {
			t.Errorf("%s\nwritten as\n%s", in, out)
		}
	}
}

// TestAdversarialIdenticalRegistrationInAnotherLayoutIsUpToDate: a file
// that already holds exactly what install would register, laid out
// differently, is not rewritten.
func TestAdversarialIdenticalRegistrationInAnotherLayoutIsUpToDate(t *testing.T) {
	e := newEnv(t)
	install(t, e.opts(ClaudeCode))
	path := e.settingsPath()
	data, _ := os.ReadFile(path)
	compact := strings.Join(strings.Fields(string(data)), "")
	compact = strings.Replace(compact, `"type":"command"`, `"type":"comm\u0061nd"`, 1)
	mustWrite(t, path, []byte(compact), 0o600)
	p, err := PlanInstall(e.opts(ClaudeCode))
	if err != nil {
		t.Fatal(err)
	}
	if p.Changed() {
		t.Errorf("an up-to-date file would be rewritten:\n%s", p.Diff())
	}
}

// TestAdversarialDiffOfAHugeChangeIsBounded: the dry-run diff of a file
// with very many lines does not build a table of every pair of lines.
func TestAdversarialDiffOfAHugeChangeIsBounded(t *testing.T) {
	const n = 5000
	a := []byte(strings.Repeat("a\n", n))
	b := []byte(strings.Repeat("b\n", n))
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	d := unifiedDiff("f", a, b)
	runtime.ReadMemStats(&ms)
	if used := ms.TotalAlloc - before; used > 64<<20 {
		t.Errorf("the diff allocated %d MiB", used>>20)
	}
	if strings.Count(d, "\n-a") != n || strings.Count(d, "\n+b") != n {
		t.Error("the diff does not show every line")
	}
}

// TestAdversarialTheWriteLimitStopsTheWriterEarly: once past its limit
// the writer writes nothing more, not even indentation.
func TestAdversarialTheWriteLimitStopsTheWriterEarly(t *testing.T) {
	d := MaxSettingsDepth - 2
	v, err := parseJSON([]byte(`{"a":` + strings.Repeat("[", d) + strings.Repeat("0,", 1<<16) + "0" + strings.Repeat("]", d) + "}"))
	if err != nil {
		t.Fatal(err)
	}
	const limit = 64 << 10
	w := &writer{limit: limit, lay: defaultLayout}
	w.value(v, nil, wctx{})
	if !w.over || w.b.Len() > 2*limit {
		t.Fatalf("over %v, %d bytes written for a limit of %d", w.over, w.b.Len(), limit)
	}
}

// TestAdversarialProjectLinkOutOfTheProjectIsRefused: in the project
// scope a settings path that a link in the repository (the file itself,
// or a directory above it) leads out of the project is refused, install
// and uninstall alike, and the file outside is not touched; a link that
// stays inside the project is followed.
func TestAdversarialProjectLinkOutOfTheProjectIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	const outsideJSON = "{\"theme\": \"dark\"}\n"
	for _, target := range []Target{ClaudeCode, CopilotCLI, GeminiCLI, Codex} {
		for _, shape := range []string{"file", "directory", "dangling"} {
			t.Run(string(target)+"/"+shape, func(t *testing.T) {
				e := newEnv(t)
				o := e.opts(target)
				o.Scope = Project
				o.WebgateBin = e.ws
				path, err := SettingsPath(o)
				if err != nil {
					t.Fatal(err)
				}
				outsideDir := filepath.Join(e.home, ".config", "otherapp")
				outside := filepath.Join(outsideDir, filepath.Base(path))
				body := outsideJSON
				if target == Codex {
					body = "model = \"o3\"\n"
				}
				switch shape {
				case "file":
					mustWrite(t, outside, []byte(body), 0o644)
					mustSymlink(t, outside, path)
				case "directory":
					mustWrite(t, outside, []byte(body), 0o644)
					mustSymlink(t, outsideDir, filepath.Dir(path))
				case "dangling":
					if err := os.MkdirAll(outsideDir, 0o755); err != nil {
						t.Fatal(err)
					}
					mustSymlink(t, filepath.Join(outsideDir, "new.json"), path)
				}
				for _, plan := range []func(Options) (*Plan, error){PlanInstall, PlanUninstall} {
					p, err := plan(o)
					if err == nil || !strings.Contains(err.Error(), "outside the project directory") {
						t.Errorf("plan: %v, want a refusal: outside the project", err)
					}
					if err == nil {
						p.Apply(o.Now)
					}
				}
				entries, _ := os.ReadDir(outsideDir)
				if shape == "dangling" {
					if len(entries) != 0 {
						t.Errorf("files created outside the project: %v", entries)
					}
					return
				}
				if got, _ := os.ReadFile(outside); string(got) != body || len(entries) != 1 {
					t.Errorf("outside file changed (%q) or files added (%d entries)", got, len(entries))
				}
			})
		}
	}
	t.Run("link inside the project", func(t *testing.T) {
		e := newEnv(t)
		o := e.opts(ClaudeCode)
		o.Scope = Project
		real := filepath.Join(e.proj, "config", "claude.json")
		mustWrite(t, real, []byte("{}\n"), 0o644)
		mustSymlink(t, "../config/claude.json", filepath.Join(e.proj, ".claude", "settings.json"))
		install(t, o)
		if got, _ := os.ReadFile(real); !strings.Contains(string(got), "websearch") {
			t.Errorf("the linked file inside the project was not written: %s", got)
		}
	})
}
