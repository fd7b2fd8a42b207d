// Package backend holds what the provider backends' constructors and
// requests share: the interfaces every Client satisfies, copying the
// Config they are given, defaulting and checking a base URL and the
// enumerated settings, the timeout to ask a server for so that it gives up
// before the client does, a query's domain filters (read as host names,
// written as site: operators, checked against a result's URL) and its
// result count, checking a page URL, naming a status that came without a
// message, labelling a search's results and taking a page's title from its
// Markdown.
package backend

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webgate-dev/webgate/internal/redact"
	"github.com/webgate-dev/webgate/provider"
)

// Searcher is what every backend's Client is: a [provider.Searcher] that
// has a name and says which parts of a query it ignores. A backend states
// it once, as a compile-time guard: var _ backend.Searcher = (*Client)(nil).
type Searcher interface {
	provider.Searcher
	provider.Namer
	provider.Ignorer
}

// Reader is a [Searcher] that also reads pages ([provider.Extractor]): the
// guard of the backends that extract.
type Reader interface {
	Searcher
	provider.Extractor
}

// Copy returns a copy of *cfg, or the zero value when cfg is nil: the
// Config a backend's New completes with its defaults, so that New never
// modifies the Config it is given.
func Copy[T any](cfg *T) T {
	var c T
	if cfg != nil {
		c = *cfg
	}
	return c
}

// ShowURL returns a configured URL as an error may quote it: its secrets
// (a password, an API key in its query) redacted, since the error reaches
// stderr, logs and the agent.
func ShowURL(raw string) string { return redact.String(raw) }

// BaseURL sets *raw to def when it is empty, then returns an error naming
// the backend when it is not an absolute http(s) URL with a host and
// without a query or fragment (the backends append paths to it).
func BaseURL(name string, raw *string, def string) error {
	if *raw == "" {
		*raw = def
	}
	u, err := url.Parse(*raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%s: base_url %q is not an absolute http(s) URL without query or fragment", name, ShowURL(*raw))
	}
	return nil
}

// MaxResultsSetting completes a backend's max_results setting *n: 0
// means def; anything else must lie in 1..max, or the error names the
// backend.
func MaxResultsSetting(name string, n *int, def, max int) error {
	if *n == 0 {
		*n = def
	}
	if *n < 1 || *n > max {
		return fmt.Errorf("%s: max_results %d is outside 1..%d", name, *n, max)
	}
	return nil
}

// MaxResults resolves how many results a search asks for: n, the query's
// MaxResults, when it is positive, else def, the configured default; at
// most max, what the API accepts.
func MaxResults(n, def, max int) int {
	if n <= 0 {
		n = def
	}
	return min(n, max)
}

// CheckURL returns why raw, the URL of a page to extract, is a bad
// request: it is empty, or not an absolute http(s) URL; "" when it is
// neither.
func CheckURL(raw string) string {
	if strings.TrimSpace(raw) == "" {
		return "URL is empty"
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "URL is not an absolute http(s) URL"
	}
	return ""
}

// Label finishes the results of a search for query by the backend named
// name: the query and the backend recorded, at most want results, each
// named after the backend with its content capped at maxChars runes (0: no
// cap), and the filters the backend ignored.
func Label(res *provider.Results, query, name string, want, maxChars int, ignored []string) {
	res.Query = query
	res.Provider = name
	if len(res.Results) > want {
		res.Results = res.Results[:want]
	}
	for i := range res.Results {
		res.Results[i].Provider = name
		res.Results[i].Content = provider.CapRunes(res.Results[i].Content, maxChars)
	}
	res.Ignored = provider.IgnoredBy(name, ignored)
}

// MarkdownTitle returns the text of the first ATX heading ("# Title") of
// the Markdown document md with its runs of white space folded to one
// space, or "": the title of a page a backend returns without one.
func MarkdownTitle(md string) string {
	for line := range strings.Lines(md) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "#") {
			continue
		}
		level := len(line) - len(strings.TrimLeft(line, "#"))
		rest := line[level:]
		if level > 6 || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		if title := strings.Join(strings.Fields(strings.TrimRight(strings.TrimSpace(rest), "#")), " "); title != "" {
			return title
		}
	}
	return ""
}

// IsAlpha2 reports whether s is two ASCII letters, of either case: the
// form of an ISO 3166-1 country or ISO 639-1 language code.
func IsAlpha2(s string) bool {
	letter := func(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
	return len(s) == 2 && letter(s[0]) && letter(s[1])
}

// Choice is an enumerated setting of a backend's Config: its name, its
// value and the values it may take.
type Choice struct {
	Setting, Value string
	Allowed        []string
}

// Choices checks that the value of each choice, when set, is one of its
// allowed values; the error names the backend and the first setting that
// is not, and lists the values it may take (an empty one, which means the
// default, left out).
func Choices(name string, cs ...Choice) error {
	for _, c := range cs {
		if c.Value != "" && !slices.Contains(c.Allowed, c.Value) {
			return fmt.Errorf("%s: %s %q is not one of %s", name, c.Setting, c.Value, strings.Join(slices.DeleteFunc(slices.Clone(c.Allowed), func(a string) bool { return a == "" }), ", "))
		}
	}
	return nil
}

// InDomains reports whether a result at rawURL passes a query's domain
// filters, for a backend that applies them itself: its host is, or is a
// subdomain of, one of the included domains (when there are any), and of
// none of the excluded ones. include and exclude are host names, as
// [Domains] reads them.
func InDomains(rawURL string, include, exclude []string) bool {
	if len(include) == 0 && len(exclude) == 0 {
		return true
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return false
	}
	under := func(d string) bool { return host == d || strings.HasSuffix(host, "."+d) }
	if slices.ContainsFunc(exclude, under) {
		return false
	}
	return len(include) == 0 || slices.ContainsFunc(include, under)
}

// SiteOperators renders a query's domain filters as search operators to
// append to its text: " site:a OR site:b -site:c", or "" when there are
// none.
func SiteOperators(include, exclude []string) string {
	var b strings.Builder
	for i, d := range include {
		if i > 0 {
			b.WriteString(" OR")
		}
		b.WriteString(" site:" + d)
	}
	for _, d := range exclude {
		b.WriteString(" -site:" + d)
	}
	return b.String()
}

// Bearer sends the key as "Authorization: Bearer <key>": the
// [provider.Request] Auth of the backends whose API takes it so.
func Bearer(h http.Header, k provider.Key) { h.Set("Authorization", "Bearer "+k.Secret()) }

// StatusText names an HTTP status in an error message when the answer
// gives no message of its own: its text, or "HTTP n" for a code that has
// none.
func StatusText(status int) string {
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "HTTP " + strconv.Itoa(status)
}

// ServerTimeout returns want, the time a backend asks its server to spend
// on a request, cut to one second below the attempt timeout of hc (the
// default when unset), so that the server gives up before the client does.
func ServerTimeout(hc provider.HTTPConfig, want time.Duration) time.Duration {
	attempt := hc.AttemptTimeout
	if attempt <= 0 {
		attempt = provider.DefaultAttemptTimeout
	}
	return min(want, attempt-time.Second)
}

// Outwait returns hc with the attempt timeout of a request on which the
// server may spend server (reading a page, say): when hc sets none, the
// default or server plus 10s, whichever is longer, so that the client
// waits for the server's answer; one hc sets is kept.
func Outwait(hc provider.HTTPConfig, server time.Duration) provider.HTTPConfig {
	if hc.AttemptTimeout == 0 {
		hc.AttemptTimeout = max(provider.DefaultAttemptTimeout, server+10*time.Second)
	}
	return hc
}

// Domains reads domain filters as lower-case host names: a scheme, user
// information, a path, query or fragment, a port, a leading "*." and
// leading or trailing dots are removed, and blank entries, entries with
// white space, quotes or parentheses, and repeats are dropped. So
// "https://Go.dev/doc" and "*.go.dev" become "go.dev".
func Domains(ds []string) []string {
	var out []string
	for _, d := range ds {
		d = strings.ToLower(strings.TrimSpace(d))
		if i := strings.Index(d, "://"); i >= 0 {
			d = d[i+3:]
		}
		if i := strings.IndexAny(d, "/?#"); i >= 0 {
			d = d[:i]
		}
		if i := strings.LastIndexByte(d, '@'); i >= 0 {
			d = d[i+1:]
		}
		if i := strings.IndexByte(d, ':'); i >= 0 {
			d = d[:i]
		}
		d = strings.Trim(strings.TrimPrefix(d, "*"), ".")
		if d == "" || strings.ContainsAny(d, " \t\r\n\"()") || slices.Contains(out, d) {
			continue
		}
		out = append(out, d)
	}
	return out
}
