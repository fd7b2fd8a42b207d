package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
)

// layoutFixtures are settings files laid out as users lay them out.
var layoutFixtures = []struct {
	name, data string
	// unit is the indentation of one level the file uses ("" for a file of
	// one line); nl its line ending.
	unit, nl string
}{
	{"crlf", "{\r\n  \"model\": \"x\",\r\n  \"permissions\": {\r\n    \"allow\": []\r\n  }\r\n}\r\n", "  ", "\r\n"},
	{"tabs", "{\n\t\"model\": \"x\",\n\t\"env\": {\n\t\t\"A\": \"1\"\n\t}\n}\n", "\t", "\n"},
	{"four spaces, no final newline", "{\n    \"model\": \"x\",\n    \"env\": {\"A\": \"1\"}\n}", "    ", "\n"},
	{"compact user entry", "{\n  \"hooks\": {\n    \"Stop\": [{\"matcher\":\"\",\"hooks\":[{\"type\":\"command\",\"command\":\"notify\"}]}]\n  }\n}\n", "  ", "\n"},
	{"one line", `{"model":"x","env":{"A":"1"}}`, "", ""},
	{"byte order mark", "\xef\xbb\xbf{\n  \"model\": \"x\"\n}\n", "  ", "\n"},
	{"byte order mark, crlf, tabs", "\xef\xbb\xbf{\r\n\t\"model\": \"x\"\r\n}", "\t", "\r\n"},
	{"empty event of the user's", "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n", "  ", "\n"},
	{"blank lines and odd spacing", "\n{ \"model\" : \"x\" ,\n\n  \"env\" :{ }\n}\n\n", "  ", "\n"},
}

// TestLayoutInstallUninstallRoundTrip: on files of every layout, install
// only inserts webgate's entries, in the file's indentation and line
// ending, and uninstall gives the file back byte for byte.
func TestLayoutInstallUninstallRoundTrip(t *testing.T) {
	for _, target := range []Target{ClaudeCode, GeminiCLI} {
		for _, f := range layoutFixtures {
			t.Run(string(target)+"/"+f.name, func(t *testing.T) {
				e := newEnv(t)
				o := e.opts(target)
				path, err := SettingsPath(o)
				if err != nil {
					t.Fatal(err)
				}
				mustWrite(t, path, []byte(f.data), 0o600)
				p := install(t, o)
				after, _ := os.ReadFile(path)
				if !bytes.Equal(after, p.After) {
					t.Fatal("the file is not what the plan wrote")
				}
				if !json.Valid(bytes.TrimPrefix(after, []byte(utf8BOM))) {
					t.Fatalf("install wrote invalid JSON:\n%s", after)
				}
				added := insertion(t, []byte(f.data), after)
				checkStyle(t, added, f.unit, f.nl)

				u, err := PlanUninstall(o)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := u.Apply(o.Now); err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(path); string(got) != f.data {
					t.Errorf("after install and uninstall\n%q\nwant\n%q", got, f.data)
				}
			})
		}
	}
}

// insertion returns what after adds to before, failing unless after is
// before with one stretch of text inserted.
func insertion(t *testing.T, before, after []byte) string {
	t.Helper()
	pre := 0
	for pre < len(before) && pre < len(after) && before[pre] == after[pre] {
		pre++
	}
	suf := 0
	for suf < len(before)-pre && suf < len(after)-pre && before[len(before)-1-suf] == after[len(after)-1-suf] {
		suf++
	}
	if pre+suf != len(before) {
		t.Fatalf("install changed the user's bytes, not only added its own:\nbefore %q\nafter  %q", before, after)
	}
	return string(after[pre : len(after)-suf])
}

var indentRE = regexp.MustCompile(`\n([ \t]*)`)

// checkStyle fails unless the text added breaks lines with nl only
// (none for a file of one line) and indents in whole units.
func checkStyle(t *testing.T, added, unit, nl string) {
	t.Helper()
	if nl == "" {
		if strings.ContainsAny(added, "\r\n") {
			t.Fatalf("a file of one line got line breaks: %q", added)
		}
		return
	}
	if n := strings.Count(added, "\n"); n == 0 || strings.Count(added, nl) != n {
		t.Fatalf("added text breaks lines otherwise than with %q: %q", nl, added)
	}
	for _, m := range indentRE.FindAllStringSubmatch(added, -1) {
		if ind := m[1]; strings.ReplaceAll(ind, unit, "") != "" {
			t.Fatalf("added line indented %q, not in units of %q:\n%s", ind, unit, added)
		}
	}
}

// TestLayoutUsersEmptyHooksObjectIsKept: an uninstall keeps the "hooks"
// object the user left empty, and an install fills it without touching
// the bytes around it.
func TestLayoutUsersEmptyHooksObjectIsKept(t *testing.T) {
	for _, data := range []string{`{"model":"x","hooks":{}}`, "{\r\n\t\"hooks\": {}\r\n}\r\n"} {
		for _, target := range []Target{ClaudeCode, GeminiCLI, CopilotCLI} {
			e := newEnv(t)
			o := e.opts(target)
			path, _ := SettingsPath(o)
			mustWrite(t, path, []byte(data), 0o600)
			u, err := PlanUninstall(o)
			if err != nil {
				t.Fatal(err)
			}
			if u.Changed() {
				t.Errorf("%s: uninstall would change %q:\n%s", target, data, u.Diff())
			}
			if target == CopilotCLI {
				continue // install adds "version" too
			}
			p, err := PlanInstall(o)
			if err != nil {
				t.Fatal(err)
			}
			insertion(t, []byte(data), p.After)
		}
	}
}

// TestLayoutReplacedEntryChangesOnlyItsValue: reinstalling with other
// timeouts changes the timeout values only.
func TestLayoutReplacedEntryChangesOnlyItsValue(t *testing.T) {
	e := newEnv(t)
	o := e.opts(ClaudeCode)
	mustWrite(t, e.settingsPath(), []byte("{\r\n\t\"model\": \"x\"\r\n}\r\n"), 0o600)
	install(t, o)
	before, _ := os.ReadFile(e.settingsPath())
	o.SearchTimeout = 31
	p := install(t, o)
	b, a := strings.Split(string(before), "\n"), strings.Split(string(p.After), "\n")
	if len(a) != len(b) {
		t.Fatalf("lines %d, want %d", len(a), len(b))
	}
	changed := 0
	for i := range a {
		if a[i] != b[i] {
			changed++
			if strings.Replace(b[i], "30", "31", 1) != a[i] {
				t.Errorf("line %q became %q", b[i], a[i])
			}
		}
	}
	if changed == 0 {
		t.Error("nothing changed")
	}
}

// TestLayoutFileWithCommentsIsRefusedAndKept: a file with comments is
// left as it is, with an error that says why, for every target.
func TestLayoutFileWithCommentsIsRefusedAndKept(t *testing.T) {
	data := "{\n  // mine\n  \"model\": \"x\"\n}\n"
	for _, target := range []Target{ClaudeCode, CopilotVSCode, CopilotCLI, GeminiCLI} {
		e := newEnv(t)
		o := e.opts(target)
		path, _ := SettingsPath(o)
		mustWrite(t, path, []byte(data), 0o600)
		for _, planOf := range []func(Options) (*Plan, error){PlanInstall, PlanUninstall} {
			_, err := planOf(o)
			if !errors.Is(err, ErrInvalidSettings) || !strings.Contains(err.Error(), "comments") {
				t.Errorf("%s: error = %v", target, err)
			}
		}
		if got, _ := os.ReadFile(path); string(got) != data {
			t.Errorf("%s: the file changed", target)
		}
	}
}

// TestLayoutCopilotRoundTrip: a Copilot CLI hooks file of the user's,
// in CRLF and tabs, keeps its bytes through install and uninstall.
func TestLayoutCopilotRoundTrip(t *testing.T) {
	for _, data := range []string{
		"{\r\n\t\"version\": 1,\r\n\t\"hooks\": {\r\n\t\t\"sessionStart\": [{\"type\": \"command\", \"bash\": \"echo hi\"}]\r\n\t}\r\n}",
		"\xef\xbb\xbf{\"version\":1,\"hooks\":{\"sessionStart\":[]}}\n",
	} {
		e := newEnv(t)
		o := e.opts(CopilotCLI)
		path, _ := SettingsPath(o)
		mustWrite(t, path, []byte(data), 0o600)
		p := install(t, o)
		insertion(t, []byte(data), p.After)
		u, err := PlanUninstall(o)
		if err != nil {
			t.Fatal(err)
		}
		if string(u.After) != data {
			t.Errorf("after install and uninstall\n%q\nwant\n%q", u.After, data)
		}
	}
}

// TestLayoutGatewayAndBack: turning the entries into HTTP hooks and back
// into command hooks, then uninstalling, gives the user's file back.
func TestLayoutGatewayAndBack(t *testing.T) {
	data := "{\r\n\t\"model\": \"x\",\r\n\t\"hooks\": {\r\n\t\t\"Stop\": [{\"hooks\":[{\"type\":\"command\",\"command\":\"notify\"}]}]\r\n\t}\r\n}"
	e := newEnv(t)
	o := e.opts(ClaudeCode)
	mustWrite(t, e.settingsPath(), []byte(data), 0o600)
	install(t, o)
	g := o
	g.Gateway = "https://gate.example"
	p := install(t, g)
	checkStyle(t, string(p.After), "\t", "\r\n")
	install(t, o)
	u, err := PlanUninstall(o)
	if err != nil {
		t.Fatal(err)
	}
	if string(u.After) != data {
		t.Errorf("after install, --gateway, install and uninstall\n%q\nwant\n%q", u.After, data)
	}
}
