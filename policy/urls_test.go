package policy_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/webgate-dev/webgate/policy"
	"github.com/webgate-dev/webgate/provider"
)

func TestNormalizeURL_TreatsEquivalentURLsAsTheSamePage(t *testing.T) {
	cases := []struct{ name, a, b string }{
		{"scheme and host case", "HTTPS://Example.COM/a", "https://example.com/a"},
		{"default https port", "https://example.com:443/a", "https://example.com/a"},
		{"default http port", "http://example.com:80/a", "http://example.com/a"},
		{"trailing slash", "https://example.com/a/", "https://example.com/a"},
		{"empty path", "https://example.com", "https://example.com/"},
		{"fragment", "https://example.com/a#section-2", "https://example.com/a"},
		{"utm parameters", "https://example.com/a?utm_source=x&utm_medium=y&UTM_Campaign=z", "https://example.com/a"},
		{"click ids", "https://example.com/a?id=3&gclid=abc&fbclid=z&msclkid=q", "https://example.com/a?id=3"},
		{"mailchimp and twitter ids", "https://example.com/a?mc_cid=1&mc_eid=2&ref_src=twsrc&igshid=9", "https://example.com/a"},
		{"google srsltid", "https://example.com/a?srsltid=AfmBOo", "https://example.com/a"},
		{"parameter order", "https://example.com/a?b=2&a=1", "https://example.com/a?a=1&b=2"},
		{"www prefix", "https://www.example.com/a", "https://example.com/a"},
		{"http versus https", "http://example.com/a", "https://example.com/a"},
		{"percent-encoding", "https://example.com/%7Euser", "https://example.com/~user"},
		{"trailing dot in host", "https://example.com./a", "https://example.com/a"},
		{"surrounding space", "  https://example.com/a  ", "https://example.com/a"},
		{"empty query", "https://example.com/a?", "https://example.com/a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if ka, kb := policy.NormalizeURL(c.a), policy.NormalizeURL(c.b); ka != kb {
				t.Errorf("NormalizeURL(%q) = %q, NormalizeURL(%q) = %q; want equal", c.a, ka, c.b, kb)
			}
		})
	}
}

func TestNormalizeURL_KeepsDistinctPagesApart(t *testing.T) {
	cases := []struct{ name, a, b string }{
		{"path case", "https://example.com/A", "https://example.com/a"},
		{"query value", "https://example.com/a?id=1", "https://example.com/a?id=2"},
		{"non-default port", "https://example.com:8443/a", "https://example.com/a"},
		{"subdomain", "https://docs.example.com/a", "https://example.com/a"},
		{"meaningful parameter", "https://example.com/a?ref=v2", "https://example.com/a"},
		{"different path", "https://example.com/a/b", "https://example.com/a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if ka, kb := policy.NormalizeURL(c.a), policy.NormalizeURL(c.b); ka == kb {
				t.Errorf("NormalizeURL(%q) = NormalizeURL(%q) = %q; want different", c.a, c.b, ka)
			}
		})
	}
}

func TestNormalizeURL_KeepsUnparsableStringsAsTheyAre(t *testing.T) {
	for _, raw := range []string{"not a url", "/relative/path", "%zz"} {
		if got := policy.NormalizeURL(raw); got != raw {
			t.Errorf("NormalizeURL(%q) = %q, want it unchanged", raw, got)
		}
	}
}

func TestFilterDomains_MatchesSubdomainsButNotLookalikes(t *testing.T) {
	results := []provider.Result{
		{URL: "https://github.com/a"},
		{URL: "https://docs.github.com/b"},
		{URL: "https://notgithub.com/c"},
		{URL: "https://www.github.com/d"},
		{URL: "http://GITHUB.COM:8080/e"},
		{URL: "https://example.org/f"},
		{URL: "https://gist.github.com./g"},
	}
	githubAll := []string{"https://github.com/a", "https://docs.github.com/b", "https://www.github.com/d", "http://GITHUB.COM:8080/e", "https://gist.github.com./g"}
	all := urlsOf(results)
	cases := []struct {
		name             string
		include, exclude []string
		want             []string
	}{
		{"no filters", nil, nil, all},
		{"include parent covers subdomains", []string{"github.com"}, nil, githubAll},
		{"include ignores case", []string{"GitHub.COM"}, nil, githubAll},
		{"include with leading dot", []string{".github.com"}, nil, githubAll},
		{"include with wildcard", []string{"*.github.com"}, nil, githubAll},
		{"include given as URL", []string{"https://github.com/foo"}, nil, githubAll},
		{"include with www", []string{"www.github.com"}, nil, githubAll},
		{"include with port", []string{"github.com:443"}, nil, githubAll},
		{"include with space", []string{"  github.com "}, nil, githubAll},
		{"include one subdomain", []string{"docs.github.com"}, nil, []string{"https://docs.github.com/b"}},
		{"include several", []string{"example.org", "notgithub.com"}, nil, []string{"https://notgithub.com/c", "https://example.org/f"}},
		{"exclude parent removes subdomains", nil, []string{"github.com"}, []string{"https://notgithub.com/c", "https://example.org/f"}},
		{"exclude lookalike only", nil, []string{"notgithub.com"}, slices.Delete(slices.Clone(all), 2, 3)},
		{"include and exclude", []string{"github.com"}, []string{"docs.github.com", "gist.github.com"}, []string{"https://github.com/a", "https://www.github.com/d", "http://GITHUB.COM:8080/e"}},
		{"blank include entries do not filter", []string{"", "  "}, nil, all},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := urlsOf(policy.FilterDomains(results, c.include, c.exclude))
			if !slices.Equal(got, c.want) {
				t.Errorf("FilterDomains(include=%q, exclude=%q) =\n  %q\nwant\n  %q", c.include, c.exclude, got, c.want)
			}
		})
	}
}

func TestFilterDomains_DropsHostlessURLsWhenIncludeIsSet(t *testing.T) {
	results := []provider.Result{{URL: "not a url"}, {URL: "https://github.com/a"}}
	if got := urlsOf(policy.FilterDomains(results, []string{"github.com"}, nil)); !slices.Equal(got, []string{"https://github.com/a"}) {
		t.Errorf("got %q", got)
	}
	if got := urlsOf(policy.FilterDomains(results, nil, []string{"github.com"})); !slices.Equal(got, []string{"not a url"}) {
		t.Errorf("exclude only: got %q", got)
	}
}

func TestFilterDomains_DoesNotModifyItsInput(t *testing.T) {
	results := []provider.Result{{URL: "https://a.com/"}, {URL: "https://b.com/"}, {URL: "https://c.com/"}}
	before := slices.Clone(results)
	_ = policy.FilterDomains(results, nil, []string{"a.com"})
	if !reflect.DeepEqual(results, before) {
		t.Errorf("input changed: %v", results)
	}
}
