package setup

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testWebgate = "/opt/webgate/bin/webgate"

func (e env) codexOpts() Options {
	o := e.opts(Codex)
	o.WebgateBin = testWebgate
	return o
}

func (e env) codexPath() string { return filepath.Join(e.home, ".codex", "config.toml") }

func planCodexText(t *testing.T, e env, before string, install bool) (*Plan, string) {
	t.Helper()
	if before != "\x00" {
		mustWrite(t, e.codexPath(), []byte(before), 0o600)
	}
	plan := PlanUninstall
	if install {
		plan = PlanInstall
	}
	p, err := plan(e.codexOpts())
	if err != nil {
		t.Fatal(err)
	}
	return p, string(p.After)
}

const webgateTable = "[mcp_servers.webgate]\ncommand = \"" + testWebgate + "\"\nargs = [\"mcp\"]\n"

func TestCodexInstall_WritesTheTableIntoEveryKindOfFile(t *testing.T) {
	for _, tc := range []struct{ name, before, after string }{
		{"missing file", "\x00", webgateTable},
		{"empty file", "", webgateTable},
		{"no trailing newline", `model = "o3"`, "model = \"o3\"\n\n" + strings.TrimSuffix(webgateTable, "\n")},
		{"trailing newline", "model = \"o3\"\n", "model = \"o3\"\n\n" + webgateTable},
		{"trailing blank line", "model = \"o3\"\n\n", "model = \"o3\"\n\n" + webgateTable},
		{"CRLF", "# mine\r\nmodel = \"o3\"\r\n", "# mine\r\nmodel = \"o3\"\r\n\r\n" + strings.ReplaceAll(webgateTable, "\n", "\r\n")},
		{
			"after the other servers",
			"model = \"o3\" # why\n\n[mcp_servers.docs]\ncommand = \"docs\"\n# docs note\n\n# profiles\n[profiles.x]\nmodel = \"y\"\n",
			"model = \"o3\" # why\n\n[mcp_servers.docs]\ncommand = \"docs\"\n# docs note\n\n" + webgateTable + "\n# profiles\n[profiles.x]\nmodel = \"y\"\n",
		},
		{
			"after the last server, right above the next table",
			"[mcp_servers.docs]\ncommand = \"docs\"\n[profiles.x]\nmodel = \"y\"",
			"[mcp_servers.docs]\ncommand = \"docs\"\n\n" + webgateTable + "\n[profiles.x]\nmodel = \"y\"",
		},
		{
			"above its own sub-table",
			"[mcp_servers.webgate.env]\nA = \"1\"\n",
			webgateTable + "\n[mcp_servers.webgate.env]\nA = \"1\"\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			p, got := planCodexText(t, e, tc.before, true)
			if got != tc.after {
				t.Errorf("after:\n%q\nwant:\n%q", got, tc.after)
			}
			if !p.Changed() {
				t.Error("plan reports no change")
			}
		})
	}
}

func TestCodexInstall_UpdatesTheExistingTableKeepingTheUsersLines(t *testing.T) {
	e := newEnv(t)
	before := "[mcp_servers.webgate] # webgate\n" +
		"command = '/old/webgate'   # old\n" +
		"startup_timeout_sec = 20\n" +
		"args = [\n  \"mcp\",\n  \"--x\",\n]\n" +
		"url = \"http://127.0.0.1:9/mcp\"\n" +
		"\n[mcp_servers.webgate.env]\nWEBGATE_DEBUG = \"1\"\n"
	want := "[mcp_servers.webgate] # webgate\n" +
		"command = \"" + testWebgate + "\"\n" +
		"startup_timeout_sec = 20\n" +
		"args = [\"mcp\"]\n" +
		"\n[mcp_servers.webgate.env]\nWEBGATE_DEBUG = \"1\"\n"
	p, got := planCodexText(t, e, before, true)
	if got != want {
		t.Errorf("after:\n%s\nwant:\n%s", got, want)
	}
	if len(p.Found) != 2 || !strings.Contains(p.Found[0], "/old/webgate, which does not exist") || !strings.Contains(p.Found[1], "url") {
		t.Errorf("found = %q", p.Found)
	}
}

func TestCodexInstall_TwiceChangesNothingAndKeepsAnEquivalentSpelling(t *testing.T) {
	e := newEnv(t)
	install(t, e.codexOpts())
	p, _ := planCodexText(t, e, "\x00", true)
	if p.Changed() {
		t.Errorf("second install changes the file:\n%s", p.Diff())
	}
	// The same values spelt differently are kept as they are.
	same := "[mcp_servers.\"webgate\"]\nargs=['mcp']\ncommand = '" + testWebgate + "'\n"
	if p, _ := planCodexText(t, e, same, true); p.Changed() {
		t.Errorf("an equivalent table is rewritten:\n%s", p.Diff())
	}
}

func TestCodexUninstall_RemovesTheTableAndItsSubTablesOnly(t *testing.T) {
	for _, tc := range []struct{ name, before, after string }{
		{"only table", webgateTable, ""},
		{"between others", "model = \"o3\"\n\n" + webgateTable + "\n[mcp_servers.webgate.env]\nA = \"1\"\n# about docs\n\n# docs\n[mcp_servers.docs]\ncommand = \"d\"\n",
			"model = \"o3\"\n\n# docs\n[mcp_servers.docs]\ncommand = \"d\"\n"},
		{"at the end without newline", "model = \"o3\"\n\n[mcp_servers.webgate]\ncommand = \"x\"", "model = \"o3\""},
		{"at the start", webgateTable + "\n[b]\nc = 1\n", "[b]\nc = 1\n"},
		{"CRLF", "a = 1\r\n\r\n[mcp_servers.webgate]\r\ncommand = \"x\"\r\n\r\n[b]\r\nc = 2\r\n", "a = 1\r\n\r\n[b]\r\nc = 2\r\n"},
		{"multi-line string that looks like a header", "x = \"\"\"\n[mcp_servers.webgate]\n\"\"\"\n" + webgateTable, "x = \"\"\"\n[mcp_servers.webgate]\n\"\"\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			_, got := planCodexText(t, e, tc.before, false)
			if got != tc.after {
				t.Errorf("after:\n%q\nwant:\n%q", got, tc.after)
			}
		})
	}
}

func TestCodexUninstall_WithoutTheTableChangesNothing(t *testing.T) {
	e := newEnv(t)
	if p, _ := planCodexText(t, e, "model = \"o3\"\n", false); p.Changed() {
		t.Errorf("uninstall changes a file without webgate:\n%s", p.Diff())
	}
	e2 := newEnv(t)
	if p, _ := planCodexText(t, e2, "\x00", false); p.Changed() || p.After != nil {
		t.Errorf("uninstall without a file plans %q", p.After)
	}
}

func TestCodex_RefusesFormsItDoesNotEditAndInvalidTOML(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"invalid", "model = \n"},
		{"dotted key", "mcp_servers.webgate.command = \"x\"\n"},
		{"dotted key in the servers table", "[mcp_servers]\nwebgate.command = \"x\"\n"},
		{"inline table", "[mcp_servers]\nwebgate = { command = \"x\" }\n"},
		{"inline servers", "mcp_servers = { docs = { command = \"d\" } }\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			mustWrite(t, e.codexPath(), []byte(tc.text), 0o600)
			_, err := PlanInstall(e.codexOpts())
			if !errors.Is(err, ErrInvalidTOML) {
				t.Fatalf("install error = %v, want ErrInvalidTOML", err)
			}
			if data, _ := os.ReadFile(e.codexPath()); string(data) != tc.text {
				t.Error("the file was changed")
			}
		})
	}
}

func TestCodex_InspectSeesWhatInstallWrote(t *testing.T) {
	e := newEnv(t)
	r, err := Inspect(e.codexOpts())
	if err != nil || r.Exists || r.Registered() || len(r.Absent()) != 1 {
		t.Fatalf("before install: %+v, %v", r, err)
	}
	install(t, e.codexOpts())
	r, err = Inspect(e.codexOpts())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Exists || !r.Registered() || r.Server.Command != testWebgate || !r.Server.Missing || !r.Server.Enabled {
		t.Errorf("after install: %+v %+v", r, r.Server)
	}
	if m := r.MissingBinaries(); len(m) != 1 || m[0].Path != testWebgate {
		t.Errorf("missing binaries = %+v", m)
	}
	if p, err := PlanInstall(r.InstallOptions(e.codexOpts())); err != nil || p.Changed() {
		t.Errorf("plan after install: changed %v, %v", p != nil && p.Changed(), err)
	}
}

func TestCodex_ProjectScopeAndCodexHome(t *testing.T) {
	e := newEnv(t)
	o := e.codexOpts()
	o.Scope = Project
	if p, _ := SettingsPath(o); p != filepath.Join(e.proj, ".codex", "config.toml") {
		t.Errorf("project path %s", p)
	}
	o.Scope = User
	o.CodexHome = filepath.Join(e.home, "elsewhere")
	if p, _ := SettingsPath(o); p != filepath.Join(e.home, "elsewhere", "config.toml") {
		t.Errorf("CODEX_HOME path %s", p)
	}
}

func TestScanTOML_FindsStatementsAcrossMultiLineValues(t *testing.T) {
	src := "a = [\n  1, # one\n  [2, 3],\n]\nb = '''\n[x]\n'''\nc = { d = \"}\", e = [1] }\nt = 1979-05-27 07:32:00Z\n[ \"q.k\" . 'r' ] # h\n[[arr]]\n"
	stmts, err := scanTOML([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range stmts {
		got = append(got, strings.Join(s.path(), "/")+"@"+src[s.start:s.end])
	}
	want := []string{
		"a@a = [\n  1, # one\n  [2, 3],\n]\n", "b@b = '''\n[x]\n'''\n", "c@c = { d = \"}\", e = [1] }\n",
		"t@t = 1979-05-27 07:32:00Z\n", "q.k/r@[ \"q.k\" . 'r' ] # h\n", "arr@[[arr]]\n",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("statements:\n%q\nwant:\n%q", got, want)
	}
}

func FuzzCodexEditKeepsEverythingElse(f *testing.F) {
	for _, s := range []string{"", "model = 1\n", webgateTable, "[a]\nb = \"\"\"\nx\n\"\"\"\n[mcp_servers.docs]\ncommand='d'\n", "a=1\r\n[mcp_servers.webgate]\r\nx=2\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		e := newEnv(t)
		mustWrite(t, e.codexPath(), []byte(text), 0o600)
		for _, plan := range []func(Options) (*Plan, error){PlanInstall, PlanUninstall} {
			// A plan fails on a file it does not edit, or returns a result
			// it has read back and compared; a failed comparison is a bug
			// of the editor.
			if _, err := plan(e.codexOpts()); err != nil && strings.Contains(err.Error(), "the edit") {
				t.Errorf("%q: %v", text, err)
			}
		}
	})
}

func TestCodex_WritesThroughALinkAndRefusesWhatIsNotARegularFile(t *testing.T) {
	e := newEnv(t)
	target := filepath.Join(e.home, "dotfiles", "codex.toml")
	mustWrite(t, target, []byte("model = \"o3\"\n"), 0o600)
	mustSymlink(t, target, e.codexPath())
	p := install(t, e.codexOpts())
	if p.Path != e.codexPath() {
		t.Errorf("plan path %s", p.Path)
	}
	if fi, err := os.Lstat(e.codexPath()); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	data, _ := os.ReadFile(target)
	if want := "model = \"o3\"\n\n" + webgateTable; string(data) != want {
		t.Errorf("target:\n%s", data)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("target mode %v", fi.Mode().Perm())
	}
	if b, err := os.ReadFile(target + ".20260102T030405Z.bak"); err != nil || string(b) != "model = \"o3\"\n" {
		t.Errorf("backup beside the target: %q, %v", b, err)
	}

	e2 := newEnv(t)
	if err := os.MkdirAll(e2.codexPath(), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := PlanInstall(e2.codexOpts()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory at the path: err = %v", err)
	}
	e3 := newEnv(t)
	mustWrite(t, e3.codexPath(), bytes.Repeat([]byte("# x\n"), MaxSettingsBytes/4+1), 0o600)
	if _, err := PlanInstall(e3.codexOpts()); !errors.Is(err, ErrSettingsLimit) {
		t.Errorf("an oversized file: err = %v", err)
	}
}

// TestCodexInstall_FileWithoutFinalNewlineRoundTrips: webgate's table
// added at the end of a file without a final newline ends without one,
// and an uninstall gives the file back byte for byte.
func TestCodexInstall_FileWithoutFinalNewlineRoundTrips(t *testing.T) {
	for _, before := range []string{
		`model = "o3"`,
		"model = \"o3\"\r\n[x]\r\ny = 1",
		"model = \"o3\"\n[mcp_servers.other]\ncommand = \"x\"",
		"model = \"o3\"\r\n\r\n[profiles.x]\r\nmodel = \"y\"\r\n",
	} {
		e := newEnv(t)
		p, after := planCodexText(t, e, before, true)
		if !strings.HasPrefix(after, before) || strings.HasSuffix(after, "\n") != strings.HasSuffix(before, "\n") {
			t.Errorf("%q installed as %q", before, after)
		}
		if _, err := p.Apply(e.codexOpts().Now); err != nil {
			t.Fatal(err)
		}
		if _, back := planCodexText(t, e, "\x00", false); back != before {
			t.Errorf("after install and uninstall %q, want %q", back, before)
		}
	}
}
