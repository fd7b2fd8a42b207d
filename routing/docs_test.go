package routing

import (
	"strings"
	"testing"
)

func db(path string, kws ...string) Database {
	return Database{Keywords: kws, Path: path, MCPToolName: "mcp__docsearch__search", Description: path + " docs"}
}

func TestDocsRouter_MatchesWholeWordsCaseInsensitively(t *testing.T) {
	r, warns := NewDocsRouter([]Database{
		db("/idx/gitlab", "GitLab"),
		db("/idx/cpp", "c++"),
		db("/idx/dotnet", ".net", "c#"),
		db("/idx/ci", "gitlab-ci"),
		db("/idx/spring", "spring boot"),
	})
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	cases := []struct {
		query string
		want  []string
	}{
		{"How do I configure GitLab runners?", []string{"/idx/gitlab"}},
		{"gitlab", []string{"/idx/gitlab"}},
		{"GITLAB pages", []string{"/idx/gitlab"}},
		{"gitla runner", nil},
		{"ungitlabbed repos", nil},
		{"gitlabs", nil},
		{"gitlab_ci variables", nil},
		{"c++ templates", []string{"/idx/cpp"}},
		{"modern C++17 features", []string{"/idx/cpp"}},
		{"what is c+++", nil},
		{"abc++ language", nil},
		{"c programming", nil},
		{"ASP.NET core middleware", []string{"/idx/dotnet"}},
		{".net 8 release", []string{"/idx/dotnet"}},
		{"dotnet cli", nil},
		{"c# records", []string{"/idx/dotnet"}},
		{"objective-c# bridge", []string{"/idx/dotnet"}},
		{"gitlab-ci.yml syntax", []string{"/idx/gitlab", "/idx/ci"}},
		{"spring   Boot actuator", []string{"/idx/spring"}},
		{"springboot", nil},
		{"", nil},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			var got []string
			for _, d := range r.Match(c.query) {
				got = append(got, d.Path)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("Match(%q) = %v, want %v", c.query, got, c.want)
			}
		})
	}
}

func TestDocsRouter_CollectsEveryMatchInConfigurationOrder(t *testing.T) {
	r, _ := NewDocsRouter([]Database{db("/b", "react"), db("/a", "hooks"), db("/c", "vue")})
	got := r.Match("react hooks and vue")
	if len(got) != 3 || got[0].Path != "/b" || got[1].Path != "/a" || got[2].Path != "/c" {
		t.Fatalf("got %+v", got)
	}
}

func TestNewDocsRouter_DropsInvalidEntriesWithWarnings(t *testing.T) {
	r, warns := NewDocsRouter([]Database{
		{Keywords: nil, Path: "/x", MCPToolName: "t", Description: "d"},
		{Keywords: []string{"  "}, Path: "/y", MCPToolName: "t", Description: "d"},
		{Keywords: []string{"ok"}, Path: "", MCPToolName: "t", Description: "d"},
		db("/good", "go"),
	})
	if len(warns) != 3 {
		t.Fatalf("want 3 warnings, got %v", warns)
	}
	if !strings.Contains(warns[0].Error(), "keywords") || !strings.Contains(warns[2].Error(), "path") {
		t.Errorf("warnings do not name the field: %v", warns)
	}
	if got := r.Databases(); len(got) != 1 || got[0].Path != "/good" {
		t.Fatalf("kept %+v", got)
	}
	if len(r.Match("go modules")) != 1 {
		t.Fatal("valid entry does not work")
	}
}

func TestParseDocsConfig_ReadsTheDocSearchFormat(t *testing.T) {
	dbs, err := ParseDocsConfig([]byte(`{"databases":[{"keywords":["gitlab","gitlab-ci"],"path":"/data/gitlab","mcp_tool_name":"mcp__docsearch__search","description":"GitLab docs","extra":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(dbs) != 1 || dbs[0].MCPToolName != "mcp__docsearch__search" || len(dbs[0].Keywords) != 2 {
		t.Fatalf("got %+v", dbs)
	}
	if _, err := ParseDocsConfig([]byte(`{"databases":`)); err == nil {
		t.Fatal("want an error for broken JSON")
	}
}

func TestDenyDocs_NamesEveryToolAndTheEscapeHatch(t *testing.T) {
	d := DenyDocs("gitlab c++", []Database{db("/g", "gitlab"), db("/c", "c++")})
	for _, want := range []string{"mcp__docsearch__search", `"/g"`, `"/c"`, "in parallel", "repeat the exact same WebSearch"} {
		if !strings.Contains(d.Context, want) {
			t.Errorf("context lacks %q:\n%s", want, d.Context)
		}
	}
	if !strings.Contains(d.Reason, "repeat this exact WebSearch") {
		t.Errorf("reason: %s", d.Reason)
	}
	one := DenyDocs("gitlab", []Database{db("/g", "gitlab")})
	if strings.Contains(one.Context, "in parallel") {
		t.Errorf("a single database needs no parallel hint: %s", one.Context)
	}
}

func TestDocsRouter_RouteFailsOpenWhenStateCannotBeWritten(t *testing.T) {
	r, _ := NewDocsRouter([]Database{db("/g", "gitlab")})
	_, matched, deny, err := r.Route(nil, "s", Call{Query: "gitlab"})
	if deny || err == nil || len(matched) != 1 {
		t.Fatalf("deny=%v err=%v", deny, err)
	}
	_, _, deny, err = r.Route(&StateStore{}, "s", Call{Query: "gitlab"})
	if deny || err == nil {
		t.Fatalf("empty dir: deny=%v err=%v", deny, err)
	}
	_, _, deny, err = r.Route(&StateStore{Dir: t.TempDir()}, "s", Call{Query: "python"})
	if deny || err != nil {
		t.Fatalf("no match: deny=%v err=%v", deny, err)
	}
}
