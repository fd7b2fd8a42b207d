package backend

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webgate-dev/webgate/provider"
)

func TestDomains_ReadsFiltersAsHostNames(t *testing.T) {
	got := Domains([]string{
		" https://Go.dev/doc ", "*.example.org", ".news.example.com.", "user:pw@host.example:8443",
		"go.dev", "", "  ", "bad domain", `"quoted"`, "a(b)", "http://x.example?q=1#f",
	})
	want := []string{"go.dev", "example.org", "news.example.com", "host.example", "x.example"}
	if !slices.Equal(got, want) {
		t.Errorf("Domains = %q, want %q", got, want)
	}
}

func TestBaseURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://api.example.com":       true,
		"http://127.0.0.1:8080/v1":      true,
		"api.example.com":               false,
		"ftp://api.example.com":         false,
		"https://api.example.com/?a=b":  false,
		"https://api.example.com/#frag": false,
		"https://":                      false,
		"":                              false,
	} {
		u := raw
		if err := BaseURL("x", &u, ""); (err == nil) != ok {
			t.Errorf("BaseURL(%q) = %v, want ok %v", raw, err, ok)
		}
	}
	u := ""
	if err := BaseURL("x", &u, "https://default.example"); err != nil || u != "https://default.example" {
		t.Errorf("BaseURL of empty = %q, %v; want the default", u, err)
	}
}

func TestCopy(t *testing.T) {
	type cfg struct{ N int }
	if got := Copy[cfg](nil); got != (cfg{}) {
		t.Errorf("Copy(nil) = %+v, want the zero value", got)
	}
	in := &cfg{N: 3}
	c := Copy(in)
	c.N = 4
	if in.N != 3 {
		t.Error("Copy shares its result with its argument")
	}
}

func TestServerTimeout_StaysASecondBelowTheAttempt(t *testing.T) {
	if got := ServerTimeout(provider.HTTPConfig{AttemptTimeout: 10 * time.Second}, 30*time.Second); got != 9*time.Second {
		t.Errorf("ServerTimeout = %v, want 9s", got)
	}
	if got := ServerTimeout(provider.HTTPConfig{AttemptTimeout: 10 * time.Second}, 5*time.Second); got != 5*time.Second {
		t.Errorf("ServerTimeout = %v, want 5s", got)
	}
	if got := ServerTimeout(provider.HTTPConfig{}, time.Hour); got != provider.DefaultAttemptTimeout-time.Second {
		t.Errorf("ServerTimeout with the default attempt = %v", got)
	}
}

func TestOutwait_LeavesTheServerItsTimeAndKeepsASetAttempt(t *testing.T) {
	if got := Outwait(provider.HTTPConfig{}, 30*time.Second).AttemptTimeout; got != 40*time.Second {
		t.Errorf("Outwait(30s).AttemptTimeout = %v, want 40s", got)
	}
	if got := Outwait(provider.HTTPConfig{}, time.Second).AttemptTimeout; got != provider.DefaultAttemptTimeout {
		t.Errorf("Outwait(1s).AttemptTimeout = %v, want the default %v", got, provider.DefaultAttemptTimeout)
	}
	if got := Outwait(provider.HTTPConfig{AttemptTimeout: 5 * time.Second}, time.Minute).AttemptTimeout; got != 5*time.Second {
		t.Errorf("Outwait with a set attempt = %v, want it kept (5s)", got)
	}
}

func TestMaxResults(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{0, 10}, {-1, 10}, {5, 5}, {50, 20}} {
		if got := MaxResults(tc.n, 10, 20); got != tc.want {
			t.Errorf("MaxResults(%d, 10, 20) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{"https://go.dev/doc": true, " ": false, "go.dev": false, "ftp://go.dev": false} {
		if msg := CheckURL(raw); (msg == "") != ok {
			t.Errorf("CheckURL(%q) = %q, want ok %v", raw, msg, ok)
		}
	}
}

func TestLabel(t *testing.T) {
	res := &provider.Results{Results: []provider.Result{{Content: "abcdef"}, {Content: "x"}, {Content: "y"}}}
	Label(res, "golang", "jina", 2, 3, []string{"time_range"})
	if res.Query != "golang" || res.Provider != "jina" || len(res.Results) != 2 || res.Results[0].Provider != "jina" || res.Results[0].Content == "abcdef" || len(res.Ignored) != 1 {
		t.Fatalf("Label = %+v", res)
	}
}

func TestMarkdownTitle(t *testing.T) {
	for md, want := range map[string]string{
		"intro\n## The  Title ##\n# Later": "The Title",
		"#hashtag\n####### seven\n":        "",
		"#\n# \n#  Real\n":                 "Real",
	} {
		if got := MarkdownTitle(md); got != want {
			t.Errorf("MarkdownTitle(%q) = %q, want %q", md, got, want)
		}
	}
}

func TestIsAlpha2(t *testing.T) {
	for s, want := range map[string]bool{"de": true, "US": true, "u1": false, "usa": false, "": false, "é": false} {
		if got := IsAlpha2(s); got != want {
			t.Errorf("IsAlpha2(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestMaxResultsSetting(t *testing.T) {
	n := 0
	if err := MaxResultsSetting("x", &n, 10, 20); err != nil || n != 10 {
		t.Errorf("MaxResultsSetting(0) = %d, %v; want the default", n, err)
	}
	for _, bad := range []int{-1, 21} {
		n := bad
		if err := MaxResultsSetting("x", &n, 10, 20); err == nil {
			t.Errorf("MaxResultsSetting(%d) accepted it", bad)
		}
	}
}

func TestChoices(t *testing.T) {
	modes := []string{"fast", "deep"}
	if err := Choices("exa", Choice{"mode", "deep", modes}, Choice{"engine", "", modes}); err != nil {
		t.Errorf("Choices of allowed and empty values = %v", err)
	}
	err := Choices("exa", Choice{"mode", "fast", modes}, Choice{"engine", "slow", modes})
	if want := `exa: engine "slow" is not one of fast, deep`; err == nil || err.Error() != want {
		t.Errorf("Choices = %v, want %s", err, want)
	}
	// An empty allowed value means the default and is not listed.
	err = Choices("brave", Choice{"safe_search", "loose", []string{"", "off", "strict"}})
	if want := `brave: safe_search "loose" is not one of off, strict`; err == nil || err.Error() != want {
		t.Errorf("Choices with an empty allowed value = %v, want %s", err, want)
	}
}

func TestStatusText(t *testing.T) {
	for status, want := range map[int]string{404: "Not Found", 503: "Service Unavailable", 599: "HTTP 599", 200: "OK"} {
		if got := StatusText(status); got != want {
			t.Errorf("StatusText(%d) = %q, want %q", status, got, want)
		}
	}
}

func TestInDomains(t *testing.T) {
	inc, exc := []string{"go.dev", "example.org"}, []string{"blog.go.dev"}
	for raw, want := range map[string]bool{
		"https://go.dev/doc":       true,
		"https://pkg.GO.dev./x":    true,
		"https://blog.go.dev/post": false,
		"https://a.blog.go.dev/":   false,
		"https://notgo.dev/":       false,
		"https://example.org":      true,
		"https://other.example/":   false,
		"not a url\x7f":            false,
		"/relative":                false,
	} {
		if got := InDomains(raw, inc, exc); got != want {
			t.Errorf("InDomains(%q) = %v, want %v", raw, got, want)
		}
	}
	if !InDomains("https://anything.example/", nil, nil) || InDomains("https://blog.go.dev/", nil, exc) || !InDomains("https://go.dev/", nil, exc) {
		t.Error("InDomains with only exclusions, or none, is wrong")
	}
}

func TestSiteOperators(t *testing.T) {
	if got, want := SiteOperators([]string{"a.dev", "b.dev"}, []string{"c.dev"}), " site:a.dev OR site:b.dev -site:c.dev"; got != want {
		t.Errorf("SiteOperators = %q, want %q", got, want)
	}
	if got := SiteOperators(nil, nil); got != "" {
		t.Errorf("SiteOperators of no filters = %q, want empty", got)
	}
}

// A base_url refused for its query or credentials is quoted in the error
// with its secrets redacted: the error reaches stderr and the agent.
func TestBaseURL_ErrorHidesSecrets(t *testing.T) {
	for _, raw := range []string{"http://127.0.0.1:47311/tv?api_key=tvly-SECRETKEYAAAA1111bbbb2222", "http://user:PassW0rdSecret@127.0.0.1:47311/?x=1"} {
		u := raw
		err := BaseURL("x", &u, "")
		if err == nil || strings.Contains(err.Error(), "SECRETKEYAAAA1111bbbb2222") || strings.Contains(err.Error(), "PassW0rdSecret") {
			t.Errorf("BaseURL(%q) = %v, want an error without the secret", raw, err)
		}
	}
}
