package markdown

import "net/url"

// unresolved returns href, a relative link of a page read without its
// URL, as it is; "" for anything else (a same-page anchor, a link with a
// scheme). The pass before readability keeps such a link a link: which
// of a page's blocks are mostly links (menus, teaser lists) is part of
// what readability weighs, and does not depend on whether the page's
// address is known. The pass after it, which keeps web links alone,
// gives such a link its text alone, as before.
func unresolved(href string) string {
	if href == "" || href[0] == '#' {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil || u.Scheme != "" || u.Opaque != "" {
		return ""
	}
	return href
}
