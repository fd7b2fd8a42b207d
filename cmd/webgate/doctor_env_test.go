package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A WEBGATE_ variable webgate does not read is named by doctor, with the
// closest one it reads; its value never shows; the variables it reads are
// not named.
func TestDoctor_NamesEnvironmentVariablesWebgateDoesNotRead(t *testing.T) {
	h := newTestHost(t).withKey()
	h.env["WEBGATE_SEARCH_MODEE"] = "fallback"
	h.env["WEBGATE_TAVILY_KEY"] = testKey
	h.env["WEBGATE_SEARCH_MODE"] = "fallback"
	h.env["WEBGATE_CONFIG"] = h.write("webgate.toml", "")
	h.env["WEBGATE_STORE_URL"] = "off"
	_, out, _ := h.run("", "doctor", "--bin-dir", h.bin)
	for _, want := range []string{
		"WEBGATE_SEARCH_MODEE is set, but webgate reads no such variable (did you mean WEBGATE_SEARCH_MODE?)",
		"WEBGATE_TAVILY_KEY is set, but webgate reads no such variable (did you mean TAVILY_API_KEY or WEBGATE_PROVIDERS_TAVILY_KEYS?)",
		"WEBGATE_STORE_URL is set, but webgate reads no such variable (did you mean WEBGATE_STORE?)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor does not say %q:\n%s", want, out)
		}
	}
	for _, name := range []string{"WEBGATE_SEARCH_MODE is set", "WEBGATE_CONFIG is set"} {
		if strings.Contains(out, name) {
			t.Errorf("doctor names a variable webgate reads (%q):\n%s", name, out)
		}
	}
}

// Every WEBGATE_ variable the module's code names is one doctor knows
// webgate reads ([readEnv]), so that doctor never calls a real one
// unread.
func TestReadEnv_HoldsEveryVariableTheCodeNames(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`^WEBGATE_[A-Z0-9_]+$`)
	read := readEnv()
	seen := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !name.MatchString(s) {
				return true
			}
			seen++
			if !read[s] {
				t.Errorf("%s names %s, which doctor would call unread", path, s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("no WEBGATE_ variable found in the code")
	}
}

// Doctor checks the gateway's OpenID Connect settings as webgate serve
// does before it starts: an issuer in plain http off loopback, or one
// without an audience, is a FAIL and a non-zero exit.
func TestDoctor_ChecksTheGatewaysOIDCSettings(t *testing.T) {
	for issuer, want := range map[string]string{
		"http://id.example.com":  `gateway.oidc issuer "http://id.example.com": want https (http only on a loopback host)`,
		"https://id.example.com": `gateway.oidc audience "": want an absolute https URL`,
	} {
		h := newTestHost(t).withKey()
		h.env["WEBGATE_GATEWAY_OIDC_ISSUER"] = issuer
		code, out, _ := h.run("", "doctor", "--bin-dir", h.bin)
		if code == 0 || !strings.Contains(out, want) || strings.Contains(out, "no invalid settings") {
			t.Errorf("issuer %s: exit %d, want a FAIL saying %q:\n%s", issuer, code, want, out)
		}
	}
}

// A team's rate per minute is accepted by the schema (the team limits
// share the token limits' settings) but not used: doctor says so.
func TestDoctor_WarnsOfATeamRatePerMinute(t *testing.T) {
	h := newTestHost(t).withKey()
	h.env["WEBGATE_GATEWAY_TEAM_LIMITS_RATE_PER_MINUTE"] = "30"
	_, out, _ := h.run("", "doctor", "--bin-dir", h.bin)
	if !strings.Contains(out, "gateway.team_limits.rate_per_minute (env WEBGATE_GATEWAY_TEAM_LIMITS_RATE_PER_MINUTE) is not used") {
		t.Errorf("no warning of the unused setting:\n%s", out)
	}
	h = newTestHost(t).withKey()
	if _, out, _ := h.run("", "doctor", "--bin-dir", h.bin); strings.Contains(out, "rate_per_minute") {
		t.Errorf("a warning with the setting unset:\n%s", out)
	}
}
