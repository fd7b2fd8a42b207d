package policy

import (
	"net"
	"net/url"
	"strings"

	"github.com/webgate-dev/webgate/provider"
)

// trackingParams are query parameters that only carry click or campaign
// tracking; they never select different content, so [NormalizeURL] drops
// them. Every parameter whose name starts with "utm_" is dropped as well.
// Names are compared case-insensitively.
var trackingParams = map[string]bool{
	"gclid": true, "gclsrc": true, "dclid": true, "gbraid": true, "wbraid": true,
	"fbclid": true, "msclkid": true, "yclid": true, "twclid": true, "ttclid": true,
	"li_fat_id": true, "igshid": true, "igsh": true, "srsltid": true,
	"mc_cid": true, "mc_eid": true, "ref_src": true, "ref_url": true,
	"_ga": true, "_gl": true, "_hsenc": true, "_hsmi": true, "hsctatracking": true,
	"mkt_tok": true, "oly_anon_id": true, "oly_enc_id": true, "vero_id": true,
	"rb_clickid": true, "s_cid": true, "spm": true,
}

func isTrackingParam(name string) bool {
	name = strings.ToLower(name)
	return strings.HasPrefix(name, "utm_") || trackingParams[name]
}

// NormalizeURL returns the key under which two result URLs count as the same
// page when merged lists are deduplicated. It is a comparison key, not a URL
// to show: policies keep the original URL of the best-ranked occurrence for
// display.
//
// The key ignores what does not change the page a browser would show:
//   - the scheme's case, and http versus https;
//   - the host's case, a trailing dot, a leading "www." and user info;
//   - default ports (80 for http, 443 for https);
//   - a trailing slash on the path (an empty path is "/"), and differences
//     in percent-encoding of the path;
//   - the fragment;
//   - tracking parameters ("utm_*", gclid, fbclid, msclkid, mc_cid, mc_eid,
//     ref_src, igshid, srsltid, …); the remaining parameters are sorted.
//
// A string that does not parse as an absolute URL with a host is returned
// trimmed of surrounding space, so it is still deduplicated exactly.
func NormalizeURL(raw string) string {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	scheme := strings.ToLower(u.Scheme)
	host := hostKey(u)
	if host == "" {
		return raw
	}
	switch scheme {
	case "http", "https", "":
		scheme = "http"
	}
	path := u.Path
	if len(path) > 1 {
		path = strings.TrimRight(path, "/")
	}
	if path == "" {
		path = "/"
	}
	path = (&url.URL{Path: path}).EscapedPath()

	var b strings.Builder
	b.Grow(len(raw))
	b.WriteString(scheme)
	b.WriteString("://")
	b.WriteString(host)
	b.WriteString(path)
	if u.RawQuery != "" {
		if q := cleanQuery(u.RawQuery); q != "" {
			b.WriteByte('?')
			b.WriteString(q)
		}
	}
	return b.String()
}

// hostKey returns u's host, lower-cased, without a trailing dot, a leading
// "www." or a default port.
func hostKey(u *url.URL) string {
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	host = strings.TrimPrefix(host, "www.")
	port := u.Port()
	scheme := strings.ToLower(u.Scheme)
	if port == "" || (port == "80" && scheme == "http") || (port == "443" && scheme == "https") {
		return hostBrackets(host)
	}
	return net.JoinHostPort(host, port)
}

// hostBrackets puts an IPv6 literal back in brackets.
func hostBrackets(host string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

// cleanQuery drops tracking parameters and sorts the rest. A query that does
// not parse is kept as it is.
func cleanQuery(raw string) string {
	vals, err := url.ParseQuery(raw)
	if err != nil {
		return raw
	}
	for name := range vals {
		if isTrackingParam(name) {
			delete(vals, name)
		}
	}
	return vals.Encode()
}

// FilterDomains returns the results whose URL is within one of the include
// domains (when include is not empty) and within none of the exclude domains.
// It never modifies results; it returns results itself when nothing needs to
// be dropped.
//
// A domain covers itself and its subdomains: "github.com" covers
// "docs.github.com" but not "notgithub.com". Entries and URLs are compared
// without case, port, trailing dot or leading "www."; an entry may be written
// with a leading dot or "*." (".github.com"), or as a URL
// ("https://github.com/foo", whose host is used). Blank entries are ignored,
// so an include list of only blank entries does not filter.
//
// When an include list is in force, a result whose URL has no host cannot be
// shown to be inside it and is dropped.
func FilterDomains(results []provider.Result, include, exclude []string) []provider.Result {
	inc, exc := normalizeDomains(include), normalizeDomains(exclude)
	if len(inc) == 0 && len(exc) == 0 {
		return results
	}
	keep := func(r provider.Result) bool {
		host := resultHost(r.URL)
		if len(inc) > 0 && (host == "" || !inDomains(host, inc)) {
			return false
		}
		return host == "" || !inDomains(host, exc)
	}
	all := true
	for _, r := range results {
		if !keep(r) {
			all = false
			break
		}
	}
	if all {
		return results
	}
	out := make([]provider.Result, 0, len(results))
	for _, r := range results {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// normalizeDomains turns filter entries into bare lower-case host names.
func normalizeDomains(entries []string) []string {
	var out []string
	for _, e := range entries {
		if d := normalizeDomain(e); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// normalizeDomain turns one filter entry ("GitHub.com", ".github.com",
// "*.github.com", "www.github.com:443", "https://github.com/foo") into a
// bare host name ("github.com"), or "" for an entry that names no host.
func normalizeDomain(entry string) string {
	e := strings.ToLower(strings.TrimSpace(entry))
	if e == "" {
		return ""
	}
	if strings.Contains(e, "://") {
		u, err := url.Parse(e)
		if err != nil {
			return ""
		}
		e = u.Hostname()
	} else {
		if i := strings.IndexAny(e, "/?#"); i >= 0 {
			e = e[:i]
		}
		if i := strings.LastIndexByte(e, '@'); i >= 0 {
			e = e[i+1:]
		}
		if h, _, err := net.SplitHostPort(e); err == nil {
			e = h
		}
		e = strings.Trim(e, "[]")
	}
	e = strings.TrimPrefix(e, "*.")
	e = strings.Trim(e, ".")
	e = strings.TrimPrefix(e, "www.")
	return e
}

// resultHost returns the bare host of a result URL, or "" when it has none.
// A URL written without a scheme ("github.com/foo") is read as http.
func resultHost(raw string) string {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err == nil && u.Host == "" && !strings.Contains(raw, "://") {
		u, err = url.Parse("http://" + raw)
	}
	if err != nil {
		return ""
	}
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	return strings.TrimPrefix(h, "www.")
}

// inDomains reports whether host is one of domains or a subdomain of one.
func inDomains(host string, domains []string) bool {
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}
