package webpage

import (
	"bytes"
	"encoding/json"
	"github.com/webgate-dev/webgate/internal/lazyre"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"

	"github.com/webgate-dev/webgate/internal/sanitize"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Recovered is readable text recovered from the data an app shell carries
// in its initial HTML, without running any script.
type Recovered struct {
	// Title is the page's title, when the data or the page names one.
	Title string
	// Markdown is the recovered text: a heading, then one paragraph per
	// piece of text, in the order the data holds them.
	Markdown string
	// Sources names where the text came from: "JSON-LD", "__NEXT_DATA__",
	// "__NUXT_DATA__", "__NUXT__", "ytInitialData", "Apollo state",
	// "noscript", "meta description".
	Sources []string
}

// Recovery limits.
const (
	// maxRecoverBytes caps the HTML Recover looks at.
	maxRecoverBytes = 4 << 20
	// maxRecoverChars caps the recovered text.
	maxRecoverChars = 100_000
	// minProse is the length from which a string of an unknown field
	// counts as prose.
	minProse = 80
)

// textKeys are the JSON fields whose strings are taken as text whatever
// their length (once they look like words, not identifiers).
var textKeys = map[string]bool{
	"articlebody": true, "body": true, "content": true, "text": true, "description": true,
	"summary": true, "excerpt": true, "abstract": true, "caption": true, "html": true,
	"markdown": true, "shortdescription": true, "simpletext": true, "headline": true,
	"title": true, "name": true, "subtitle": true, "answer": true, "question": true,
}

// skipKeys are fields that never hold page text.
var skipKeys = map[string]bool{
	"id": true, "url": true, "href": true, "src": true, "srcset": true, "image": true, "images": true,
	"thumbnail": true, "logo": true, "icon": true, "slug": true, "key": true, "hash": true,
	"token": true, "css": true, "class": true, "classname": true, "style": true, "__typename": true,
	"@type": true, "@context": true, "@id": true, "buildid": true, "assetprefix": true,
	"locale": true, "locales": true, "runtimeconfig": true, "scriptloader": true, "query": true,
	"trackingparams": true, "clicktrackingparams": true, "signature": true, "nonce": true,
	"mimetype": true, "contenttype": true, "encoding": true, "path": true, "route": true,
}

// Recover reads the data app shells embed for their scripts — Next.js'
// __NEXT_DATA__, Nuxt's __NUXT_DATA__ and __NUXT__, YouTube's
// ytInitialData, Apollo's cached state, JSON-LD (articleBody and
// descriptions), <noscript> copies and og:/twitter: descriptions — and
// returns the text they hold, or false when they hold none. It runs no
// script and fetches nothing.
func Recover(page []byte) (Recovered, bool) {
	if len(page) > maxRecoverBytes {
		page = page[:maxRecoverBytes]
	}
	page = []byte(sanitize.Text(string(page)))
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		return Recovered{}, false
	}
	r := &recovery{seen: map[string]bool{}}
	r.title = oneSpace(doc.Find("title").First().Text())

	doc.Find(`script[type="application/ld+json"]`).Each(func(_ int, s *goquery.Selection) {
		var v any
		if json.Unmarshal([]byte(s.Text()), &v) == nil {
			r.fromJSON("JSON-LD", v)
		}
	})
	doc.Find("script").Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("id")
		body := s.Text()
		switch {
		case id == "__NEXT_DATA__":
			var v any
			if json.Unmarshal([]byte(body), &v) == nil {
				if m, ok := v.(map[string]any); ok {
					if props, ok := m["props"]; ok {
						v = props
					}
				}
				r.fromJSON("__NEXT_DATA__", v)
			}
		case id == "__NUXT_DATA__":
			var v any
			if json.Unmarshal([]byte(body), &v) == nil {
				r.fromJSON("__NUXT_DATA__", v)
			}
		default:
			for _, a := range assignments {
				if obj := a.re().FindStringIndex(body); obj != nil {
					if v, ok := jsonValueAt(body, obj[1]); ok {
						r.fromJSON(a.source, v)
					}
				}
			}
		}
	})
	doc.Find("noscript").Each(func(_ int, s *goquery.Selection) {
		// The parser keeps a noscript's content as text; parse it as HTML.
		r.fromHTML("noscript", s.Text())
	})
	if len(r.parts) == 0 {
		for _, sel := range []string{`meta[property="og:description"]`, `meta[name="twitter:description"]`, `meta[name="description"]`} {
			if c, ok := doc.Find(sel).First().Attr("content"); ok {
				r.add("meta description", c, true)
				break
			}
		}
	}
	if r.title == "" {
		for _, sel := range []string{`meta[property="og:title"]`, `meta[name="twitter:title"]`} {
			if c, ok := doc.Find(sel).First().Attr("content"); ok && strings.TrimSpace(c) != "" {
				r.title = oneSpace(c)
				break
			}
		}
	}
	if len(r.parts) == 0 {
		return Recovered{}, false
	}
	var b strings.Builder
	if r.title != "" {
		b.WriteString("# ")
		b.WriteString(r.title)
		b.WriteString("\n\n")
	}
	for _, p := range r.parts {
		if b.Len()+len(p) > maxRecoverChars {
			break
		}
		if p == r.title {
			continue
		}
		b.WriteString(p)
		b.WriteString("\n\n")
	}
	return Recovered{Title: r.title, Markdown: strings.TrimSpace(b.String()), Sources: r.sources}, true
}

// assignments are the script globals that hold an app's state as a JSON
// object literal.
var assignments = []struct {
	source string
	re     func() *regexp.Regexp
}{
	{"ytInitialData", lazyre.New(`(?:var\s+|window\[?["']?)ytInitialData["']?\]?\s*=\s*`)},
	{"ytInitialData", lazyre.New(`(?:var\s+|window\[?["']?)ytInitialPlayerResponse["']?\]?\s*=\s*`)},
	{"Apollo state", lazyre.New(`window\.__APOLLO_STATE__\s*=\s*`)},
	{"__NUXT__", lazyre.New(`window\.__NUXT__\s*=\s*`)},
	{"initial state", lazyre.New(`window\.__(?:INITIAL|PRELOADED)_STATE__\s*=\s*`)},
}

// jsonValueAt decodes the JSON value that starts at offset i of s (a JSON
// object literal assigned in a script), ignoring what follows it.
func jsonValueAt(s string, i int) (any, bool) {
	if i >= len(s) || (s[i] != '{' && s[i] != '[') {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(s[i:]))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

type recovery struct {
	title   string
	parts   []string
	sources []string
	seen    map[string]bool
	size    int
}

// fromJSON walks v in order and keeps the strings that read as text.
func (r *recovery) fromJSON(source string, v any) {
	var walk func(key string, v any, depth int)
	walk = func(key string, v any, depth int) {
		if depth > 64 || r.size > maxRecoverChars {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			// Maps lose the document's order; a stable order keeps the
			// output deterministic, and text fields come first.
			slices.SortFunc(keys, func(a, b string) int {
				ta, tb := textKeys[strings.ToLower(a)], textKeys[strings.ToLower(b)]
				switch {
				case ta && !tb:
					return -1
				case tb && !ta:
					return 1
				}
				return strings.Compare(a, b)
			})
			for _, k := range keys {
				if skipKeys[strings.ToLower(k)] {
					continue
				}
				walk(k, t[k], depth+1)
			}
		case []any:
			for _, e := range t {
				walk(key, e, depth+1)
			}
		case string:
			lk := strings.ToLower(key)
			if (lk == "headline" || lk == "name" || lk == "title") && r.title == "" && prose(t, 2) {
				r.title = oneSpace(t)
			}
			if strings.ContainsAny(t, "<>") && strings.Contains(t, "</") {
				r.fromHTML(source, t)
				return
			}
			if textKeys[lk] && prose(t, 30) || prose(t, minProse) {
				r.add(source, t, false)
			}
		}
	}
	walk("", v, 0)
}

// fromHTML keeps the text of an HTML fragment when it is more than a
// notice that scripts are needed.
func (r *recovery) fromHTML(source, fragment string) {
	nodes, err := html.ParseFragment(strings.NewReader(fragment), &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		return
	}
	var b strings.Builder
	var text func(n *html.Node)
	text = func(n *html.Node) {
		switch {
		case n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style" || n.Data == "iframe"):
			return
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.Type == html.ElementNode && (n.Data == "p" || n.Data == "br" || n.Data == "li" || n.Data == "div" || strings.HasPrefix(n.Data, "h")):
			b.WriteString("\n")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			text(c)
		}
	}
	for _, n := range nodes {
		text(n)
	}
	for _, para := range strings.Split(b.String(), "\n") {
		para = oneSpace(para)
		if para == "" || scriptNotice(para) {
			continue
		}
		if prose(para, 20) {
			r.add(source, para, false)
		}
	}
}

// add keeps one piece of text, once.
func (r *recovery) add(source, s string, always bool) {
	s = oneSpace(s)
	if s == "" || r.seen[s] || (!always && !utf8.ValidString(s)) {
		return
	}
	r.seen[s] = true
	r.parts = append(r.parts, s)
	r.size += len(s)
	if !slices.Contains(r.sources, source) {
		r.sources = append(r.sources, source)
	}
}

// prose reports whether s reads as words for people: at least min
// characters, with spaces between words, and not a URL, a path, code or
// an encoded blob.
func prose(s string, min int) bool {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) < min {
		return false
	}
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "data:") {
		return false
	}
	words := strings.Fields(s)
	if min >= 20 && len(words) < 5 {
		return false
	}
	letters, symbols := 0, 0
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c > 127:
			letters++
		case strings.ContainsRune("{}[]=;<>$\\|_", c):
			symbols++
		}
	}
	return letters*2 > utf8.RuneCountInString(s) && symbols*20 < utf8.RuneCountInString(s)
}

// scriptNotice reports a sentence telling the reader to enable JavaScript.
func scriptNotice(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "javascript") && (strings.Contains(l, "enable") || strings.Contains(l, "requires") || strings.Contains(l, "need") || strings.Contains(l, "turn on"))
}

func oneSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
